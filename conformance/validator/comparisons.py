"""Comparisons of what was streamed with what the stream says it streamed (SPEC §2.8): the
finished item against its parts and values (the terminal output against the finished items, §2.9:
conformance.sections.s2_9_output_items)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import catalog as C
from ..catalog.render import short
from ..sections.s2_9_output_items import first_difference
from .model import Item, Part
from .state import StreamState
from .tables import PART_TEXT_FIELD, VALUE_STREAMS

__all__ = ["check_item_content", "first_difference", "first_difference_text"]


def check_item_content(
    state: StreamState, item: Item, done_item: Mapping[str, Any], index: int
) -> None:
    """SPEC §2.8: the finished item holds what its events streamed."""
    if item.parts:
        content = done_item.get("content")
        if not isinstance(content, list) or len(content) != len(item.parts):
            state._report(
                C.ITEM_CONTENT_MATCHES,
                index,
                f"{len(item.parts)} content part(s)",
                short(content),
                path="item.content",
            )
        else:
            for ci, (part, have) in enumerate(zip(item.parts, content, strict=True)):
                _compare_part(state, part, have, index, f"item.content[{ci}]")
    if item.summaries:
        summary = done_item.get("summary")
        if not isinstance(summary, list) or len(summary) != len(item.summaries):
            state._report(
                C.ITEM_CONTENT_MATCHES,
                index,
                f"{len(item.summaries)} summary part(s)",
                short(summary),
                path="item.summary",
            )
        else:
            for si, (part, have) in enumerate(zip(item.summaries, summary, strict=True)):
                _compare_part(state, part, have, index, f"item.summary[{si}]")
    for (family, sub), (_deltas, done) in item.values.items():
        where = VALUE_STREAMS[family][2]
        if where is None or done[0] is None:
            continue
        path = tuple(sub if key is None else key for key in where)
        found: Any = done_item
        for key in path:
            if isinstance(key, str) and isinstance(found, dict):
                found = found.get(key)
            elif isinstance(key, int) and isinstance(found, list) and 0 <= key < len(found):
                found = found[key]
            else:
                found = None
        if found != done[0]:
            state._report(
                C.ITEM_CONTENT_MATCHES,
                index,
                short(done[0]),
                short(found),
                path="item." + ".".join(map(str, path)),
                message=f"`{family}.done` streamed another value",
            )


def _compare_part(state: StreamState, part: Part, have: Any, index: int, path: str) -> None:
    if not isinstance(have, dict):
        state._report(C.ITEM_CONTENT_MATCHES, index, f"a {part.type} part", short(have), path=path)
        return
    if have.get("type") != part.type:
        state._report(
            C.ITEM_CONTENT_MATCHES, index, part.type, have.get("type"), path=path + ".type"
        )
        return
    if part.type == "output_text" and have.get("annotations", []) != part.annotations:
        state._report(
            C.ANNOTATIONS_MATCH,
            index,
            f"{len(part.annotations)} streamed annotation(s)",
            short(have.get("annotations")),
            path=f"{path}.annotations",
        )
    value = part.closed_value if part.closed_value is not None else part.done_value
    text_field = PART_TEXT_FIELD.get(part.type, "text")
    if value is not None and have.get(text_field) != value:
        state._report(
            C.ITEM_CONTENT_MATCHES,
            index,
            short(value),
            short(have.get(text_field)),
            path=f"{path}.{text_field}",
        )


def first_difference_text(want: str, got: str) -> str:
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return f"they differ from character {i}: {want[i : i + 20]!r} vs {got[i : i + 20]!r}"
    if len(want) != len(got):
        return f"lengths {len(want)} (done) vs {len(got)} (deltas joined)"
    return ""
