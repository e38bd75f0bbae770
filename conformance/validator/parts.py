"""Content parts (SPEC §2.7) and reasoning summary parts (SPEC §2.10): added before use, numbered
in order, one open at a time, of a type that fits the item; their deltas joined equal their
`.done` text, and that equals the closed part (SPEC §2.8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import catalog as C
from ..sections.s2_6_inside_item_order import (
    judge_delta_after_done,
    judge_done_before_part_done,
    judge_done_once,
    judge_opens_empty,
    judge_summary_closed_before_next,
    judge_summary_delta_after_done,
    judge_summary_done_before_part_done,
    judge_summary_done_once,
    judge_summary_opens_empty,
    judge_type_stable,
)
from ..sections.s2_6_inside_item_parts import (
    judge_content_index,
    judge_kind,
    judge_part_open,
    judge_summary_index,
    note_part_text,
    note_summary,
)
from ..sections.s2_6_inside_item_parts import note_part_added as note_part_opened
from ..sections.s2_8_values_agree import (
    judge_annotation_index,
    judge_deltas_equal_done,
    judge_done_equals_part,
    judge_logprobs_equal_done,
    judge_part_annotations,
    note_annotation_added,
    note_part_done,
    note_summary_part_done,
    note_text_done,
    note_value_done,
)
from ..sections.s2_11_part_fits import judge_part_added, note_part_added
from ..sections.s7_8_logprobs import logprob_findings
from .items import item_for
from .model import CONTENT, SUMMARY, Frame, Item, Part
from .slots import MAX_INDEX_GAP
from .state import StreamState
from .tables import PART_TEXT, PART_TEXT_FIELD

__all__ = [
    "on_annotation_added",
    "on_part_added",
    "on_part_delta",
    "on_part_done",
    "on_part_text_done",
    "on_summary_added",
    "on_summary_delta",
    "on_summary_done",
    "on_summary_text_done",
]


def on_part_added(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:  # §2.6, §2.11 (conformance.sections)
        note_part_opened(state.coverage)
        note_part_added(state.coverage)
    item = item_for(state, event, index)
    part = event.get("part")
    ci = event.get("content_index")
    if item is None or type(ci) is not int or not isinstance(part, dict):
        return
    ptype = part.get("type")
    if ci < 0:
        state._report(
            C.PART_INDEX_CONTIGUOUS, index, "a content_index ≥ 0", ci, path="content_index"
        )
        return
    if item.known:
        judge_content_index(state, item, ci, index)  # §2.6 (conformance.sections)
        judge_part_open(state, item, index)  # §2.6
        judge_part_added(state, item.type, ptype, index)  # §2.11
        text_field = PART_TEXT_FIELD.get(ptype) if isinstance(ptype, str) else None
        if text_field is not None and part.get(text_field, "") != "":
            judge_opens_empty(state._report, text_field, part.get(text_field), index)  # §2.6
    # Past the guard the part is not tracked (reported above when the item is known).
    item.parts.put(ci, Part(ptype if isinstance(ptype, str) else "?"), _closed_part)


def open_part(
    state: StreamState,
    item: Item,
    frame: Frame,
    event: Mapping[str, Any],
    index: int,
    kind: str | None,
) -> Part | None:
    """The open part (content or summary, by ``frame``) that an event names, or None after
    reporting why it names none. ``kind``: the part type the event writes to, if it does."""
    i = event.get(frame.key)
    if type(i) is not int:
        return None
    etype: str = event["type"]
    parts = item.parts if frame is CONTENT else item.summaries
    if i < 0:
        state._report(frame.index_check, index, f"a {frame.key} ≥ 0", i, path=frame.key)
        return None
    if i >= len(parts):
        if not item.known:
            # Opened before the resume point (SPEC §2.12): its start was not seen.
            if not parts.fits(i):
                state._report(
                    frame.index_check,
                    index,
                    f"a {frame.key} at most {MAX_INDEX_GAP} past the parts seen",
                    i,
                    path=frame.key,
                )
                return None
            fill = frame.fill
            parts.put(
                i,
                Part(fill if kind is None else kind, partial=True),
                lambda: Part(fill, partial=True),
            )
            return parts[i]
        if parts and not parts[-1].closed:
            # A part is open and the event names another, never added: its index is wrong
            # (KB09: a content_index that grows with every delta).
            state._report(
                frame.index_check,
                index,
                len(parts) - 1,
                i,
                path=frame.key,
                message=f"the event names a {frame.noun} other than the open one",
            )
        else:
            state._report(
                frame.added_check,
                index,
                f"`{frame.added}` for {frame.key} {i} first",
                etype,
                path=frame.key,
            )
        return None
    part = parts[i]
    if i != len(parts) - 1 and item.known:
        state._report(
            frame.index_check,
            index,
            len(parts) - 1,
            i,
            path=frame.key,
            message=f"the event names a {frame.noun} other than the open one",
        )
    if part.closed:
        state._report(
            frame.order_check,
            index,
            f"no `{etype}` after `{frame.done}`",
            etype,
            path=frame.key,
        )
        return None
    if kind is not None and part.type != "?" and part.type != kind:
        judge_kind(state, part, kind, etype, frame.key, index)  # §2.6 (conformance.sections)
        return None
    return part


def _text_part(
    state: StreamState, event: Mapping[str, Any], index: int, suffix: str
) -> tuple[str, str, Part] | None:
    """The event's type, its family (the type less ``suffix``) and the open content part of
    the family's kind it writes to; None when the naming is wrong (reported)."""
    if state.coverage is not None:
        note_part_text(state.coverage)  # §2.6 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return None
    etype: str = event["type"]
    family = etype[: -len(suffix)]
    part = open_part(state, item, CONTENT, event, index, PART_TEXT[family][1])
    return None if part is None else (etype, family, part)


def on_part_delta(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    found = _text_part(state, event, index, ".delta")
    if found is None:
        return
    etype, family, part = found
    if part.done_value is not None:
        judge_delta_after_done(state._report, family, etype, index)  # §2.6
        return
    delta = event.get("delta")
    if isinstance(delta, str):
        part.deltas.append(delta)
    logprobs = event.get("logprobs")
    if logprobs and isinstance(logprobs, list):  # a non-empty list: never on the fast path
        judge_logprobs(state, logprobs, index)
        part.logprobs.extend(logprobs)


def on_part_text_done(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_text_done(state.coverage, event)  # §2.8 (conformance.sections)
    found = _text_part(state, event, index, ".done")
    if found is None:
        return
    etype, family, part = found
    if part.done_value is not None:
        judge_done_once(state._report, etype, index)  # §2.6
        return
    value = event.get(PART_TEXT[family][0])
    if not isinstance(value, str):
        return
    part.done_value = value
    streamed = "".join(part.deltas)
    part.deltas = []
    logprobs = event.get("logprobs")
    if logprobs and isinstance(logprobs, list):
        judge_logprobs(state, logprobs, index)
        if not part.partial:
            judge_logprobs_equal_done(state, etype, logprobs, part.logprobs, index)  # §2.8
    part.logprobs = []
    if not part.partial:
        judge_deltas_equal_done(state, value, streamed, index, PART_TEXT[family][0])  # §2.8


def judge_logprobs(state: StreamState, logprobs: list[Any], index: int) -> None:
    """Each logprob ≤ 0, at most `top_logprobs` alternatives (docs/spec.md §7.8: the rule is
    :mod:`conformance.sections.s7_8_logprobs`'s, which marks what it evaluated)."""
    coverage = state.coverage
    applied = None if coverage is None else coverage.applied
    for check, expected, actual, path, message in logprob_findings(
        logprobs, state._top_logprobs, "logprobs", applied
    ):
        state._report(check, index, expected, actual, path=path, message=message)


def on_annotation_added(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    """An annotation belongs to the open `output_text` part it names (SPEC §2.6) and is the
    next element of that part's `annotations` (SPEC §2.8)."""
    if state.coverage is not None:
        note_part_text(state.coverage)  # §2.6 (conformance.sections)
        note_annotation_added(state.coverage)  # §2.8 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return
    part = open_part(state, item, CONTENT, event, index, "output_text")
    if part is None:
        return
    judge_annotation_index(state, len(part.annotations), event.get("annotation_index"), index)
    part.annotations.append(event.get("annotation"))


def on_part_done(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_part_done(state.coverage, event)  # §2.8 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return
    part = open_part(state, item, CONTENT, event, index, None)
    ci = event.get("content_index")
    got = event.get("part")
    if part is None or not isinstance(got, dict):
        return
    if part.done_value is None and isinstance(part.type, str) and part.type in PART_TEXT_FIELD:
        judge_done_before_part_done(state._report, done_event_for(part.type), index)  # §2.6
    part.closed = True
    if got.get("type") != part.type and part.type != "?":
        judge_type_stable(state._report, part.type, got.get("type"), index)  # §2.6
    judge_part_annotations(state, part, got, index, "part.annotations", f"content_index {ci}")
    text_field = PART_TEXT_FIELD.get(part.type)
    if text_field is not None:
        value = got.get(text_field)
        part.closed_value = value if isinstance(value, str) else None
        if part.done_value is not None:  # §2.8
            path, message = f"part.{text_field}", f"content_index {ci}"
            judge_done_equals_part(state, part.done_value, value, index, path, message)


def on_summary_added(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_summary(state.coverage)  # §2.6 (conformance.sections)
    item = item_for(state, event, index)
    si = event.get("summary_index")
    if item is None or type(si) is not int:
        return
    if si < 0:
        state._report(C.SUMMARY_INDEX, index, "a summary_index ≥ 0", si, path="summary_index")
        return
    if item.known:
        judge_summary_index(state, item, si, index)  # §2.6 (conformance.sections)
        if item.summaries and not item.summaries[-1].closed:
            judge_summary_closed_before_next(state._report, len(item.summaries) - 1, index)
        part = event.get("part")
        if isinstance(part, dict) and part.get("text", "") != "":
            judge_summary_opens_empty(state._report, part.get("text"), index)  # §2.6
    # Past the guard the part is not tracked (reported above when the item is known).
    item.summaries.put(si, Part("summary_text"), _closed_summary)


def on_summary_delta(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_summary(state.coverage)  # §2.6 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return
    part = open_part(state, item, SUMMARY, event, index, None)
    if part is None:
        return
    if part.done_value is not None:
        judge_summary_delta_after_done(state._report, event["type"], index)  # §2.6
        return
    delta = event.get("delta")
    if isinstance(delta, str):
        part.deltas.append(delta)


def on_summary_text_done(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_summary(state.coverage)  # §2.6 (conformance.sections)
        note_value_done(state.coverage)  # §2.8 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return
    part = open_part(state, item, SUMMARY, event, index, None)
    if part is None:
        return
    if part.done_value is not None:
        judge_summary_done_once(state._report, index)  # §2.6
        return
    value = event.get("text")
    if not isinstance(value, str):
        return
    part.done_value = value
    streamed = "".join(part.deltas)
    part.deltas = []
    if not part.partial:
        judge_deltas_equal_done(state, value, streamed, index, "text")  # §2.8


def on_summary_done(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_summary(state.coverage)  # §2.6 (conformance.sections)
        note_summary_part_done(state.coverage)  # §2.8 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return
    part = open_part(state, item, SUMMARY, event, index, None)
    if part is None:
        return
    if part.done_value is None:
        judge_summary_done_before_part_done(state._report, event["type"], index)  # §2.6
    part.closed = True
    got = event.get("part")
    value = got.get("text") if isinstance(got, dict) else None
    part.closed_value = value if isinstance(value, str) else None
    if part.done_value is not None:
        judge_done_equals_part(state, part.done_value, value, index, "part.text")  # §2.8


def done_event_for(part_type: str) -> str:
    return {
        "output_text": "response.output_text.done",
        "refusal": "response.refusal.done",
        "reasoning_text": "response.reasoning_text.done",
    }.get(part_type, "the part's `.done`")


def _closed_part() -> Part:
    """What fills a gap of content indices: a part never added, of no known type."""
    return Part("?", closed=True)


def _closed_summary() -> Part:
    """What fills a gap of summary indices."""
    return Part("summary_text", closed=True)
