"""§1 Stream events (docs/spec.md#s1): ``event.type.present``.

Every event of a stream is a JSON object with a string ``type``: the type is what a client
dispatches on, and an event without one can be neither routed nor judged further (its sequence
number still is, §2.1).

The rule runs first on every event the stream validator judges in full (a fast-path delta's type
was matched to get there): :func:`judge_not_an_object` and :func:`judge_untyped` report, and
:func:`note_typed` marks the check applied where the event passed it.
"""

from __future__ import annotations

from typing import Any

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "EVENT_TYPE_PRESENT",
    "declare_examples",
    "judge_not_an_object",
    "judge_untyped",
    "note_typed",
]

EVENT_TYPE_PRESENT = register(
    "event.type.present",
    Level.MUST,
    "§1",
    "every event is a JSON object with a string `type`",
)


def judge_not_an_object(report: _Report, event: object, index: int) -> None:
    """An event that is not a JSON object."""
    report(EVENT_TYPE_PRESENT, index, "a JSON object", type(event).__name__)


def judge_untyped(report: _Report, etype: Any, index: int) -> None:
    """An object whose ``type`` is missing or not a string (``etype``: what it holds)."""
    report(EVENT_TYPE_PRESENT, index, "a string `type`", etype, path="type")


def note_typed(coverage: _Coverage) -> None:
    """An event with a string ``type``: the check was evaluated on it and held."""
    coverage.applied.add(EVENT_TYPE_PRESENT.id)


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples)."""
    from ..examples.build import at, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        EVENT_TYPE_PRESENT.id,
        S(lambda: at(text_stream(), "response.output_text.done", "type", None)),
        S(text_stream),
        also={"stream.part.order.done_before_part_done"},
    )
