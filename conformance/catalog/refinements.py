"""Refinements of published checks: one requirement per ID.

`stream.part.order` and `stream.summary.order` each guarded several rules, reported from six and
seven places; they stay published (a parent's outcome folds its refinements', and an expected
failure naming it covers them: :attr:`conformance.catalog.registry.Check.parent`), and the judge reports
each rule under its own ID. :mod:`conformance.catalog` re-exports these names; the checks are
declared with their rules and examples in their section module
(conformance/sections/s2_6_inside_item_order.py, docs/spec.md §2.6).
"""

from __future__ import annotations

from ..sections.s2_6_inside_item_order import PART_AFTER_PART_DONE as PART_AFTER_PART_DONE
from ..sections.s2_6_inside_item_order import PART_DELTA_AFTER_DONE as PART_DELTA_AFTER_DONE
from ..sections.s2_6_inside_item_order import (
    PART_DONE_BEFORE_PART_DONE as PART_DONE_BEFORE_PART_DONE,
)
from ..sections.s2_6_inside_item_order import PART_DONE_ONCE as PART_DONE_ONCE
from ..sections.s2_6_inside_item_order import PART_OPENS_EMPTY as PART_OPENS_EMPTY
from ..sections.s2_6_inside_item_order import PART_TYPE_STABLE as PART_TYPE_STABLE
from ..sections.s2_6_inside_item_order import SUMMARY_AFTER_PART_DONE as SUMMARY_AFTER_PART_DONE
from ..sections.s2_6_inside_item_order import (
    SUMMARY_CLOSED_BEFORE_ITEM as SUMMARY_CLOSED_BEFORE_ITEM,
)
from ..sections.s2_6_inside_item_order import (
    SUMMARY_CLOSED_BEFORE_NEXT as SUMMARY_CLOSED_BEFORE_NEXT,
)
from ..sections.s2_6_inside_item_order import (
    SUMMARY_DELTA_AFTER_DONE as SUMMARY_DELTA_AFTER_DONE,
)
from ..sections.s2_6_inside_item_order import (
    SUMMARY_DONE_BEFORE_PART_DONE as SUMMARY_DONE_BEFORE_PART_DONE,
)
from ..sections.s2_6_inside_item_order import SUMMARY_DONE_ONCE as SUMMARY_DONE_ONCE
from ..sections.s2_6_inside_item_order import SUMMARY_OPENS_EMPTY as SUMMARY_OPENS_EMPTY

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
