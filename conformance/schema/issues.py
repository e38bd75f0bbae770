"""What a schema issue is, and how the values in one are rendered."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal, NoReturn

from ..catalog.render import short_json
from ..catalog.render import truncate as _truncate
from .jsontypes import _JSON_TYPES

__all__ = ["IssueKind", "SchemaIssue"]


IssueKind = Literal["required", "type", "value", "enum"]


_ACTUAL_MAX: Final = 80


_EXPECTED_MAX: Final = 160


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """One place where a value breaks its schema. ``path`` is relative to the validated object."""

    kind: IssueKind
    path: str
    expected: str
    actual: str


class _NoIssues(list[SchemaIssue]):
    """The shared empty result: a list that refuses to be filled."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("schema validation results are shared and immutable; copy with list()")

    append = extend = insert = __setitem__ = __iadd__ = __imul__ = _refuse


_NO_ISSUES: Final[list[SchemaIssue]] = _NoIssues()


def _types_text(types: frozenset[str], nullable: bool) -> str:
    names: list[str] = [t for t in _JSON_TYPES if t in types]
    if "number" in types and "integer" in names:
        names.remove("integer")
    if nullable:
        names.append("null")
    return " or ".join(names) if names else "nothing"


def _one_of(values: Iterable[str]) -> str:
    values = list(values)
    if len(values) == 1:
        return repr(values[0])
    return _truncate("one of " + ",".join(repr(v) for v in values), _EXPECTED_MAX)


def _short(value: Any) -> str:
    return short_json(value, _ACTUAL_MAX)


def _join(path: str, key: str) -> str:
    if not key.isidentifier():
        return f"{path}[{_short(key)}]"
    return f"{path}.{key}" if path else key
