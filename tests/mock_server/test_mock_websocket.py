"""WebSocket mode on the mock (reference_impl.service.websocket over the mock's engine and store), judged.

Every session here goes through the judge's SessionValidator, frame by frame, with the exact
text frames the client received: a test passes only if the judge finds nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import websockets
import websockets.sync.client as wsc
from websockets.exceptions import ConnectionClosed

from conformance.catalog.registry import Level
from conformance.websocket import SessionValidator
from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock
from reference_impl.service.websocket import WebSocketLimits

TERMINAL = ("response.completed", "response.incomplete", "response.failed")


class Session:
    """A raw websockets client that records every frame for the judge."""

    def __init__(self, mock: LoopbackMock, **headers: str) -> None:
        url = mock.base_url.replace("http://", "ws://") + "/responses"
        self.ws = wsc.connect(url, additional_headers=headers, max_size=None)
        self.judge = SessionValidator()
        self.frames: list[dict[str, Any]] = []

    def send(self, event: dict[str, Any] | str) -> None:
        text = event if isinstance(event, str) else json.dumps(event)
        self.judge.client(text)
        self.ws.send(text)

    def create(self, lane: str | None = None, **body: Any) -> None:
        event = {"type": "response.create", "model": "mock", "input": "hi", **body}
        if lane is not None:
            event["stream_id"] = lane
        self.send(event)

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        frame = self.ws.recv(timeout=timeout)
        self.judge.server(frame)
        event: dict[str, Any] = json.loads(frame)
        self.frames.append(event)
        return event

    def until_terminals(self, count: int) -> list[dict[str, Any]]:
        """Receive until ``count`` responses (or request errors) have ended."""
        got: list[dict[str, Any]] = []
        ended = 0
        while ended < count:
            event = self.recv()
            got.append(event)
            if event["type"] in TERMINAL or (
                event["type"] == "error" and "sequence_number" not in event
            ):
                ended += 1
        return got

    def verdict(self) -> list[str]:
        self.ws.close()
        self.judge.close()
        return [v.format() for v in self.judge.all_violations() if v.level is not Level.INFO]


def test_several_responses_in_sequence_on_one_connection(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    first = None
    for n in range(3):
        s.create(input=f"turn {n}", **({"previous_response_id": first} if first else {}))
        events = s.until_terminals(1)
        assert events[-1]["type"] == "response.completed"
        first = events[-1]["response"]["id"]
        assert "stream_id" not in events[-1]  # the default lane's events omit it
    assert s.verdict() == []


def test_two_lanes_at_once_echo_their_stream_id(responses_mock: LoopbackMock) -> None:
    responses_mock.server.engine.latency = responses_mock.server.engine.latency  # (default)
    s = Session(responses_mock)
    s.create("a", input="long text please", metadata={"mock_scenario": "long-text"})
    s.create("b", input="short")
    events = s.until_terminals(2)
    lanes = {e["stream_id"] for e in events}
    assert lanes == {"a", "b"}
    assert all("stream_id" in e for e in events)
    assert s.verdict() == []


def test_previous_response_id_across_lanes(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    s.create("a", input="My name is Ada.")
    parent = s.until_terminals(1)[-1]["response"]["id"]
    s.create("b", input="What is my name?", previous_response_id=parent)
    s.create("c", input="And again?", previous_response_id=parent)
    done = [e for e in s.until_terminals(2) if e["type"] == "response.completed"]
    assert {e["response"]["previous_response_id"] for e in done} == {parent}
    assert s.verdict() == []


def test_one_lane_is_fifo(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    for n in range(4):
        s.create("a", input=f"turn {n}", metadata={"turn": str(n)})
    done = [e for e in s.until_terminals(4) if e["type"] == "response.completed"]
    assert [e["response"]["metadata"]["turn"] for e in done] == ["0", "1", "2", "3"]
    assert s.verdict() == []


def test_background_and_malformed_events_get_error_events_and_the_connection_stays(
    responses_mock: LoopbackMock,
) -> None:
    s = Session(responses_mock)
    s.create(background=True)
    error = s.recv()
    assert error["type"] == "error" and error["status"] == 400
    assert error["error"]["param"] == "background"
    for bad, code in [
        ("{not json", "invalid_json"),
        ("[1, 2]", "invalid_json"),
        ({"type": "response.nope"}, "unknown_event_type"),
        ({"type": "response.create", "stream_id": "no spaces"}, "invalid_stream_id"),
    ]:
        s.send(bad)
        error = s.recv()
        assert (error["type"], error["error"]["code"]) == ("error", code)
    s.judge.client(b"\x00binary")
    s.ws.send(b"\x00binary")
    assert s.recv()["error"]["code"] == "invalid_json"
    s.create(input="still here")
    assert s.until_terminals(1)[-1]["type"] == "response.completed"
    assert s.verdict() == []


def test_a_create_refused_like_http_gets_its_error_on_its_lane(
    responses_mock: LoopbackMock,
) -> None:
    s = Session(responses_mock)
    s.create("a", previous_response_id="resp_unknown")
    error = s.recv()
    assert error["stream_id"] == "a"
    assert error["error"]["code"] == "previous_response_not_found"
    s.create("a", temperature="hot")
    assert s.recv()["error"]["param"] == "temperature"
    assert s.verdict() == []


def test_same_requests_same_events_lanes_included() -> None:
    def run() -> list[dict[str, Any]]:
        with LoopbackMock(MockSettings(seed=7, frozen_time=1_700_000_000)) as mock:
            s = Session(mock)
            s.create("a", input="one")
            s.create("b", input="two", metadata={"mock_scenario": "reasoning"})
            s.create("a", input="three")
            events = s.until_terminals(3)
            assert s.verdict() == []
            return sorted(
                events,
                key=lambda e: (
                    e.get("stream_id"),
                    e["response"]["id"] if "response" in e else "",
                    e.get("sequence_number"),
                ),
            )

    first, second = run(), run()
    for lane in "ab":
        assert [e for e in first if e.get("stream_id") == lane] == [
            e for e in second if e.get("stream_id") == lane
        ]


def test_same_response_as_over_sse() -> None:
    body = {"model": "mock", "input": "compare the transports", "max_output_tokens": 40}
    with LoopbackMock(MockSettings(seed=3, frozen_time=1_700_000_000)) as mock:
        sse = mock.client().responses.create(**body, stream=True)
        over_sse = [e.model_dump(exclude_unset=True) for e in sse][-1]["response"]
        s = Session(mock)
        s.create(**body)
        over_ws = s.until_terminals(1)[-1]["response"]
        assert s.verdict() == []
    ids = re.compile(r"^(resp|msg|rs|fc|call)_[0-9a-zA-Z]+$")

    def mask(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: mask(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mask(v) for v in value]
        return "<id>" if isinstance(value, str) and ids.match(value) else value

    assert mask(over_ws) == mask(over_sse)


@pytest.mark.responses_mock(faults="drop=4")
def test_fault_drop_closes_the_connection_mid_response(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    s.create()
    got = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(s.recv())
    assert len(got) == 4 and closed.value.rcvd is not None and closed.value.rcvd.code == 1011
    s.judge.close()
    assert "stream.lifecycle.terminal_present" in {v.check.id for v in s.judge.all_violations()}


@pytest.mark.responses_mock(faults="error=2")
def test_fault_error_event_then_failed(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    s.create("a")
    events = s.until_terminals(1)
    assert [e["type"] for e in events[-2:]] == ["error", "response.failed"]
    assert events[-2]["stream_id"] == "a"
    assert s.verdict() == []


@pytest.mark.responses_mock(faults="429@1;slow=0.3@2")
def test_fault_status_then_slow_start(responses_mock: LoopbackMock) -> None:
    import time

    s = Session(responses_mock)
    s.create("a")
    error = s.recv()
    assert (error["status"], error["error"]["code"], error["stream_id"]) == (
        429,
        "rate_limit_exceeded",
        "a",
    )
    start = time.monotonic()
    s.create("a")
    assert s.until_terminals(1)[-1]["type"] == "response.completed"
    assert time.monotonic() - start >= 0.3
    assert [r.method for r in responses_mock.requests] == ["WS", "WS"]
    assert [r.attempt for r in responses_mock.requests] == [1, 2]
    assert s.verdict() == []


def test_per_connection_limits() -> None:
    with LoopbackMock(MockSettings(frozen_time=0)) as mock:
        s = Session(mock)
        for n in range(33):
            s.create(f"lane{n}", input="x", max_output_tokens=16)
        events = s.until_terminals(33)
        errors = [e for e in events if e["type"] == "error"]
        assert [(e["stream_id"], e["error"]["code"]) for e in errors] == [
            ("lane32", "websocket_stream_limit_reached")
        ]
        assert s.verdict() == []


def test_queue_limit_and_unauthorized_upgrade() -> None:
    from mock_server.engine import Latency, MockEngine
    from reference_impl.server import ServerThread
    from reference_impl.service.app import create_app

    # Each response waits 1.5 s before its first event, so the first is still in flight while the
    # other four arrive: two wait, two are refused. Without the wait the mock can finish each
    # response before the next frame is read, and nothing ever queues (a CI run under load did).
    engine = MockEngine(latency=Latency(ttft=1.5))
    app = create_app(engine, api_key="k", websocket_limits=WebSocketLimits(max_queued=2))
    thread = ServerThread(app, port=0)
    thread.start()
    try:
        url = thread.base_url.replace("http://", "ws://") + "/v1/responses"
        with pytest.raises(websockets.exceptions.InvalidStatus) as denied:
            wsc.connect(url)
        assert denied.value.response.status_code == 401
        assert b"invalid_api_key" in denied.value.response.body
        with wsc.connect(url, additional_headers={"Authorization": "Bearer k"}) as ws:
            judge = SessionValidator()
            for _ in range(5):
                text = json.dumps({"type": "response.create", "model": "m", "input": "x"})
                judge.client(text)
                ws.send(text)
            codes, ended = [], 0
            while ended < 5:
                frame = ws.recv(timeout=10)
                judge.server(frame)
                event = json.loads(frame)
                if event["type"] == "error":
                    codes.append(event["error"]["code"])
                    ended += 1
                elif event["type"] in TERMINAL:
                    ended += 1
            judge.close()
            assert codes == ["websocket_queue_limit_reached"] * 2
            assert not [v for v in judge.all_violations() if v.level is Level.MUST]
    finally:
        thread.stop()
