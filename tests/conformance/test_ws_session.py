"""The session rules (``ws.*``), each with a minimal failing session and its passing near miss.

A session is a list of ``(dir, frame)`` pairs as a recording holds them; every response in it is a
real OpenAI recording (azure-text.1) under a fresh response id, so only the session rule differs.
The near miss must pass with no MUST or SHOULD violation at all; the failing one must fire its ID
and nothing else that fails.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance import catalog as C
from conformance.checks import REGISTRY, Level
from conformance.recorded import check_bytes
from conformance.websocket import SessionValidator, judge_session

RECORDING = Path(__file__).parents[1] / "data/openai-recorded/streams/azure-text.1.jsonl"
Frames = list[tuple[str, Any]]


def _events(rid: str, lane: str | None = None) -> list[dict[str, Any]]:
    text = RECORDING.read_text()
    original = json.loads(text.splitlines()[0])["response"]["id"]
    text = text.replace(original, rid).replace('"msg_', f'"msg_{rid}_')  # ids unique per response
    events = [json.loads(line) for line in text.splitlines() if line]
    if lane is not None:
        for event in events:
            event["stream_id"] = lane
    return events


def _create(lane: str | None = None, **body: Any) -> tuple[str, Any]:
    event: dict[str, Any] = {"type": "response.create", "model": "m", "input": "hi", **body}
    if lane is not None:
        event["stream_id"] = lane
    return ("client", event)


def _serve(events: list[dict[str, Any]]) -> Frames:
    return [("server", json.dumps(e)) for e in events]


def _error(code: str, lane: str | None = None, status: int = 400) -> tuple[str, Any]:
    event: dict[str, Any] = {
        "type": "error",
        "status": status,
        "error": {"type": "invalid_request_error", "code": code, "message": "no", "param": None},
    }
    if lane is not None:
        event["stream_id"] = lane
    return ("server", event)


def _steer(target: str) -> tuple[str, Any]:
    return ("client", {"type": "response.steer", "previous_response_id": target, "input": "also"})


def _accepted(target: str, lane: str | None = None) -> tuple[str, Any]:
    event: dict[str, Any] = {
        "type": "response.steer.accepted",
        "sequence_number": 0,
        "steer": {"id": "steer_1", "previous_response_id": target},
    }
    if lane is not None:
        event["stream_id"] = lane
    return ("server", event)


def _pending(target: str) -> tuple[str, Any]:
    return (
        "server",
        {
            "type": "response.steer.pending",
            "sequence_number": 0,
            "reason": "waiting_for_required_input",
            "required_input": [{"type": "function_call_output", "call_id": "c", "name": "f"}],
            "steer": {"id": "steer_1", "previous_response_id": target},
        },
    )


def _mid(events: list[dict[str, Any]], *extra: tuple[str, Any]) -> Frames:
    """``extra`` frames in the middle of a response (after its response.in_progress)."""
    return [*_serve(events[:2]), *extra, *_serve(events[2:])]


# ID -> (failing session, passing near miss)
CASES: dict[str, tuple[Callable[[], Frames], Callable[[], Frames]]] = {
    C.WS_FRAME_TEXT.id: (
        lambda: [_create(), ("server", b"\x00\x01"), *_serve(_events("resp_a"))],
        lambda: [_create(), *_serve(_events("resp_a"))],
    ),
    C.WS_FRAME_JSON.id: (
        lambda: [_create(), ("server", "{not json"), *_serve(_events("resp_a"))],
        lambda: [
            _create(),
            (
                "server",
                ' {"type": "error", "error": {"type": "t", "code": null,'
                ' "message": "m", "param": null}} ',
            ),
            _create(),
            *_serve(_events("resp_a")),
        ],
    ),
    C.WS_EVENT_ROUTED.id: (
        lambda: [_create(), *_serve(_events("resp_a")), *_serve(_events("resp_b"))],
        lambda: [_create(), _create(), *_serve(_events("resp_a")), *_serve(_events("resp_b"))],
    ),
    C.WS_STREAM_ID_ECHOED.id: (
        lambda: [
            _create("a"),
            *_serve(_events("resp_a", "a")[:5]),
            *_serve(_events("resp_a")[5:6]),
            *_serve(_events("resp_a", "a")[6:]),
        ],
        lambda: [_create("a"), *_serve(_events("resp_a", "a"))],
    ),
    C.WS_LANE_SERIAL.id: (
        lambda: [
            _create("a"),
            _create("a"),
            *_serve(_events("resp_a", "a")[:3]),
            *_serve(_events("resp_b", "a")),
            *_serve(_events("resp_a", "a")[3:]),
        ],
        lambda: [
            _create("a"),
            _create("b"),
            *_serve(_events("resp_a", "a")[:3]),
            *_serve(_events("resp_b", "b")),
            *_serve(_events("resp_a", "a")[3:]),
        ],
    ),
    C.WS_LANE_ORDER.id: (
        lambda: [
            _create("a", metadata={"turn": "1"}),
            _create("a", metadata={"turn": "2"}),
            *_serve(_with_metadata(_events("resp_b", "a"), {"turn": "2"})),
            *_serve(_with_metadata(_events("resp_a", "a"), {"turn": "1"})),
        ],
        lambda: [
            _create("a", metadata={"turn": "1"}),
            _create("a", metadata={"turn": "2"}),
            *_serve(_with_metadata(_events("resp_a", "a"), {"turn": "1"})),
            *_serve(_with_metadata(_events("resp_b", "a"), {"turn": "2"})),
        ],
    ),
    C.WS_REQUEST_ANSWERED.id: (
        lambda: [_create(), _create("b"), *_serve(_events("resp_a"))],
        lambda: [
            _create(),
            _create("b"),
            *_serve(_events("resp_a")),
            _error("previous_response_not_found", "b"),
        ],
    ),
    C.WS_REQUEST_REJECTED.id: (
        lambda: [_create(background=True), *_serve(_events("resp_a"))],
        lambda: [_create(background=False), *_serve(_events("resp_a"))],
    ),
    C.WS_ERROR_SHAPE.id: (
        lambda: [
            ("client", "{oops"),
            ("server", {"type": "error", "status": 400, "error": {"message": "bad JSON"}}),
        ],
        lambda: [("client", "{oops"), _error("invalid_json")],
    ),
    C.WS_STEER_SHAPE.id: (
        lambda: (
            lambda e: [
                _create(),
                *_mid(
                    e,
                    _steer("resp_a"),
                    (
                        "server",
                        {
                            "type": "response.steer.accepted",
                            "steer": {"previous_response_id": "resp_a"},
                        },
                    ),
                ),
            ]
        )(_events("resp_a")),
        lambda: (
            lambda e: [
                _create(),
                *_mid(e, _steer("resp_a"), _accepted("resp_a")),
                *_serve(_events("resp_b")),
            ]
        )(_events("resp_a")),
    ),
    C.WS_STEER_KNOWN.id: (
        lambda: (lambda e: [_create(), *_mid(e, _accepted("resp_a"))])(_events("resp_a")),
        lambda: (
            lambda e: [
                _create(),
                *_mid(e, _steer("resp_a"), _accepted("resp_a")),
                *_serve(_events("resp_b")),
            ]
        )(_events("resp_a")),
    ),
    C.WS_STEER_LIVE.id: (
        lambda: [
            _create(),
            *_serve(_events("resp_a")),
            _steer("resp_a"),
            _accepted("resp_a"),
            *_serve(_events("resp_b")),
        ],
        lambda: [
            _create(),
            *_serve(_events("resp_a")),
            _steer("resp_a"),
            (
                "server",
                {
                    "type": "response.steer.failed",
                    "sequence_number": 0,
                    "steer": {"previous_response_id": "resp_a", "input": "also"},
                    "error": {
                        "type": "invalid_request_error",
                        "code": "response_already_completed",
                        "message": "done",
                    },
                },
            ),
        ],
    ),
    C.WS_STEER_PENDING_AFTER_TERMINAL.id: (
        lambda: (
            lambda e: [
                _create(),
                *_mid(e, _steer("resp_a"), _accepted("resp_a"), _pending("resp_a")),
            ]
        )(_events("resp_a")),
        lambda: (
            lambda e: [
                _create(),
                *_mid(e, _steer("resp_a"), _accepted("resp_a")),
                _pending("resp_a"),
            ]
        )(_events("resp_a")),
    ),
}


def _with_metadata(events: list[dict[str, Any]], metadata: dict[str, str]) -> list[dict[str, Any]]:
    for event in events:
        if isinstance(event.get("response"), dict):
            event["response"]["metadata"] = metadata
    return events


def _failing_ids(frames: Frames) -> set[str]:
    _, violations = judge_session(frames)
    return {v.check.id for v in violations if v.check.level is not Level.INFO}


def test_every_ws_check_has_a_case() -> None:
    ws = {i for i in REGISTRY if i.startswith("ws.")}
    assert ws == set(CASES)


@pytest.mark.parametrize("check_id", sorted(CASES))
def test_failing_session_fires_exactly_its_check(check_id: str) -> None:
    assert _failing_ids(CASES[check_id][0]()) == {check_id}


@pytest.mark.parametrize("check_id", sorted(CASES))
def test_near_miss_passes(check_id: str) -> None:
    assert _failing_ids(CASES[check_id][1]()) == set()


@pytest.mark.parametrize("check_id", sorted(CASES))
def test_recorded_file_gets_the_same_verdict(check_id: str, tmp_path: Path) -> None:
    # The JSON Lines format `responses-conformance check` reads: both frame forms.
    for n, build in enumerate(CASES[check_id]):
        lines = []
        for direction, frame in build():
            if isinstance(frame, bytes):
                lines.append({"dir": direction, "binary": base64.b64encode(frame).decode()})
            else:
                lines.append({"dir": direction, "data": frame})
        verdict = check_bytes("\n".join(json.dumps(line) for line in lines).encode())
        assert verdict.kind == "session"
        ids = {v.check.id for v in verdict.violations if v.check.level is not Level.INFO}
        assert ids == ({check_id} if n == 0 else set())


def test_garbage_is_reported_not_raised() -> None:
    session = SessionValidator()
    for frame in [
        b"",
        "",
        "[]",
        "null",
        '{"type": 3}',
        '{"type": "response.created"}',
        {"type": "error"},
        {"type": "response.steer.failed"},
        {"stream_id": 5, "type": "x"},
        '{"type": "response.output_text.delta", "stream_id": "zz"}',
    ]:
        session.server(frame)
    for frame in [
        b"\xff",
        "{",
        "[1]",
        {"type": "response.steer"},
        {"type": "nope"},
        {"type": "response.create", "stream_id": "bad id!"},
    ]:
        session.client(frame)
    session.close()
    ids = {v.check.id for v in session.all_violations()}
    assert {
        "ws.frame.text",
        "ws.frame.json",
        "ws.event.routed",
        "ws.error.shape",
        "ws.request.rejected",
    } <= ids


def test_two_lanes_interleaved_are_demultiplexed() -> None:
    a, b = _events("resp_a", "a"), _events("resp_b", "b")
    frames: Frames = [_create("a"), _create("b")]
    for x, y in zip(a, b, strict=True):
        frames += [("server", json.dumps(x)), ("server", json.dumps(y))]
    session, violations = judge_session(frames)
    assert [v for v in violations if v.check.level is not Level.INFO] == []
    assert [r.response_id for r in session.responses] == ["resp_a", "resp_b"]
    assert all(r.validator.events == len(a) for r in session.responses)


@pytest.mark.parametrize("check_id", sorted(CASES))
def test_each_failing_session_exercises_its_check(check_id: str) -> None:
    # What a live run reports as exercised: never a check the session did not put to the test.
    session, _ = judge_session(CASES[check_id][0]())
    assert check_id in session.exercised
    quiet, _ = judge_session([_create(), *_serve(_events("resp_a"))])
    assert not {i for i in quiet.exercised if i.startswith(("ws.steer.", "ws.lane.order"))}
