"""The refinements of ``stream.part.order`` and ``stream.summary.order``: moved to
:mod:`conformance.catalog.refinements`; this path keeps importing (every name re-exported)."""

from __future__ import annotations

from .catalog.refinements import (
    PART_AFTER_PART_DONE,
    PART_DELTA_AFTER_DONE,
    PART_DONE_BEFORE_PART_DONE,
    PART_DONE_ONCE,
    PART_OPENS_EMPTY,
    PART_ORDER,
    PART_TYPE_STABLE,
    SUMMARY_AFTER_PART_DONE,
    SUMMARY_CLOSED_BEFORE_ITEM,
    SUMMARY_CLOSED_BEFORE_NEXT,
    SUMMARY_DELTA_AFTER_DONE,
    SUMMARY_DONE_BEFORE_PART_DONE,
    SUMMARY_DONE_ONCE,
    SUMMARY_OPENS_EMPTY,
    SUMMARY_ORDER,
)

__all__ = [
    "PART_AFTER_PART_DONE",
    "PART_DELTA_AFTER_DONE",
    "PART_DONE_BEFORE_PART_DONE",
    "PART_DONE_ONCE",
    "PART_OPENS_EMPTY",
    "PART_ORDER",
    "PART_TYPE_STABLE",
    "SUMMARY_AFTER_PART_DONE",
    "SUMMARY_CLOSED_BEFORE_ITEM",
    "SUMMARY_CLOSED_BEFORE_NEXT",
    "SUMMARY_DELTA_AFTER_DONE",
    "SUMMARY_DONE_BEFORE_PART_DONE",
    "SUMMARY_DONE_ONCE",
    "SUMMARY_OPENS_EMPTY",
    "SUMMARY_ORDER",
]
