"""Examples of the framing and single-event checks (``sse.*``, ``event.*``): see :mod:`.`."""

from __future__ import annotations

from .build import (
    sse,
    text_stream,
)
from .registry import example
from .stream_samples import OR, R, replace_bytes


def _deep(depth: int) -> bytes:
    """The SSE of a text stream whose terminal event has an extra field ``depth`` lists deep."""
    data = sse(text_stream())
    head, sep, tail = data.rpartition(b'"type":"response.completed",')
    return head + sep + b'"extra":' + b"[" * depth + b"]" * depth + b"," + tail


# --- sse.* ---------------------------------------------------------------------------------------
example(
    "sse.event_name.matches_type",
    R(lambda: replace_bytes(sse(text_stream()), "event: response.in_progress", "event: response.queued"),
      "the `event:` line of the second event names another type"),
    R(lambda: sse(text_stream())),
)  # fmt: skip
example(
    "sse.event_name.present",
    R(lambda: sse(text_stream(), names=False), "no `event:` lines"),
    R(lambda: sse(text_stream())),
)
example(
    "sse.event_name.required",
    R(lambda: sse(text_stream(), names=False, done=True), "no `event:` lines", profiles=OR),
    R(lambda: sse(text_stream(), done=True), profiles=OR),
)
example(
    "sse.id.absent",
    R(lambda: replace_bytes(sse(text_stream(), done=True), "event: response.created", "id: 1\nevent: response.created"),
      "an SSE `id:` field", profiles=OR),
    R(lambda: sse(text_stream(), done=True), profiles=OR),
)  # fmt: skip
example(
    "sse.data.json",
    R(lambda: replace_bytes(sse(text_stream()), "event: response.in_progress",
                       "data: {not json\n\nevent: response.in_progress"), "a payload that is not JSON"),
    R(lambda: sse(text_stream())),
)  # fmt: skip
example(
    "sse.done.required",
    R(lambda: sse(text_stream()), "no `data: [DONE]`", profiles=OR),
    R(lambda: sse(text_stream(), done=True), profiles=OR),
)
example(
    "sse.done.last",
    R(lambda: sse(text_stream(), done=True) + b"data: [DONE]\n\n", "a second `[DONE]`"),
    R(lambda: sse(text_stream(), done=True)),
)
example(
    "sse.limit.event_size",
    R(lambda: sse(text_stream(("x" * 9000,))), "an event over the limit (here 8,000 bytes)",
      max_event_bytes=8000),
    R(lambda: sse(text_stream(("x" * 500,))), max_event_bytes=8000),
    also={"stream.lifecycle.terminal_present"},
)  # fmt: skip
example(
    "sse.limit.event_count",
    R(lambda: sse(text_stream()), "10 events, the limit 9", max_events=9),
    R(lambda: sse(text_stream()), max_events=10),
    also={"stream.lifecycle.terminal_present"},
)
example(
    "sse.limit.depth",
    R(lambda: _deep(64), "`response.completed` holds a list nested 64 levels deep: 65 in all"),
    R(lambda: _deep(63)),
    also={"stream.lifecycle.terminal_present"},
)
