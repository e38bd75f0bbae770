"""Output items (SPEC §2.4–§2.6): `output_item.added` once per contiguous `output_index`, opened
empty, with a fresh id; every inner event names an open item of a type it fits; `output_item.done`
once, matching the added item and holding what was streamed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import catalog as C
from ..catalog.render import short
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

# SPEC §2.6: an item opens `in_progress`; one that opens `incomplete` was cut before it began
# (Azure's content filter: docs/spec.md §7.4) and stays so.
_OPENING_STATUSES = ("in_progress", "incomplete")


def item_for(
    state: StreamState, event: Mapping[str, Any], index: int, *, allow_done: bool = False
) -> Item | None:
    """The open item an inner event names, reporting every way the naming is wrong."""
    etype: str = event["type"]
    coverage = state.coverage
    if coverage is not None:  # §2.4, §2.7 (conformance.sections)
        note_item_named(coverage)
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
            state._report(
                C.DELTA_TYPE_FITS_ITEM,
                index,
                f"an item of type {' or '.join(sorted(types))}",
                item.type,
                message=f"`{etype}` names output_index {oi}",
            )
            return None
    return item


def on_item_added(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    require_started(state, "response.output_item.added", index)
    coverage = state.coverage
    if coverage is not None:  # §2.4, §2.5, §2.7, §2.14 (conformance.sections)
        note_item_opened(coverage)
        note_item_added(coverage)
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
    _check_added_state(state, item, index)


def _check_added_state(state: StreamState, item: Mapping[str, Any], index: int) -> None:
    """SPEC §2.6: an item opens empty, so accumulating clients do not double its content."""
    itype = item.get("type")
    problems: list[tuple[str, Any, Any]] = []
    if itype == "message":
        if item.get("content") not in ([], None):
            problems.append(("item.content", "[]", short(item.get("content"))))
        if item.get("status") not in _OPENING_STATUSES:
            problems.append(("item.status", "in_progress", item.get("status")))
    elif itype == "reasoning":
        if item.get("summary") not in ([], None):
            problems.append(("item.summary", "[]", short(item.get("summary"))))
        if item.get("content") not in ([], None):
            problems.append(("item.content", "[] or absent", short(item.get("content"))))
    elif itype == "function_call":
        if item.get("arguments") != "":
            problems.append(("item.arguments", '""', short(item.get("arguments"))))
        for key in ("call_id", "name"):
            if not item.get(key):
                problems.append((f"item.{key}", "a non-empty string", item.get(key)))
        if item.get("status") not in _OPENING_STATUSES:
            problems.append(("item.status", "in_progress", item.get("status")))
    for path, expected, actual in problems:
        state._report(C.ITEM_ADDED_STATE, index, expected, actual, path=path)


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
    for ci, part in enumerate(item.parts):
        if not part.closed:
            state._report(
                C.PART_CLOSED,
                index,
                f"`content_part.done` for content_index {ci}",
                "`output_item.done` while the part is open",
                path=f"item.content[{ci}]",
            )
    for si, part in enumerate(item.summaries):
        if not part.closed:
            state._report(
                C.SUMMARY_CLOSED_BEFORE_ITEM,
                index,
                f"`reasoning_summary_part.done` for summary_index {si}",
                "`output_item.done` while the summary part is open",
                path=f"item.summary[{si}]",
            )
    for (family, sub), (deltas, done) in item.values.items():
        if done[0] is None:
            state._report(
                C.ARGS_ORDER,
                index,
                f"`{family}.done` before `output_item.done`",
                f"{len(deltas)} delta(s) and no `.done`",
                message=f"index {sub}" if sub else "",
            )
    judge_item_content(state, item, done_item, index, PART_TEXT_FIELD, _VALUE_PATHS)  # §2.8
    if item.opened_incomplete and done_item.get("status") != "incomplete":
        # `incomplete` is terminal ([OR] items are state machines): an item that opened so,
        # cut off before it began, cannot finish otherwise.
        state._report(
            C.ITEM_ADDED_STATE,
            index,
            "incomplete",
            short(done_item.get("status")),
            path="item.status",
            message="the item opened `incomplete`, a terminal status",
        )
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
