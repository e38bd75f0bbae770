"""The per-tool stream rules' checks in their section modules (§1.5 annotations, §1.7 hosted
tools): each rule marks its check applied where it evaluates it, and on real streams that is
where the table (conformance/validator/exercised.py) said so, but for a stream cut before the
rule had anything to judge."""

from __future__ import annotations

from typing import Any

from mutations import load_recordings

from conformance.validator import StreamValidator

_OFFSETS = "stream.annotation.offsets"


def _exercised(events: list[dict[str, Any]]) -> set[str]:
    validator = StreamValidator(coverage=True)
    for event in events:
        validator.feed(event)
    validator.close()
    return validator.exercised


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
        got = _exercised(events)
        # whole, as the table said
        assert (_OFFSETS in got) == _annotations_table(events), recording.name
        cited += _OFFSETS in got
        # cut anywhere: applied once a finished part with annotations was judged
        for n in range(1, len(events), max(1, len(events) // 12)):
            cut = events[:n]
            assert (_OFFSETS in _exercised(cut)) == _finished_annotations(cut), (recording.name, n)
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
    assert _annotations_table(cut) and _OFFSETS not in _exercised(cut)
