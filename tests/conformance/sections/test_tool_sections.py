"""The per-tool stream rules' checks in their section modules (§1.5 annotations, §1.7 hosted
tools): each rule marks its check applied where it evaluates it, and on real streams that is
where the table (conformance/validator/exercised.py) said so, but for a stream cut before the
rule had anything to judge."""

from __future__ import annotations

from typing import Any

from mutations import load_recordings
from stream_edits import exercised

_OFFSETS = "stream.annotation.offsets"
_FAILED = "stream.hosted.failed_status"
_HOSTED = {
    "stream.hosted.progress_order",
    "stream.hosted.failed_status",
    "stream.image.partial_image_index",
}
_PROGRESS = tuple(
    f"response.{kind}."
    for kind in (
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    )
)


def _annotated(parts: Any) -> bool:
    return isinstance(parts, list) and any(
        isinstance(p, dict) and p.get("type") == "output_text" and p.get("annotations")
        for p in parts
    )


def _finished_annotations(events: list[dict[str, Any]]) -> bool:
    """A finished ``output_text`` part with annotations: a ``content_part.done``'s, or a
    message's in its ``output_item.done``."""
    for e in events:
        if e.get("type") == "response.content_part.done" and _annotated([e.get("part")]):
            return True
        item = e.get("item")
        if (
            e.get("type") == "response.output_item.done"
            and isinstance(item, dict)
            and item.get("type") == "message"
            and _annotated(item.get("content"))
        ):
            return True
    return False


def _annotations_table(events: list[dict[str, Any]]) -> bool:
    """What the table said: an `annotation.added`, or annotations in a finished part or item."""
    for e in events:
        if e.get("type") == "response.output_text.annotation.added":
            return True
        if e.get("type") == "response.content_part.done" and _has(e.get("part"), "annotations"):
            return True
        item = e.get("item")
        if e.get("type") == "response.output_item.done" and isinstance(item, dict):
            content = item.get("content")
            if isinstance(content, list) and any(_has(p, "annotations") for p in content):
                return True
    return False


def _has(value: Any, key: str) -> bool:
    return isinstance(value, dict) and bool(value.get(key))


def test_real_streams_apply_the_offsets_rule_where_a_part_finished_with_annotations() -> None:
    cited = 0
    for recording in load_recordings():
        events = recording.events
        got = exercised(events)
        # whole, as the table said
        assert (_OFFSETS in got) == _annotations_table(events), recording.name
        cited += _OFFSETS in got
        # cut anywhere: applied once a finished part with annotations was judged
        for n in range(1, len(events), max(1, len(events) // 12)):
            cut = events[:n]
            assert (_OFFSETS in exercised(cut)) == _finished_annotations(cut), (recording.name, n)
    assert cited >= 2  # the web search and file search recordings


def test_a_stream_cut_before_its_cited_text_finished_did_not_apply_the_offsets_rule() -> None:
    # The table marked it for the `annotation.added` alone; the rule judges finished text only.
    (recording,) = (r for r in load_recordings() if r.name == "openai-file-search-tool.1")
    added = next(
        i
        for i, e in enumerate(recording.events)
        if e["type"] == "response.output_text.annotation.added"
    )
    cut = recording.events[: added + 1]
    assert _annotations_table(cut) and _OFFSETS not in exercised(cut)


def _hosted_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §1.7 checks: the progress order for any hosted progress event,
    the failed status once one ended a call and any item was done, the partial image index for a
    `partial_image` event."""
    types = {e["type"] for e in events if isinstance(e.get("type"), str)}
    out: set[str] = set()
    if any(t.startswith(_PROGRESS) for t in types):
        out.add("stream.hosted.progress_order")
        ended = any(
            t.startswith(_PROGRESS) and t.endswith((".completed", ".failed")) for t in types
        )
        if ended and "response.output_item.done" in types:
            out.add(_FAILED)
    if "response.image_generation_call.partial_image" in types:
        out.add("stream.image.partial_image_index")
    return out


def _ended_call_done(events: list[dict[str, Any]]) -> bool:
    """A hosted call's `output_item.done` after the event that ended its progress."""
    ended: set[Any] = set()
    for e in events:
        etype = e.get("type", "")
        if etype.startswith(_PROGRESS) and etype.endswith((".completed", ".failed")):
            ended.add(e.get("item_id"))
        elif etype == "response.output_item.done" and e["item"].get("id") in ended:
            return True
    return False


def test_real_streams_apply_the_hosted_rules_where_they_evaluate() -> None:
    # Marked where each rule evaluates (a progress event of an open call, the done item of an
    # ended call, a running call's partial image): on every whole recording where the table
    # said; cut, the failed status only once the ended call's item is done (the table also
    # said so for another item's `output_item.done`, openai-file-search-tool.1's reasoning).
    seen: set[str] = set()
    for recording in load_recordings():
        events = recording.events
        assert exercised(events) & _HOSTED == _hosted_table(events), recording.name
        for n in range(1, len(events), max(1, len(events) // 12)):
            cut = events[:n]
            got = exercised(cut) & _HOSTED
            assert got - {_FAILED} == _hosted_table(cut) - {_FAILED}, (recording.name, n)
            assert (_FAILED in got) == _ended_call_done(cut), (recording.name, n)
            seen |= got
    assert seen == _HOSTED


def test_a_stream_cut_before_the_ended_calls_item_did_not_apply_the_failed_status_rule() -> None:
    (recording,) = (r for r in load_recordings() if r.name == "openai-file-search-tool.1")
    completed = next(
        i
        for i, e in enumerate(recording.events)
        if e["type"] == "response.file_search_call.completed"
    )
    cut = recording.events[: completed + 1]
    assert _FAILED in _hosted_table(cut) and _FAILED not in exercised(cut)
    assert _FAILED in exercised(recording.events[: completed + 2])
