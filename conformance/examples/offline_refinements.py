"""Examples of the refinements of ``stream.part.order`` and ``stream.summary.order`` (one
requirement per ID; :mod:`conformance.catalog.refinements`): see :mod:`.`."""

from __future__ import annotations

import copy

from .build import (
    Event,
    at,
    drop,
    find,
    insert,
    numbered,
    reasoning_stream,
    text_stream,
)
from .registry import example
from .stream_samples import S, late_delta


def _dup(events: list[Event], etype: str) -> list[Event]:
    i = find(events, etype)
    return insert(events, i + 1, events[i])


def _after(events: list[Event], etype: str, anchor: str) -> list[Event]:
    """An empty delta of type ``etype`` right after the first ``anchor`` event."""
    late = dict(events[find(events, etype)], delta="")
    return insert(events, find(events, anchor) + 1, late)


example(
    "stream.part.order.opens_empty",
    S(lambda: at(text_stream(), "response.content_part.added", "part.text", "Hel"),
      "the part opens holding text"),
    S(text_stream),
)  # fmt: skip
example(
    "stream.part.order.after_part_done",
    S(lambda: _after(text_stream(), "response.output_text.delta", "response.content_part.done"),
      "an (empty) delta after the part's `content_part.done`"),
    S(text_stream),
)  # fmt: skip
example(
    "stream.part.order.delta_after_done",
    S(lambda: late_delta(text_stream(), "response.output_text"),
      "an (empty) delta after the part's `output_text.done`"),
    S(text_stream),
)  # fmt: skip
example(
    "stream.part.order.done_once",
    S(lambda: _dup(text_stream(), "response.output_text.done"), "`output_text.done` twice"),
    S(text_stream),
)
example(
    "stream.part.order.done_before_part_done",
    S(lambda: drop(text_stream(), "response.output_text.done"), "no `output_text.done`"),
    S(text_stream),
)
example(
    "stream.part.order.type_stable",
    S(lambda: at(text_stream(), "response.content_part.done", "part", {"type": "refusal", "refusal": "Hello"}),
      "`content_part.done` says `refusal` for an `output_text` part"),
    S(text_stream),
    also={"stream.text.done_equals_part"},
)  # fmt: skip
example(
    "stream.summary.order.opens_empty",
    S(lambda: at(reasoning_stream(), "response.reasoning_summary_part.added", "part.text", "Th"),
      "the summary part opens holding text"),
    S(reasoning_stream),
)  # fmt: skip
example(
    "stream.summary.order.after_part_done",
    S(lambda: _after(reasoning_stream(), "response.reasoning_summary_text.delta",
                     "response.reasoning_summary_part.done"),
      "an (empty) summary delta after the part's `reasoning_summary_part.done`"),
    S(reasoning_stream),
)  # fmt: skip
example(
    "stream.summary.order.delta_after_done",
    S(lambda: late_delta(reasoning_stream(), "response.reasoning_summary_text"),
      "an (empty) summary delta after its `.done`"),
    S(reasoning_stream),
)  # fmt: skip
example(
    "stream.summary.order.done_once",
    S(lambda: _dup(reasoning_stream(), "response.reasoning_summary_text.done"),
      "`reasoning_summary_text.done` twice"),
    S(reasoning_stream),
)  # fmt: skip
example(
    "stream.summary.order.done_before_part_done",
    S(lambda: drop(reasoning_stream(), "response.reasoning_summary_text.done"),
      "no `reasoning_summary_text.done`"),
    S(reasoning_stream),
)  # fmt: skip


def _two_summaries(overlap: bool) -> list[Event]:
    """A reasoning item with two summary parts; with ``overlap`` the second opens before the
    first is closed."""
    events = reasoning_stream()
    first = [e for e in events if e["type"].startswith("response.reasoning_summary_")]
    second = [dict(e, summary_index=1) for e in copy.deepcopy(first)]
    end = find(events, "response.reasoning_summary_part.done") + 1
    events[end:end] = second
    if overlap:
        done = find(events, "response.reasoning_summary_part.done")
        events.insert(
            find(events, "response.reasoning_summary_part.added", 1) + 1, events.pop(done)
        )
    for item in (
        events[find(events, "response.output_item.done")]["item"],
        events[-1]["response"]["output"][0],
    ):
        item["summary"] = item["summary"] * 2
    return numbered(events)


example(
    "stream.summary.order.closed_before_next",
    S(lambda: _two_summaries(True), "summary part 1 is added while part 0 is open"),
    S(lambda: _two_summaries(False)),
    also={"stream.summary.index"},
)
example(
    "stream.summary.order.closed_before_item",
    S(
        lambda: drop(reasoning_stream(), "response.reasoning_summary_part.done"),
        "the reasoning item is closed with its summary part open",
    ),
    S(reasoning_stream),
)
