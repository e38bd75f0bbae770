"""§1.1 Framing (docs/spec.md#s1-1): ``sse.data.json_number``, JSON's numbers as RFC 8259 §6
defines them.

JSON has no ``NaN``, ``Infinity`` or ``-Infinity`` (RFC 8259 §6: "Numeric values that cannot be
represented in the grammar below (such as Infinity and NaN) are not permitted"); Python's
``json.loads`` takes them, strict clients (``JSON.parse``, serde_json, orjson) refuse the whole
payload. A number beyond a double's range (``1e400``) is in RFC 8259's grammar (§6 names
``1E400`` as an interoperability risk, not as outside JSON) and clients differ on it
(``JSON.parse`` reads Infinity, serde_json refuses), so it is not this rule's: it parses, as it
did before the rule. Integers beyond 64 bits are JSON and are kept exact (the judge parses with
msgspec, which keeps them; orjson rounds them to a double).

The rule is the judge's JSON parser's strict fallback (:func:`judge_numbers`, from
:func:`conformance.sse.framing.parse_json`); the framing layer reports a payload it refused
(:func:`judge_number`) and marks the check applied at the first event it judges
(:func:`note_event`: every payload is parsed by it).
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from ..catalog.registry import Level, Violation, register
from .s1_1_framing import Framing, head

__all__ = [
    "JSON_NUMBER",
    "JSONNumberError",
    "declare_examples",
    "judge_number",
    "judge_numbers",
    "note_event",
]

JSON_NUMBER = register(
    "sse.data.json_number",
    Level.MUST,
    "§1.1; RFC 8259 §6",
    "every number in a `data:` payload is a JSON number: no `NaN`, `Infinity` or `-Infinity`",
)


class JSONNumberError(ValueError):
    """Text that would be JSON but for a number RFC 8259 does not permit (``NaN``,
    ``Infinity``, ``-Infinity``)."""


def _constant(name: str) -> NoReturn:
    raise JSONNumberError(f"{name} is not a JSON number (RFC 8259 §6)")


def judge_numbers(text: str | bytes) -> Any:
    """The rule, for text the fast parsers refused: its value when it is JSON they do not take
    (a lone surrogate escape, which RFC 8259 §8.2 allows), :class:`JSONNumberError` when a number
    is not a JSON number, ``ValueError`` when it is not JSON at all, ``RecursionError`` when it
    nests deeper than Python recurses."""
    return json.loads(text, parse_constant=_constant)


def judge_number(framing: Framing, index: int, data: str, message: str) -> Violation:
    """A payload the rule refused (``message``: the number it named)."""
    return framing(JSON_NUMBER, index, "JSON numbers only", head(data), message)


def note_event(applied: set[str]) -> None:
    """An event judged: its payload was parsed with JSON's numbers."""
    applied.add(JSON_NUMBER.id)


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
