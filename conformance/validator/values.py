"""Single-valued streams (SPEC §2.8): function-call arguments, custom tool input, MCP arguments,
code, patch diffs, shell commands and shell output; deltas joined equal the `.done` value, which
the finished item holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..sections.s2_6_inside_item_values import (
    judge_added_again,
    judge_after_done,
    judge_done_again,
    judge_not_added,
    note_value,
)
from ..sections.s2_8_values_agree import judge_deltas_equal_done, note_value_done
from .items import item_for
from .model import Item
from .state import StreamState
from .tables import ADDED_FIRST, CHANNELS, VALUE_STREAMS

__all__ = ["on_value_added", "on_value_delta", "on_value_done"]


def _value_slot(
    state: StreamState, event: Mapping[str, Any], index: int
) -> tuple[Item, str, tuple[list[str], list[str | None]]] | None:
    etype: str = event["type"]
    family = etype.rsplit(".", 1)[0]
    if state.coverage is not None:
        note_value(state.coverage, family)  # §2.6 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return None
    sub = event.get("command_index", 0)
    key = (family, sub if type(sub) is int else 0)
    if family in ADDED_FIRST and key not in item.opened and item.known:
        item.opened.add(key)  # report the missing `.added` once
        judge_not_added(state, family, etype, index)  # §2.6
    slot = item.values.get(key)
    if slot is None:
        slot = ([], [None])
        item.values[key] = slot
    return item, family, slot


def on_value_added(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    etype: str = event["type"]
    family = etype.rsplit(".", 1)[0]
    if state.coverage is not None:
        note_value(state.coverage, family)  # §2.6 (conformance.sections)
    item = item_for(state, event, index)
    if item is None:
        return
    sub = event.get("command_index", 0)
    key = (family, sub if type(sub) is int else 0)
    if key in item.opened or key in item.values:
        judge_added_again(state, key in item.opened, etype, index)  # §2.6
    item.opened.add(key)
    item.values.setdefault(key, ([], [None]))


def on_value_delta(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    found = _value_slot(state, event, index)
    if found is None:
        return
    _item, family, (deltas, done) = found
    if done[0] is not None:
        judge_after_done(state, family, event["type"], index)  # §2.6 (conformance.sections)
        return
    delta = event.get("delta")
    if isinstance(delta, str):
        deltas.append(delta)
    elif isinstance(delta, dict) and family in CHANNELS:
        for channel in CHANNELS[family]:
            piece = delta.get(channel)
            if isinstance(piece, str):
                deltas.append(f"{channel}\x00{piece}")


def on_value_done(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    if state.coverage is not None:
        note_value_done(state.coverage)  # §2.8 (conformance.sections)
    found = _value_slot(state, event, index)
    if found is None:
        return
    item, family, (deltas, done) = found
    if done[0] is not None:
        judge_done_again(state, family, index)  # §2.6 (conformance.sections)
        return
    if family in CHANNELS:
        _channels_done(state, event, index, family, item, deltas, done)
        return
    value = event.get(VALUE_STREAMS[family][0])
    if not isinstance(value, str):
        done[0] = ""
        return
    done[0] = value
    if not item.known or not deltas:
        # §2.8: a value may arrive whole in its `.done`, with no delta at all (OpenAI's Codex
        # backend sends function-call arguments so; clients take a call from its
        # `output_item.done`). Deltas that were sent join to the `.done` value.
        return
    streamed = "".join(deltas)
    deltas.clear()
    judge_deltas_equal_done(state, value, streamed, index, VALUE_STREAMS[family][0])  # §2.8


def _channels_done(
    state: StreamState,
    event: Mapping[str, Any],
    index: int,
    family: str,
    item: Item,
    deltas: list[str],
    done: list[str | None],
) -> None:
    """Shell output (SPEC §2.8 by [SDK]'s shapes): each channel's deltas, joined, equal the
    channel's text across the `.done` event's `output` entries."""
    output = event.get(VALUE_STREAMS[family][0])
    done[0] = ""
    if not isinstance(output, list) or not item.known:
        return
    for channel in CHANNELS[family]:
        want = "".join(
            o[channel] for o in output if isinstance(o, dict) and isinstance(o.get(channel), str)
        )
        tag = channel + "\x00"
        streamed = "".join(d[len(tag) :] for d in deltas if d.startswith(tag))
        judge_deltas_equal_done(state, want, streamed, index, f"output[].{channel}")  # §2.8
    deltas.clear()
