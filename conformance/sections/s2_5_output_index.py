"""§2.5 Output index (docs/spec.md#s2-5): ``stream.output_index.contiguous``,
``stream.item.no_interleave``.

Items are numbered by ``output_index`` 0, 1, 2, … in the order they are added ([REC]). SHOULD: an
item's events end before the next item is added (no interleaving). A stream resumed after event
N may name items opened before N without their ``output_item.added`` (§2.12): its numbering is
known only from its first added item on.
"""

from __future__ import annotations

from typing import Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Report

__all__ = [
    "ITEM_INTERLEAVE",
    "OUTPUT_INDEX_CONTIGUOUS",
    "OutputIndexState",
    "declare_examples",
    "judge_added_index",
    "judge_interleave",
    "note_item_added",
]

OUTPUT_INDEX_CONTIGUOUS = register(
    "stream.output_index.contiguous",
    Level.MUST,
    "§2.5 [REC]",
    "`output_index` runs 0, 1, 2, … in the order items are added",
)
ITEM_INTERLEAVE = register(
    "stream.item.no_interleave",
    Level.SHOULD,
    "§2.5",
    "items do not interleave: an item's events end before the next item is added",
)


class _Coverage(Protocol):
    applied: set[str]
    items_added: int  # `output_item.added` events judged before this one


class _Item(Protocol):
    known: bool  # seen from its `output_item.added` (not adopted by a resumed stream)
    interleave_reported: bool


class OutputIndexState(Protocol):
    """What the rules read and write of the stream validator."""

    _next_output_index: int | None  # the index the next added item must have (None: not known)
    _last_added: int  # the highest index added so far

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def note_item_added(coverage: _Coverage) -> None:
    """An `output_item.added` event, whatever it holds: its index is judged, and from the second
    one on, the items before it are judged for events that come after it (the validator calls
    this where it records coverage)."""
    coverage.applied.add(OUTPUT_INDEX_CONTIGUOUS.id)
    if coverage.items_added:
        coverage.applied.add(ITEM_INTERLEAVE.id)


def judge_added_index(state: OutputIndexState, oi: int, index: int) -> bool:
    """A new item's ``output_index`` (one no item has yet) against the next one the stream owes;
    False for a negative one (reported: no item opens)."""
    if oi < 0:
        state._report(
            OUTPUT_INDEX_CONTIGUOUS, index, "an output_index ≥ 0", oi, path="output_index"
        )
        return False
    expected_oi = state._next_output_index
    if expected_oi is not None and oi != expected_oi:
        state._report(OUTPUT_INDEX_CONTIGUOUS, index, expected_oi, oi, path="output_index")
    state._next_output_index = oi + 1 if expected_oi is None else max(expected_oi, oi + 1)
    return True


def judge_interleave(state: OutputIndexState, item: _Item, oi: int, etype: str, index: int) -> None:
    """An event names item ``oi``, added before the newest item (the caller asks only then):
    reported once per item, for an item seen from its start."""
    if not item.interleave_reported and item.known:
        item.interleave_reported = True
        state._report(
            ITEM_INTERLEAVE,
            index,
            f"events of item {oi} before item {state._last_added} was added",
            etype,
            path="output_index",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import Event, call_stream, find, reasoning_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S, move

    def index_one() -> list[Event]:
        events = call_stream()
        for e in events[2:-1]:
            e["output_index"] = 1
        return events

    example(
        OUTPUT_INDEX_CONTIGUOUS.id,
        S(index_one, "the only item has `output_index` 1"),
        S(call_stream),
    )
    example(
        ITEM_INTERLEAVE.id,
        S(lambda: move(reasoning_stream(), find(reasoning_stream(), "response.output_item.added", 1), 3),
          "the message is added while the reasoning item is open"),
        S(reasoning_stream),
    )  # fmt: skip
