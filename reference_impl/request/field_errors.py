"""The 400s every request check shares: a field of the wrong JSON type (``invalid_type``, "expected
an integer, but got a string"), a value outside its enum (``invalid_value``), in OpenAI's wording
(SPEC §4 "Errors"); :mod:`reference_impl.request.validation` re-exports them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import APIError, invalid_request

__all__ = ["check_enum", "check_type", "type_error", "value_error"]

_TYPE_NAMES = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a decimal",
    dict: "an object",
    list: "an array",
}


def _got(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def type_error(param: str, expected: str, value: Any) -> APIError:
    return invalid_request(
        f"Invalid type for '{param}': expected {expected}, but got {_got(value)} instead.",
        param,
        "invalid_type",
    )


def value_error(param: str, value: Any, allowed: tuple[str, ...]) -> APIError:
    supported = ", ".join(f"'{a}'" for a in allowed)
    return invalid_request(
        f"Invalid value: '{value}'. Supported values are: {supported}.", param, "invalid_value"
    )


def check_type(body: Mapping[str, Any], key: str, kind: type, *, param: str | None = None) -> Any:
    """``body[key]`` if it is ``None``/absent or of ``kind`` (ints count as decimals, bools never
    count as numbers); else a 400 ``invalid_type``."""
    value = body.get(key)
    if value is None:
        return None
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok:
        raise type_error(param or key, _TYPE_NAMES[kind], value)
    return value


def check_enum(body: Mapping[str, Any], key: str, allowed: tuple[str, ...], param: str) -> None:
    value = check_type(body, key, str, param=param)
    if value is not None and value not in allowed:
        raise value_error(param, value, allowed)
