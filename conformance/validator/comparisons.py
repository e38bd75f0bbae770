"""Comparisons of what was streamed with what the stream says it streamed (SPEC §2.8, §2.9): the
finished item against its parts and values, the terminal output against the finished items."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import catalog as C
from ..bodies.objects import deep_equal_except_opaque
from ..catalog.render import short
from ..sections.s2_9_opaque import judge_opaque_pair
from .model import MISSING, Item, Part
from .state import StreamState
from .tables import PART_TEXT_FIELD, VALUE_STREAMS

__all__ = [
    "check_item_content",
    "check_output",
    "closed_by_terminal",
    "first_difference",
    "first_difference_text",
]

# The item type whose `output_item.done` the terminal output may stand in for (docs/spec.md §2.9,
# issue #32): with several MCP servers, OpenAI sends `output_item.done` only for the last
# `mcp_list_tools` (held-back real traffic); each listing is in the terminal output, at its
# `output_index`. No client builds anything from a listing's done event (Codex's history, the
# Vercel provider's tool calls come from other items), and the openai SDK's accumulator
# accepts an unfinished item that the terminal output holds (`_responses.py`, 3.63).
_LISTING = "mcp_list_tools"


def closed_by_terminal(item: Item, output: Any) -> bool:
    """Whether an item that never got its `output_item.done` is closed by the terminal output:
    an ``mcp_list_tools`` item (whatever type a stream gave it, compared by equality) whose id and type the terminal output holds
    at the item's `output_index` (paired by index, never by type alone)."""
    if item.done or item.type != _LISTING or not isinstance(output, list):
        return False
    if not 0 <= item.output_index < len(output):
        return False
    final = output[item.output_index]
    return isinstance(final, Mapping) and (final.get("id"), final.get("type")) == (
        item.id,
        item.type,
    )


def check_output(
    state: StreamState, response: Mapping[str, Any], index: int, *, failed: bool
) -> None:
    """SPEC §2.9: the terminal output equals the done items, in order (KB08)."""
    output = response.get("output")
    if not isinstance(output, list):
        return
    done = [it for _, it in sorted(state._items.items()) if it.done]
    if state.resume_after is not None:
        # A resumed stream (SPEC §2.12) lacks what came before its resume point: items
        # finished by then are not in it at all. Only items seen finished can be compared,
        # by their index (failed or not: positions would pair them with the missing ones).
        for item in done:
            if item.output_index < len(output):
                judge_opaque_pair(
                    state, item.done_item, output[item.output_index], index,
                    f"response.output[{item.output_index}]",
                )  # fmt: skip
            if item.output_index >= len(output) or not deep_equal_except_opaque(
                output[item.output_index], item.done_item
            ):
                state._report(
                    C.OUTPUT_EQUALS_ITEMS,
                    index,
                    short(item.done_item),
                    short(output[item.output_index])
                    if item.output_index < len(output)
                    else "missing",
                    path=f"response.output[{item.output_index}]",
                )
        return
    if failed:
        # Open items may stay unfinished on failure; the finished ones must be there as sent.
        for pos, item in enumerate(done):
            if pos < len(output):
                judge_opaque_pair(
                    state, item.done_item, output[pos], index, f"response.output[{pos}]"
                )
            if pos < len(output) and not deep_equal_except_opaque(output[pos], item.done_item):
                state._report(
                    C.OUTPUT_EQUALS_ITEMS,
                    index,
                    short(item.done_item),
                    short(output[pos]),
                    path=f"response.output[{pos}]",
                )
        return
    # An item the terminal output closes (closed_by_terminal) counts as finished, as that item.
    done = [
        it for _, it in sorted(state._items.items()) if it.done or closed_by_terminal(it, output)
    ]
    if len(output) != len(done):
        state._report(
            C.OUTPUT_EQUALS_ITEMS,
            index,
            f"{len(done)} item(s), as streamed",
            f"{len(output)} item(s)",
            path="response.output",
        )
    for pos, (have, item) in enumerate(zip(output, done, strict=False)):
        if item.done_item is None:  # closed by the terminal output: its id and type are judged
            if isinstance(have, Mapping) and (have.get("id"), have.get("type")) == (
                item.id,
                item.type,
            ):
                continue
            state._report(
                C.OUTPUT_EQUALS_ITEMS,
                index,
                f"the {item.type} {item.id!r} of output_index {item.output_index}",
                short(have),
                path=f"response.output[{pos}]",
            )
            continue
        judge_opaque_pair(state, item.done_item, have, index, f"response.output[{pos}]")
        if not deep_equal_except_opaque(have, item.done_item):
            state._report(
                C.OUTPUT_EQUALS_ITEMS,
                index,
                short(item.done_item),
                short(have),
                path=f"response.output[{pos}]",
                message=first_difference(item.done_item, have),
            )


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


def first_difference(want: Any, got: Any, path: str = "") -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        for key in want.keys() | got.keys():
            if key in ("encrypted_content", "fingerprint"):
                continue
            if want.get(key, MISSING) != got.get(key, MISSING):
                return first_difference(want.get(key), got.get(key), f"{path}.{key}")
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if not deep_equal_except_opaque(a, b):
                return first_difference(a, b, f"{path}[{i}]")
    return f"first difference at {path.lstrip('.') or 'the item'}"
