"""Steering over WebSocket mode on the mock (reference_impl.service.steering; docs/websocket.md
"Steering"), every session judged with the `websocket:steering` profile: a test passes only if
the judge finds nothing."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_mock_websocket import TERMINAL, Session

from conformance.websocket import SessionValidator
from mock_server.app import MockSettings
from mock_server.engine import Latency
from mock_server.testing import LoopbackMock
from reference_impl.service import steering

LONG = "Write a detailed story of at least 600 words about a lighthouse keeper. Do not stop early."
# Long arguments (~460 deltas): the call still streams when the test steers it.
REPORT = {
    "type": "function",
    "name": "save_report",
    "parameters": {
        "type": "object",
        "properties": {"report": {"type": "string", "minLength": 3000}},
        "required": ["report"],
    },
}


@pytest.fixture
def slow_mock() -> Iterator[LoopbackMock]:
    """Responses that still run when the client steers them: 5 ms between deltas (a long
    answer lasts seconds, so a loaded machine does not make the steer late)."""
    with LoopbackMock(MockSettings(latency=Latency(inter_token=0.005))) as mock:
        yield mock


def _session(mock: LoopbackMock) -> Session:
    s = Session(mock)
    s.judge = SessionValidator(profiles=("core", "websocket", "websocket:steering"))
    return s


def _created(s: Session) -> str:
    while True:
        event = s.recv()
        if event["type"] == "response.created":
            return str(event["response"]["id"])


def _steer(s: Session, target: str, value: Any = "Stop and say done.") -> None:
    s.send({"type": "response.steer", "previous_response_id": target, "input": value})


def _next(s: Session, *types: str) -> dict[str, Any]:
    while True:
        event = s.recv()
        if event["type"] in types:
            return event


def test_accepted_input_is_committed_by_a_successor(slow_mock: LoopbackMock) -> None:
    s = _session(slow_mock)
    s.create("lane-a", input=LONG, metadata={"turn": "1"}, max_output_tokens=512)
    target = _created(s)
    _steer(s, target)
    accepted = _next(s, "response.steer.accepted", "response.steer.failed")
    assert accepted["type"] == "response.steer.accepted", accepted
    assert accepted["steer"]["previous_response_id"] == target
    assert accepted["steer"]["id"].startswith("steer_") and accepted["stream_id"] == "lane-a"
    ended = _next(s, *TERMINAL)
    assert ended["response"]["id"] == target and ended["response"]["status"] == "completed"
    created = s.recv()  # the commit point: the automatic successor, on the target's lane
    assert created["type"] == "response.created" and created["stream_id"] == "lane-a"
    successor = created["response"]
    assert successor["previous_response_id"] == target
    assert successor["metadata"] == {"turn": "1"} and successor["max_output_tokens"] == 512
    done = _next(s, *TERMINAL)
    assert done["response"]["id"] == successor["id"]
    assert done["response"]["status"] == "completed"
    assert s.verdict() == []
    # The successor continues from the target with the steering input as its input.
    listed = httpx.get(f"{slow_mock.base_url}/responses/{successor['id']}/input_items").json()
    texts = [i.get("content") for i in listed["data"] if i.get("type") == "message"]
    assert texts and "Stop and say done." in json.dumps(texts[0])


def test_steering_a_tool_call_waits_for_its_output(slow_mock: LoopbackMock) -> None:
    s = _session(slow_mock)
    s.create(input="Write a report and save it.", tools=[REPORT], tool_choice="required")
    target = _created(s)
    _steer(s, target, [{"role": "user", "content": "Answer in French."}])
    assert _next(s, "response.steer.accepted", "response.steer.failed")["type"] == (
        "response.steer.accepted"
    )
    ended = _next(s, *TERMINAL)
    calls = [i for i in ended["response"]["output"] if i["type"] == "function_call"]
    assert calls
    pending = s.recv()
    assert pending["type"] == "response.steer.pending"
    assert pending["reason"] == "waiting_for_required_input"
    assert pending["required_input"] == [
        {"type": "function_call_output", "call_id": c["call_id"], "name": c["name"]} for c in calls
    ]
    output = [
        {"type": "function_call_output", "call_id": c["call_id"], "output": "18C"} for c in calls
    ]
    s.create(input=output, previous_response_id=target, tools=[REPORT])
    done = _next(s, *TERMINAL)
    assert done["response"]["status"] == "completed"
    assert done["response"]["previous_response_id"] == target
    assert s.verdict() == []


def test_refusals_return_the_input(slow_mock: LoopbackMock) -> None:
    s = _session(slow_mock)
    _steer(s, "resp_nowhere")
    failed = s.recv()
    assert failed["type"] == "response.steer.failed"
    assert failed["error"] == {
        "type": "invalid_request_error",
        "code": "response_not_found",
        "message": failed["error"]["message"],
    }
    assert failed["steer"] == {
        "input": "Stop and say done.",
        "previous_response_id": "resp_nowhere",
    }
    s.create(input="hi")
    target = _created(s)
    for bad in (
        [{"role": "assistant", "content": "no"}],
        [{"type": "function_call_output", "call_id": "c", "output": "x"}],
        "",
        [],
    ):
        _steer(s, target, bad)
        refused = _next(s, "response.steer.failed")
        assert refused["error"]["code"] == "invalid_input" and refused["steer"]["input"] == bad
    s.send(
        {"type": "response.steer", "previous_response_id": target, "input": "x", "stream_id": "a"}
    )
    assert _next(s, "response.steer.failed")["error"]["code"] == "invalid_input"
    _next(s, *TERMINAL)
    _steer(s, target)
    late = s.recv()
    assert (late["type"], late["error"]["code"]) == (
        "response.steer.failed",
        "response_already_completed",
    )
    s.send({"type": "response.steer", "input": "no target"})
    error = s.recv()
    assert (error["type"], error["error"]["code"]) == ("error", "missing_required_parameter")
    assert s.verdict() == []


def test_a_conversation_response_cannot_be_steered(slow_mock: LoopbackMock) -> None:
    conversation = httpx.post(f"{slow_mock.base_url}/conversations", json={}).json()["id"]
    s = _session(slow_mock)
    s.create(input=LONG, conversation=conversation)
    target = _created(s)
    _steer(s, target)
    refused = _next(s, "response.steer.failed")
    assert refused["error"]["code"] == "steering_not_supported"
    _next(s, *TERMINAL)
    assert s.verdict() == []


def test_steering_is_deterministic() -> None:
    """The same requests, the same events: the target, the steer's answer and the successor
    (where the steer event falls among the target's deltas is timing, not content)."""

    def run() -> tuple[list[str], list[str]]:
        settings = MockSettings(
            seed=3, frozen_time=1_700_000_000, latency=Latency(inter_token=0.005)
        )
        with LoopbackMock(settings) as mock:
            s = _session(mock)
            s.create(input=LONG, max_output_tokens=256)
            target = _created(s)
            _steer(s, target)
            events = s.until_terminals(2)
            assert s.verdict() == []
            steering = [json.dumps(e, sort_keys=True) for e in events if "steer" in e]
            rest = [json.dumps(e, sort_keys=True) for e in events if "steer" not in e]
            return steering, rest

    first, second = run(), run()
    assert first == second and len(first[0]) == 1


def test_a_successor_can_be_steered_in_turn(slow_mock: LoopbackMock) -> None:
    """Successors follow one another on the lane, each committing the input its parent accepted
    (served in a loop: a long chain of steers does not nest calls)."""
    s = _session(slow_mock)
    s.create(input=LONG, max_output_tokens=256)
    target = _created(s)
    chain = [target]
    for _ in range(3):
        _steer(s, chain[-1], LONG)
        assert _next(s, "response.steer.accepted", "response.steer.failed")["type"] == (
            "response.steer.accepted"
        )
        successor = _created(s)
        chain.append(successor)
    done = _next(s, *TERMINAL)
    while done["response"]["id"] != chain[-1]:
        done = _next(s, *TERMINAL)
    assert done["response"]["previous_response_id"] == chain[-2]
    assert s.verdict() == []


def test_an_ended_response_keeps_only_what_a_late_steer_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue #39: every response of a connection kept its create body (input included) for the
    connection's life, and after it in a reference cycle; a client sending 255 creates of 4 MiB
    grew the reference by 1 GiB. An ended response now keeps its lane and status (a late steer is
    still refused as completed, a conversation's as unsupported) and the connection answers for
    the last ``ENDED_KEPT`` of them; an older one is not found."""
    monkeypatch.setattr(steering, "ENDED_KEPT", 2)
    with LoopbackMock() as mock:
        s = _session(mock)
        ids = []
        for n in range(3):
            s.create(input="x" * 10_000 + str(n))
            ids.append(_created(s))
            _next(s, *TERMINAL)
        kept = [
            t for t in gc.get_objects()
            if isinstance(t, steering.Tracked) and t.response_id in ids
        ]  # fmt: skip
        assert kept and all(t.body == {} and t.output == [] for t in kept), kept
        codes = []
        for target in ids:
            _steer(s, target)
            codes.append(_next(s, "response.steer.failed")["error"]["code"])
        assert codes == ["response_not_found", *["response_already_completed"] * 2]
        conversation = httpx.post(mock.base_url + "/conversations", json={}).json()["id"]
        s.create(input="hi", conversation=conversation)
        bound = _created(s)
        _next(s, *TERMINAL)
        _steer(s, bound)
        assert _next(s, "response.steer.failed")["error"]["code"] == "steering_not_supported"
        assert s.verdict() == []
