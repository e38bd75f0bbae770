"""Refinements of published checks: one requirement per ID.

`stream.part.order` and `stream.summary.order` each guarded several rules, reported from six and
seven places; they stay published (a parent's outcome folds its refinements', and an expected
failure naming it covers them: :attr:`conformance.catalog.registry.Check.parent`), and the judge reports
each rule under its own ID. :mod:`conformance.catalog` re-exports these names.
"""

from __future__ import annotations

from . import stream  # noqa: F401  (the checks refined here are declared first)
from .registry import Level, register

MUST = Level.MUST
PART_ORDER = "stream.part.order"
SUMMARY_ORDER = "stream.summary.order"

__all__ = [
    "PART_AFTER_PART_DONE",
    "PART_DELTA_AFTER_DONE",
    "PART_DONE_BEFORE_PART_DONE",
    "PART_DONE_ONCE",
    "PART_OPENS_EMPTY",
    "PART_TYPE_STABLE",
    "SUMMARY_AFTER_PART_DONE",
    "SUMMARY_CLOSED_BEFORE_ITEM",
    "SUMMARY_CLOSED_BEFORE_NEXT",
    "SUMMARY_DELTA_AFTER_DONE",
    "SUMMARY_DONE_BEFORE_PART_DONE",
    "SUMMARY_DONE_ONCE",
    "SUMMARY_OPENS_EMPTY",
]

PART_OPENS_EMPTY = register(
    "stream.part.order.opens_empty",
    MUST,
    "§2.6",
    "a content part opens empty: the part in `content_part.added` carries no text",
    parent=PART_ORDER,
)
PART_AFTER_PART_DONE = register(
    "stream.part.order.after_part_done",
    MUST,
    "§2.6",
    "no event names a content part after its `content_part.done`",
    parent=PART_ORDER,
)
PART_DELTA_AFTER_DONE = register(
    "stream.part.order.delta_after_done",
    MUST,
    "§2.6",
    "no delta follows the part's `<kind>.done` (`output_text.done`, `refusal.done`, …)",
    parent=PART_ORDER,
)
PART_DONE_ONCE = register(
    "stream.part.order.done_once",
    MUST,
    "§2.6",
    "a content part's `<kind>.done` comes once",
    parent=PART_ORDER,
)
PART_DONE_BEFORE_PART_DONE = register(
    "stream.part.order.done_before_part_done",
    MUST,
    "§2.6",
    "a text, refusal or reasoning-text part's `<kind>.done` comes before its `content_part.done`",
    parent=PART_ORDER,
)
PART_TYPE_STABLE = register(
    "stream.part.order.type_stable",
    MUST,
    "§2.6",
    "`content_part.done` carries the part type its `content_part.added` opened",
    parent=PART_ORDER,
)
SUMMARY_OPENS_EMPTY = register(
    "stream.summary.order.opens_empty",
    MUST,
    "§2.6",
    "a summary part opens empty: the part in `reasoning_summary_part.added` carries no text",
    parent=SUMMARY_ORDER,
)
SUMMARY_AFTER_PART_DONE = register(
    "stream.summary.order.after_part_done",
    MUST,
    "§2.6",
    "no event names a summary part after its `reasoning_summary_part.done`",
    parent=SUMMARY_ORDER,
)
SUMMARY_DELTA_AFTER_DONE = register(
    "stream.summary.order.delta_after_done",
    MUST,
    "§2.6",
    "no summary text delta follows the part's `reasoning_summary_text.done`",
    parent=SUMMARY_ORDER,
)
SUMMARY_DONE_ONCE = register(
    "stream.summary.order.done_once",
    MUST,
    "§2.6",
    "a summary part's `reasoning_summary_text.done` comes once",
    parent=SUMMARY_ORDER,
)
SUMMARY_DONE_BEFORE_PART_DONE = register(
    "stream.summary.order.done_before_part_done",
    MUST,
    "§2.6",
    "`reasoning_summary_text.done` comes before its `reasoning_summary_part.done`",
    parent=SUMMARY_ORDER,
)
SUMMARY_CLOSED_BEFORE_NEXT = register(
    "stream.summary.order.closed_before_next",
    MUST,
    "§2.6",
    "a summary part is closed by `reasoning_summary_part.done` before the next one is added",
    parent=SUMMARY_ORDER,
)
SUMMARY_CLOSED_BEFORE_ITEM = register(
    "stream.summary.order.closed_before_item",
    MUST,
    "§2.6",
    "every summary part is closed before its reasoning item's `output_item.done`",
    parent=SUMMARY_ORDER,
)
