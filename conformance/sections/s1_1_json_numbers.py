"""§1.1 Framing (docs/spec.md#s1-1): ``sse.data.json_number``, JSON's numbers as RFC 8259 §6
defines them.

JSON has no ``NaN``, ``Infinity`` or ``-Infinity`` (RFC 8259 §6: "Numeric values that cannot be
represented in the grammar below (such as Infinity and NaN) are not permitted"); Python's
``json.loads`` takes them, strict clients (``JSON.parse``, serde_json, orjson) refuse the whole
payload. A number beyond a double's range (``1e400``) is refused the same way: every client that
parses into doubles would read it as infinity. Integers beyond 64 bits are JSON and are kept
exact (the judge parses with msgspec, which keeps them; orjson rounds them to a double).
"""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn

from ..catalog.registry import Level, register

__all__ = ["JSON_NUMBER", "JSONNumberError", "declare_examples", "judge_numbers"]

JSON_NUMBER = register(
    "sse.data.json_number",
    Level.MUST,
    "§1.1; RFC 8259 §6",
    "every number in a `data:` payload is a JSON number: no `NaN`, `Infinity` or `-Infinity`, "
    "none beyond a double's range",
)


class JSONNumberError(ValueError):
    """Text that would be JSON but for a number RFC 8259 does not permit (``NaN``,
    ``Infinity``, ``-Infinity``) or that no double holds (``1e400``)."""


def _constant(name: str) -> NoReturn:
    raise JSONNumberError(f"{name} is not a JSON number (RFC 8259 §6)")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JSONNumberError(f"{text[:40]} is beyond a double's range (RFC 8259 §6)")
    return value


def judge_numbers(text: str | bytes) -> Any:
    """The rule, for text the fast parsers refused: its value when it is JSON they do not take
    (a lone surrogate escape, which RFC 8259 §8.2 allows), :class:`JSONNumberError` when a number
    is not a JSON number, ``ValueError`` when it is not JSON at all, ``RecursionError`` when it
    nests deeper than Python recurses."""
    return json.loads(text, parse_constant=_constant, parse_float=_float)


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples)."""
    from ..examples.build import sse, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import R, replace_bytes

    def top_p(value: str) -> bytes:
        # `top_p` is a number in the Response schema: only the literal changes.
        data = sse(text_stream())
        assert b'"top_p":1,' in data
        return data.replace(b'"top_p":1,', b'"top_p":' + value.encode() + b",")

    example(
        JSON_NUMBER.id,
        R(lambda: replace_bytes(sse(text_stream()), "event: response.in_progress",
                                'data: {"top_p":NaN}\n\nevent: response.in_progress'),
          "an event whose `top_p` is `NaN`"),
        R(lambda: top_p("1e-300"), "`top_p` a tiny number, but a double"),
    )  # fmt: skip
