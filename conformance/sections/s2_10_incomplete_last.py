"""§2.10 Incomplete items (docs/spec.md#s2-10): ``stream.item.incomplete_last``.

An item that ends ``incomplete`` is the last item, in a response that is ``incomplete`` ([OR]).
Two rules judge it: in a stream, an item added after one whose ``output_item.done`` was
``incomplete`` (:func:`judge_added_after_incomplete`); in a Response seen whole, a streamed
terminal or a non-stream body, an ``incomplete`` item anywhere but last, or in a response of
another status (:func:`judge_incomplete_item`, called from ``ResponseChecker``). Each marks the
check applied where it meets an ``incomplete`` item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "ITEM_INCOMPLETE_LAST",
    "declare_examples",
    "judge_added_after_incomplete",
    "judge_incomplete_item",
    "note_item_done",
]

ITEM_INCOMPLETE_LAST = register(
    "stream.item.incomplete_last",
    Level.MUST,
    "§2.10 [OR]",
    "an item that ends `incomplete` is the last item, and the response is `incomplete`",
)

Report = Callable[..., None]
"""``report(check, expected, actual, path, message="")``: the caller's sink for one finding."""


class IncompleteState(Protocol):
    """What the stream rule reads of the stream validator."""

    _incomplete_item: int | None  # the output_index of an item done `incomplete`, if any

    @property
    def _report(self) -> _Report: ...


def note_item_done(coverage: _Coverage, event: Mapping[str, Any]) -> None:
    """An `output_item.done` event: an item it closes ``incomplete`` is to be the last one (the
    validator calls this where it records coverage)."""
    item = event.get("item")
    if isinstance(item, dict) and item.get("status") == "incomplete":
        coverage.applied.add(ITEM_INCOMPLETE_LAST.id)


def judge_added_after_incomplete(state: IncompleteState, itype: Any, index: int) -> None:
    """An item added to a stream (``itype``: its type) after one that ended incomplete (the
    caller asks only then: this is on every item's path)."""
    state._report(
        ITEM_INCOMPLETE_LAST,
        index,
        "no item after an incomplete one",
        itype,
        message=f"item {state._incomplete_item} ended `incomplete`",
    )


def judge_incomplete_item(
    status: Any,
    pos: int,
    count: int,
    item: Mapping[str, Any],
    report: Report,
    applied: set[str] | None = None,
) -> None:
    """The item at ``output[pos]`` of ``count`` in a Response whose status is ``status``."""
    if item.get("status") != "incomplete":
        return
    if applied is not None:
        applied.add(ITEM_INCOMPLETE_LAST.id)
    if pos != count - 1 or status != "incomplete":
        report(
            ITEM_INCOMPLETE_LAST,
            "the incomplete item is the last one, in an incomplete response",
            f"item {pos} of {count}, response status {status!r}",
            f"output[{pos}].status",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of the check (conformance.examples)."""
    from ..examples.build import Event, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    def incomplete_item(terminal: str) -> list[Event]:
        events = text_stream()
        for e in (events[8]["item"], events[9]["response"]["output"][0]):
            e["status"] = "incomplete"
        if terminal == "incomplete":
            events[9]["type"] = "response.incomplete"
            events[9]["response"]["status"] = "incomplete"
            events[9]["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
        return events

    example(
        ITEM_INCOMPLETE_LAST.id,
        S(lambda: incomplete_item("completed"), "an incomplete item in a completed response"),
        S(lambda: incomplete_item("incomplete"), "the same in an incomplete response"),
    )
