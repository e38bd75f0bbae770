"""§9.3's openai-node rule, without a server: the events openai-node's ``responses.stream``
accumulator throws on (conformance/sections/s9_openai_node.py). Every real recording and every
stream of the mock's snapshots is placed; each failing shape is one of them edited into the
defect, with the accumulator's own message; each near miss is the same stream edited just short
of it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from stream_edits import Events, added_twice, drop, first, renumbered, set_field, unfinished

from conformance.sections.s9_openai_node import openai_node_stream_problem as problem

TESTS = Path(__file__).parents[2]
RECORDED = TESTS / "data" / "openai-recorded" / "streams"
RECORDED_2 = TESTS / "data" / "openai-recorded-2" / "streams"
SNAPSHOTS = TESTS / "mock_server" / "__snapshots__" / "test_mock_snapshots"


def sse(path: Path) -> Events:
    out = []
    for block in path.read_text().replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data and data[0] != "[DONE]":
            out.append(json.loads("\n".join(data)))
    return out


def jsonl(path: Path) -> Events:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def mock(scenario: str) -> Events:
    return sse(SNAPSHOTS / f"test_stream_snapshot[{scenario}].sse")


def test_every_real_recording_is_placed() -> None:
    streams = [(p, jsonl(p)) for p in sorted(RECORDED.glob("*.jsonl"))]
    streams += [(p, sse(p)) for p in sorted(RECORDED_2.glob("*.sse"))]
    assert len(streams) > 400
    assert [(p.name, problem(events)) for p, events in streams if problem(events)] == []


def test_every_stream_of_the_mock_is_placed() -> None:
    snapshots = sorted(SNAPSHOTS.glob("test_stream_snapshot*.sse"))
    assert len(snapshots) >= 10
    assert [(p.name, problem(sse(p))) for p in snapshots if problem(sse(p))] == []


def _text_to_reasoning(events: Events) -> None:
    reasoning = first(events, "response.output_item.added")["item"]["id"]
    delta = first(events, "response.output_text.delta")
    delta.update(output_index=0, item_id=reasoning)


FAILING = [
    # LiteLLM's shape: the index missing on the deltas
    ("text", drop("response.output_text.delta", "content_index"),
     "response.output_text.delta", "missing content at index undefined"),
    ("reasoning", drop("response.reasoning_summary_text.delta", "summary_index"),
     "response.reasoning_summary_text.delta", "missing content at index undefined"),
    ("reasoning", drop("response.reasoning_summary_part.added", "summary_index"),
     "response.reasoning_summary_part.added", "missing content at index undefined"),
    ("raw-reasoning", drop("response.reasoning_text.delta", "content_index"),
     "response.reasoning_text.delta", "missing content at index undefined"),
    ("raw-reasoning", drop("response.content_part.added", "content_index"),
     "response.content_part.added", "missing content at index undefined"),
    # indexes out of range or out of order
    ("text", set_field("response.output_text.delta", "output_index", 3),
     "response.output_text.delta", "missing output at index 3"),
    ("text", set_field("response.content_part.added", "content_index", 1),
     "response.content_part.added", "missing content at index 1"),
    ("text", set_field("response.output_text.delta", "content_index", 1),
     "response.output_text.delta", "missing content at index 1"),
    ("text", set_field("response.output_text.delta", "output_index", -1),
     "response.output_text.delta", "Invalid response output index."),
    ("text", added_twice, "response.output_item.added", "Duplicate response output index 0."),
    # the addressed item: its id, its type
    ("text", set_field("response.output_text.delta", "item_id", "msg_other"),
     "response.output_text.delta", "expected item_id '{msg}', got 'msg_other'"),
    ("text", drop("response.output_text.delta", "item_id"),
     "response.output_text.delta", "expected a non-empty item_id for response.output_text.delta"),
    ("reasoning", _text_to_reasoning,
     "response.output_text.delta", "expected output item type 'message', got 'reasoning'"),
    ("text", lambda events: first(events, "response.output_item.done")["item"].update(id="x"),
     "response.output_item.done", "expected output item id '{msg}', got 'x'"),
    ("text", lambda events: first(events, "response.output_item.added")["item"].pop("id"),
     "response.output_item.added",
     "expected a non-empty output item id for response.output_item.added"),
    # the part addressed is of the event's kind
    ("refusal", lambda events: first(events, "response.content_part.added")["part"].update(
        type="output_text", text="", annotations=[]),
     "response.refusal.delta", "expected content to be 'refusal', got output_text"),
    # the lifecycle
    ("text", lambda events: events.pop(0),
     "response.in_progress",
     "When snapshot hasn't been set yet, expected 'response.created' event, got "
     "response.in_progress"),
    ("text", lambda events: events[-1]["response"].update(id="resp_other"),
     "response.completed", "Lifecycle response identity changed."),
    ("text", unfinished,
     "response.completed", "Cannot complete response with unfinished output items."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "edit", "kind", "message"),
    FAILING,
    ids=[f"{s}-{m[:40]}" for s, _, _, m in FAILING],
)
def test_a_stream_the_accumulator_cannot_place(
    scenario: str, edit: Callable[[Events], None], kind: str, message: str
) -> None:
    events = mock(scenario)
    assert problem(events) is None  # the near miss: the stream as the mock streams it
    msg = first(events, "response.output_item.added")["item"]["id"]
    edit(events)
    found = problem(events)
    assert found is not None
    assert events[found[0]]["type"] == kind
    assert found[1] == message.format(msg=msg)


NEAR_MISSES = [
    # an index as a JSON float that is an integer (Number.isSafeInteger(0.0) holds)
    ("text", set_field("response.output_text.delta", "content_index", 0.0)),
    # a wire output_index the helper maps to its position (ResponseStream prepareOutputEvent)
    ("text", renumbered),
    # an event type 7.60 does not know (OpenAI's apply_patch diffs): not this rule's
    ("text", lambda events: events.insert(3, {"type": "response.something_new"})),
    # an error event: the helper raises the server's error (§1.2), not the accumulator's
    ("text", lambda events: events.insert(4, {"type": "error", "message": "x"})),
    # after the terminal event: judged by §2
    ("text", lambda events: events.append({"type": "response.output_text.delta"})),
    # an output_item.added without an item is ignored by the helper
    ("text", lambda events: events.insert(2, {"type": "response.output_item.added",
                                              "output_index": 9, "item": None})),
]  # fmt: skip


@pytest.mark.parametrize(("scenario", "edit"), NEAR_MISSES)
def test_a_near_miss_the_accumulator_places(scenario: str, edit: Callable[[Events], None]) -> None:
    events = mock(scenario)
    edit(events)
    assert problem(events) is None


def test_the_replayed_events_are_not_edited() -> None:
    events = mock("reasoning")
    before = copy.deepcopy(events)
    problem(events)
    assert events == before


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (lambda events: events.insert(3, {"type": ["x"]}), None),  # not a type: §1's
        (lambda events: events[-1]["response"]["output"][0].update(id={"a": []}),
         "expected a non-empty output item id for response snapshot"),
        (set_field("response.output_text.delta", "content_index", float("inf")),
         "missing content at index Infinity"),
        (set_field("response.output_text.delta", "content_index", {}),
         "missing content at index [object Object]"),
        (set_field("response.output_text.delta", "content_index", None), "missing content at index null"),
    ],
)  # fmt: skip
def test_odd_values_are_judged_as_javascript_shows_them(
    edit: Callable[[Events], None], found: str | None
) -> None:
    events = mock("text")
    edit(events)
    result = problem(events)
    assert (result[1] if result else None) == found
