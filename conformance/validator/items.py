"""Output items (SPEC §2.4–§2.6): `output_item.added` once per contiguous `output_index`, opened
empty, with a fresh id; every inner event names an open item of a type it fits; `output_item.done`
once, matching the added item and holding what was streamed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..sections.s2_2_lifecycle import require_started
from ..sections.s2_4_items_opened import (
    judge_added_twice,
    judge_after_done,
    judge_done_twice,
    judge_unopened,
    note_item_done,
    note_item_named,
)
from ..sections.s2_4_items_opened import note_item_added as note_item_opened
from ..sections.s2_5_output_index import judge_added_index, judge_interleave, note_item_added
from ..sections.s2_6_inside_item_order import judge_summary_closed_before_item
from ..sections.s2_6_inside_item_parts import (
    judge_added_state,
    judge_done_state,
    judge_parts_closed,
)
from ..sections.s2_6_inside_item_parts import note_item_added as note_state_added
from ..sections.s2_6_inside_item_values import judge_type_fits, judge_values_done
from ..sections.s2_6_inside_item_values import note_item_named as note_item_fits
from ..sections.s2_7_identity import (
    judge_call_identity,
    judge_done_matches_added,
    judge_id_unique,
    judge_item_id,
)
from ..sections.s2_7_identity import note_item_added as note_identity_added
from ..sections.s2_7_identity import note_item_done as note_identity_done
from ..sections.s2_7_identity import note_item_named as note_item_id
from ..sections.s2_8_values_agree import judge_item_content
from ..sections.s2_8_values_agree import note_item_done as note_content_done
from ..sections.s2_10_incomplete_last import judge_added_after_incomplete
from ..sections.s2_10_incomplete_last import note_item_done as note_incomplete_done
from ..sections.s2_14_id_prefix import judge_id_prefix
from ..sections.s2_14_id_prefix import note_item_added as note_prefix_added
from .model import MISSING, Item
from .state import StreamState
from .tables import LIFECYCLE_INTERIM, PART_TEXT_FIELD, VALUE_STREAMS, fits_for

__all__ = ["hashable", "item_for", "on_item_added", "on_item_done", "on_other"]


# Where each single value sits in the finished item (SPEC §2.8; `None`: not held there).
_VALUE_PATHS = {family: spec[2] for family, spec in VALUE_STREAMS.items()}


def item_for(
    state: StreamState, event: Mapping[str, Any], index: int, *, allow_done: bool = False
) -> Item | None:
    """The open item an inner event names, reporting every way the naming is wrong."""
    etype: str = event["type"]
    coverage = state.coverage
    if coverage is not None:  # §2.4, §2.6, §2.7 (conformance.sections)
        note_item_named(coverage)
        note_item_fits(coverage, etype)
        note_item_id(coverage, etype)
    oi = event.get("output_index")
    if type(oi) is not int:
        return None  # the schema check reports a missing or mistyped output_index
    require_started(state, etype, index)
    item = state._items.get(oi)
    if item is None:
        if (
            state.resume_after is not None
            and oi >= 0
            and (state._next_output_index is None or oi < state._next_output_index)
        ):
            # Opened before the resume point (SPEC §2.12): adopt it without its history.
            item = Item(oi, event.get("item_id"), None, known=False)
            state._items[oi] = item
        else:
            judge_unopened(state, oi, etype, index)  # §2.4 (conformance.sections)
            return None
    if item.done and not allow_done:
        judge_after_done(state, oi, etype, index)  # §2.4
        return None
    item_id = event.get("item_id", MISSING)
    if item_id is not MISSING and item.known and item_id != item.id:
        judge_item_id(state, item, oi, item_id, index)  # §2.7
    if oi < state._last_added:  # §2.5: an item added before the newest (conformance.sections)
        judge_interleave(state, item, oi, etype, index)
    if item.known and item.type is not None:
        types = fits_for(etype)
        if types is not None and (not isinstance(item.type, str) or item.type not in types):
            judge_type_fits(state, types, item.type, etype, oi, index)  # §2.6
            return None
    return item


def on_item_added(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    require_started(state, "response.output_item.added", index)
    coverage = state.coverage
    if coverage is not None:  # §2.4, §2.5, §2.6, §2.7, §2.14 (conformance.sections)
        note_item_opened(coverage)
        note_item_added(coverage)
        note_state_added(coverage)
        note_identity_added(coverage)
        note_prefix_added(coverage)
    oi = event.get("output_index")
    item = event.get("item")
    if type(oi) is not int or not isinstance(item, dict):
        return
    iid, itype = item.get("id"), item.get("type")
    if oi in state._items:  # §2.4: added twice (conformance.sections)
        judge_added_twice(state, oi, index)
        return
    if not judge_added_index(state, oi, index):  # (no item has a negative index)
        return
    if iid is not None:
        judge_id_unique(state, iid if type(iid) is str else hashable(iid), iid, index)  # §2.7
        judge_id_prefix(state._report, itype, iid, index)  # §2.14
    if state._incomplete_item is not None:  # §2.10: after an incomplete item (conformance.sections)
        judge_added_after_incomplete(state, itype, index)
    state._last_added = max(state._last_added, oi)
    state._items[oi] = Item(
        oi,
        iid,
        itype,
        opened_incomplete=item.get("status") == "incomplete",
        identity=(item.get("call_id"), item.get("name")),
    )
    judge_added_state(state, item, index)  # §2.6 (conformance.sections)


def on_item_done(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    coverage = state.coverage
    if coverage is not None:  # §2.4, §2.7, §2.8, §2.10 (conformance.sections)
        note_item_done(coverage)
        note_identity_done(coverage)
        note_content_done(coverage, event)
        note_incomplete_done(coverage, event)
    oi = event.get("output_index")
    done_item = event.get("item")
    if type(oi) is not int:
        return
    existing = state._items.get(oi)
    if existing is not None and existing.done:
        judge_done_twice(state, oi, index)  # §2.4
        return
    item = item_for(state, event, index)
    if item is None or not isinstance(done_item, dict):
        return
    item.done = True
    item.done_item = done_item
    if not item.known:
        item.id, item.type = done_item.get("id"), done_item.get("type")
        return
    judge_done_matches_added(state, item, done_item, index)  # §2.7
    if item.identity[0] or item.identity[1]:  # a call: messages and reasoning have none
        judge_call_identity(state, coverage, item, done_item, index)  # §2.7, §7.9
    judge_parts_closed(state, item, index)  # §2.6
    for si, part in enumerate(item.summaries):
        if not part.closed:
            judge_summary_closed_before_item(state._report, si, index)  # §2.6
    judge_values_done(state, item, index)  # §2.6
    judge_item_content(state, item, done_item, index, PART_TEXT_FIELD, _VALUE_PATHS)  # §2.8
    if item.opened_incomplete:  # §2.6: `incomplete` is terminal
        judge_done_state(state, done_item, index)
    if done_item.get("status") == "incomplete":
        state._incomplete_item = oi


def on_other(state: StreamState, event: Mapping[str, Any], etype: str, index: int) -> None:
    """Hosted-tool progress, annotations and unknown events: they must name an open item."""
    if "output_index" in event:
        item_for(state, event, index)
    elif etype.startswith("response.") and etype not in LIFECYCLE_INTERIM:
        require_started(state, etype, index)


def hashable(value: Any) -> Any:
    """A value usable as a set member: itself, or its repr when it is a list or an object (a
    malformed id must be judged, not crash the judge)."""
    return repr(value) if isinstance(value, (dict, list)) else value
