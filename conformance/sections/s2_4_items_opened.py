"""§2.4 Items are opened first (docs/spec.md#s2-4): ``stream.item.added_before_use``,
``stream.item.added_once``, ``stream.item.done_once``.

``response.output_item.added`` comes before any event that names the item (the [SDK] raises on a
content event for an output index it has not seen; openai-python#2852 is the IndexError this
causes). An item is added once and closed by one ``output_item.done``; no event names it
afterwards. A stream resumed after event N may name items opened before N (§2.12): the
validator adopts those without their ``output_item.added``.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "ITEM_ADDED_BEFORE_USE",
    "ITEM_ADDED_ONCE",
    "ITEM_DONE_ONCE",
    "ItemsOpenedState",
    "declare_examples",
    "judge_added_twice",
    "judge_after_done",
    "judge_done_twice",
    "judge_unopened",
    "note_item_added",
    "note_item_done",
    "note_item_named",
]

ITEM_ADDED_BEFORE_USE = register(
    "stream.item.added_before_use",
    Level.MUST,
    "§2.4 [SDK]",
    "an item is opened by `response.output_item.added` before any event names it",
)
ITEM_ADDED_ONCE = register(
    "stream.item.added_once",
    Level.MUST,
    "§2.4",
    "no output item is added twice (by `output_index` or by `id`)",
)
ITEM_DONE_ONCE = register(
    "stream.item.done_once",
    Level.MUST,
    "§2.4, §2.6",
    "an item is closed by `output_item.done` once, and nothing names it afterwards",
)
_DONE = (ITEM_DONE_ONCE.id, ITEM_ADDED_BEFORE_USE.id)


class _Item(Protocol):
    id: Any


class ItemsOpenedState(Protocol):
    """What the rules read of the stream validator."""

    _next_output_index: int | None  # the index the next added item must have (None: not known)

    @property
    def _items(self) -> dict[int, Any]: ...  # the items added (or adopted), by output_index

    @property
    def _report(self) -> _Report: ...


def note_item_added(coverage: _Coverage) -> None:
    """An `output_item.added` event, whatever it holds: it is judged for a second addition (the
    validator calls this where it records coverage)."""
    coverage.applied.add(ITEM_ADDED_ONCE.id)


def note_item_done(coverage: _Coverage) -> None:
    """An `output_item.done` event, whatever it holds: it is judged for a second closing, and
    for the item it names having been opened."""
    coverage.applied.update(_DONE)


def note_item_named(coverage: _Coverage) -> None:
    """An event that names an item by its ``output_index`` (on the full path, or routed to the
    newest open item by the fast path): the item was looked up, added or not."""
    coverage.applied.add(ITEM_ADDED_BEFORE_USE.id)


def judge_added_twice(state: ItemsOpenedState, oi: int, index: int) -> None:
    """An `output_item.added` event names ``output_index`` ``oi``, which an item already holds
    (the caller asks only then: this is on every item's path)."""
    state._report(
        ITEM_ADDED_ONCE,
        index,
        f"a new output_index (next: {state._next_output_index})",
        oi,
        path="output_index",
        message=f"output_index {oi} was already added as item {state._items[oi].id!r}",
    )


def judge_unopened(state: ItemsOpenedState, oi: int, etype: str, index: int) -> None:
    """An event names ``output_index`` ``oi``, which no item was added at (nor adopted)."""
    state._report(
        ITEM_ADDED_BEFORE_USE,
        index,
        f"`output_item.added` for output_index {oi} first",
        etype,
        path="output_index",
    )


def judge_after_done(state: ItemsOpenedState, oi: int, etype: str, index: int) -> None:
    """An event names item ``oi``, already closed by its `output_item.done`."""
    state._report(
        ITEM_DONE_ONCE,
        index,
        f"no event for the finished item {oi}",
        etype,
        path="output_index",
    )


def judge_done_twice(state: ItemsOpenedState, oi: int, index: int) -> None:
    """A second `output_item.done` for item ``oi``."""
    state._report(
        ITEM_DONE_ONCE,
        index,
        "one `output_item.done` per item",
        f"a second `output_item.done` for output_index {oi}",
        path="output_index",
    )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import drop, insert, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        ITEM_ADDED_BEFORE_USE.id,
        S(lambda: drop(text_stream(), "response.output_item.added")),
        S(text_stream),
        also={"stream.output.equals_items"},
    )
    example(
        ITEM_ADDED_ONCE.id,
        S(lambda: insert(text_stream(), 3, text_stream()[2]), "`output_item.added` twice"),
        S(text_stream),
    )
    example(
        ITEM_DONE_ONCE.id,
        S(lambda: insert(text_stream(), 9, text_stream()[8]), "`output_item.done` twice"),
        S(text_stream),
    )
