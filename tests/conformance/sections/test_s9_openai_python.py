"""§9.3's openai-python rule, without a server, against openai-python itself: the events
openai-python's ``ResponseStreamState`` raises on (conformance/sections/s9_openai_python.py).

Every stream goes to the rule and to the installed client's own state machine, fed as its
``responses.stream`` feeds it (each event's JSON built into the SDK's event model without
validation, as ``Stream`` does, then ``handle_event``): every real recording and every stream of
the mock's snapshots is applied by both; each failing shape (a mock stream edited into the
defect) is refused by both, at the same event, with the same exception; each near miss is
applied by both. The tests may import the client; the judge does not."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any, cast

import pytest
from openai._models import construct_type
from openai._types import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent
from stream_edits import Events, added_twice, drop, first, renumbered, set_field, unfinished
from test_s9_openai_node import RECORDED, RECORDED_2, SNAPSHOTS, jsonl, mock, sse

from conformance.sections.s9_openai_python import openai_python_stream_problem as problem

_TERMINAL = ("response.completed", "response.failed", "response.incomplete")


def client(events: Events) -> tuple[int, str] | None:
    """openai-python's own verdict: the first event its ``ResponseStreamState`` raises on, as
    (its index, the exception's type and message), over the events the rule judges (up to an
    ``error`` event or the terminal one)."""
    state = ResponseStreamState(text_format=omit, input_tools=omit)
    for n, data in enumerate(events):
        if not isinstance(data.get("type"), str):
            continue
        if data["type"] == "error" or data.get("error"):
            return None
        event = construct_type(type_=cast(Any, ResponseStreamEvent), value=copy.deepcopy(data))
        try:
            with warnings.catch_warnings():  # pydantic's serializer warnings: not raised there
                warnings.simplefilter("ignore")
                state.handle_event(event)
        except Exception as exc:  # what the caller of responses.stream gets
            return n, f"{type(exc).__name__}: {exc}"
        if data["type"] in _TERMINAL:
            return None
    return None


def _both(events: Events) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
    return problem(events), client(events)


def _same(ours: tuple[int, str] | None, theirs: tuple[int, str] | None) -> bool:
    """The same event, the same exception (a bare ``assert``'s empty message aside)."""
    if ours is None or theirs is None:
        return ours is theirs
    if theirs[1] == "AssertionError: ":
        return ours[0] == theirs[0] and ours[1].startswith("AssertionError (at `assert ")
    return ours == theirs


# Real streams openai-python 3.63 itself raises on, which the rule leaves out (a limit of the
# client, not of the server: s9_openai_python._reminted): OpenAI mints a client
# tool_search_call's call_id anew at done.
CLIENT_LIMITS = {
    "azure-client-tool-search.1.part1.jsonl": (3, "RuntimeError: Completed output item identity changed."),
    "openai-client-tool-search.1.jsonl": (3, "RuntimeError: Completed output item identity changed."),
}  # fmt: skip


def test_every_real_recording_is_applied() -> None:
    streams = [(p, jsonl(p)) for p in sorted(RECORDED.glob("*.jsonl"))]
    streams += [(p, sse(p)) for p in sorted(RECORDED_2.glob("*.sse"))]
    assert len(streams) > 400
    found = {p.name: _both(events) for p, events in streams}
    assert {name: ours for name, (ours, _) in found.items() if ours is not None} == {}
    # the client agrees on every one but the limits the rule leaves out
    assert {name: theirs for name, (_, theirs) in found.items() if theirs} == CLIENT_LIMITS


def test_every_stream_of_the_mock_is_applied() -> None:
    snapshots = sorted(SNAPSHOTS.glob("test_stream_snapshot*.sse"))
    assert len(snapshots) >= 10
    found = [(p.name, *_both(sse(p))) for p in snapshots]
    assert [f for f in found if f[1:] != (None, None)] == []


def _text_to_reasoning(events: Events) -> None:
    """A text delta addressed to the reasoning item (index 0) of a reasoning stream."""
    reasoning = first(events, "response.output_item.added")
    delta = first(events, "response.output_text.delta")
    delta.update(output_index=reasoning["output_index"], item_id=reasoning["item"]["id"])


def _delta_first(events: Events) -> None:
    """A text delta before its item was added."""
    delta = first(events, "response.output_text.delta")
    events.remove(delta)
    events.insert(events.index(first(events, "response.output_item.added")), delta)


def _final_id_changed(events: Events) -> None:
    """A finished call (known by its call_id) under another id in the final output."""
    events[-1]["response"]["output"][-1]["id"] = "fc_renamed"


# (scenario, edit, the event type it raises on, the exception as Python prints it)
FAILING = [
    # the index missing (LiteLLM's shape), out of range, of the wrong type
    ("text", drop("response.output_text.delta", "content_index"), "response.output_text.delta",
     "TypeError: list indices must be integers or slices, not NoneType"),
    ("text", drop("response.output_text.done", "content_index"), "response.output_text.done",
     "TypeError: list indices must be integers or slices, not NoneType"),
    ("text", set_field("response.output_text.delta", "content_index", 1), "response.output_text.delta",
     "IndexError: list index out of range"),
    ("text", set_field("response.output_text.delta", "content_index", [0]),
     "response.output_text.delta", "TypeError: list indices must be integers or slices, not list"),
    ("text", set_field("response.output_text.delta", "output_index", 3), "response.output_text.delta",
     "RuntimeError: Received a content event for output index 3 before receiving its output "
     "item"),
    ("text", drop("response.output_text.delta", "output_index"), "response.output_text.delta",
     "RuntimeError: Received a content event for output index None before receiving its output "
     "item"),
    ("text", _delta_first, "response.output_text.delta",
     "RuntimeError: Received a content event for output index 0 before receiving its output "
     "item"),
    ("text", set_field("response.content_part.added", "output_index", 2),
     "response.content_part.added",
     "RuntimeError: Received a content event for output index 2 before receiving its output "
     "item"),
    ("text", drop("response.content_part.added", "part"), "response.content_part.added",
     "AttributeError: 'NoneType' object has no attribute 'to_dict'"),
    ("text", lambda events: first(events, "response.output_item.added")["item"].pop("content"),
     "response.content_part.added", "AttributeError: 'NoneType' object has no attribute 'append'"),
    ("text", drop("response.output_text.delta", "delta"), "response.output_text.delta",
     'TypeError: can only concatenate str (not "NoneType") to str'),
    ("function-call", set_field("response.function_call_arguments.delta", "delta", 7),
     "response.function_call_arguments.delta",
     'TypeError: can only concatenate str (not "int") to str'),
    ("text", added_twice, "response.output_item.added",
     "RuntimeError: Duplicate response output index 0."),
    # the part and the item addressed are of the event's kind
    ("refusal", set_field("response.refusal.delta", "type", "response.output_text.delta"),
     "response.output_text.delta", "AssertionError"),
    ("reasoning", _text_to_reasoning, "response.output_text.delta", "AssertionError"),
    # identities
    ("text", lambda events: first(events, "response.output_item.done")["item"].update(id="x"),
     "response.output_item.done", "RuntimeError: Completed output item identity changed."),
    ("function-call", _final_id_changed, "response.completed",
     "RuntimeError: Completed response output identity changed."),
    ("text", unfinished, "response.completed",
     "RuntimeError: Cannot complete response with unfinished output items."),
    # the lifecycle
    ("text", lambda events: events[1]["response"].update(output=[{"type": "message", "id": "m"}] * 2),
     "response.in_progress", "RuntimeError: Response snapshot has conflicting output identities."),
    ("text", lambda events: events.pop(0), "response.in_progress",
     "RuntimeError: Expected to have received `response.created` before "
     "`response.in_progress`"),
    ("text", lambda events: events[-1]["response"].update(id="resp_other"), "response.completed",
     "RuntimeError: Lifecycle response identity changed."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "edit", "kind", "message"),
    FAILING,
    ids=[f"{s}-{m[:48]}" for s, _, _, m in FAILING],
)
def test_a_stream_the_client_cannot_apply(
    scenario: str, edit: Callable[[Events], None], kind: str, message: str
) -> None:
    events = mock(scenario)
    assert _both(events) == (None, None)  # the near miss: the stream as the mock streams it
    edit(events)
    ours, theirs = _both(events)
    assert ours is not None and theirs is not None, (ours, theirs)
    assert _same(ours, theirs), (ours, theirs)
    assert events[ours[0]]["type"] == kind
    if message == "AssertionError":
        assert ours[1].startswith("AssertionError (at `assert ")
    else:
        assert ours[1] == message


NEAR_MISSES = [
    # an index as a JSON float that is an integer, or a string of one: the client's lax
    # validation reads either as an int
    ("text", set_field("response.output_text.delta", "output_index", 0.0)),
    ("text", set_field("response.output_text.delta", "content_index", 0.0)),
    ("text", set_field("response.output_text.delta", "content_index", "0")),
    # a wire output_index the client keys its items by, not a position
    ("text", renumbered),
    # an index from the end: Python's list takes it
    ("text", set_field("response.output_text.delta", "content_index", -1)),
    # the reasoning summary's and the refusal's indexes: events the client does not accumulate
    ("reasoning", drop("response.reasoning_summary_text.delta", "summary_index")),
    ("refusal", drop("response.refusal.delta", "content_index")),
    # an event type the client does not know, after response.created
    ("text", lambda events: events.insert(3, {"type": "response.something_new"})),
    # after the terminal event: judged by §2
    ("text", lambda events: events.append({"type": "response.output_text.delta"})),
    # an output_item.added without an item is skipped
    ("text", lambda events: events.insert(2, {"type": "response.output_item.added",
                                              "output_index": 9, "item": None})),
    # a final output without the items: the finished ones are taken
    ("text", lambda events: events[-1]["response"].pop("output")),
]  # fmt: skip


@pytest.mark.parametrize(("scenario", "edit"), NEAR_MISSES)
def test_a_near_miss_the_client_applies(scenario: str, edit: Callable[[Events], None]) -> None:
    events = mock(scenario)
    edit(events)
    assert _both(events) == (None, None)


def test_an_error_event_ends_what_the_rule_judges() -> None:
    """The server's error (§1.2): the rule stops there, whatever follows."""
    events = mock("text")
    first(events, "response.output_text.delta").pop("content_index")
    events.insert(3, {"type": "error", "message": "x"})
    assert problem(events) is None


def test_the_events_are_not_edited() -> None:
    events = mock("function-call")
    before = copy.deepcopy(events)
    assert problem(events) is None
    assert events == before


@pytest.mark.parametrize(
    "edit",
    [
        set_field("response.output_text.delta", "output_index", [0]),
        set_field("response.output_text.delta", "content_index", " 0 "),
        set_field("response.output_text.delta", "content_index", 1.5),
        set_field("response.output_text.delta", "content_index", True),  # 1: past the one part
        set_field("response.output_text.delta", "content_index", float("nan")),
        lambda events: first(events, "response.output_item.added").update(item="x"),
        lambda events: first(events, "response.output_item.done").update(item=None),
        lambda events: events[0].update(response="x"),
        lambda events: events[0]["response"].update(output=5),
        lambda events: events[-1]["response"].update(output=[{"type": ["x"]}]),
        lambda events: events.insert(3, {"type": ["x"]}),
    ],
)
def test_odd_values_are_judged_as_python_raises_them(edit: Callable[[Events], None]) -> None:
    events = mock("text")
    edit(events)
    ours, theirs = _both(events)
    assert _same(ours, theirs), (ours, theirs)
