"""The session rules (``ws.*``): each session example (the §8 section modules') fires its ID
and nothing else that fails, in memory and as a recorded file; its near miss passes; and what the
session reports as exercised. Then garbage frames and interleaved lanes.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path

import pytest

from conformance.catalog.registry import REGISTRY, Check, Level
from conformance.examples import EXAMPLES
from conformance.examples.sessions import Frames
from conformance.examples.sessions import create as _create
from conformance.examples.sessions import events as _events
from conformance.examples.sessions import serve as _serve
from conformance.offline.recorded import check_bytes
from conformance.sections import SECTIONS
from conformance.websocket import SessionValidator, judge_session

# Every ws.* session example, the §8 section modules' (not ws.error.code's: INFO, which no
# verdict fails on): (failing session, near miss).
_SESSIONS = {
    cid: (ex.failing.build, ex.passing.build)
    for cid, ex in EXAMPLES.items()
    if ex.failing.kind == "session" and REGISTRY[cid].level is not Level.INFO
}


def _failing_ids(frames: Frames) -> set[str]:
    _, violations = judge_session(frames)
    return {v.check.id for v in violations if v.check.level is not Level.INFO}


def test_every_ws_check_has_a_case() -> None:
    # A section module's checks (conformance.sections) keep their examples beside their rule.
    in_sections = {v.id for m in SECTIONS for v in vars(m).values() if isinstance(v, Check)}
    ws = {i for i in REGISTRY if i.startswith("ws.")}
    assert ws <= in_sections
    assert ws & in_sections <= set(EXAMPLES)
    assert ws - {"ws.error.code"} == set(_SESSIONS)


@pytest.mark.parametrize("check_id", sorted(_SESSIONS))
def test_failing_session_fires_exactly_its_check(check_id: str) -> None:
    assert _failing_ids(_SESSIONS[check_id][0]()) == {check_id}


@pytest.mark.parametrize("check_id", sorted(_SESSIONS))
def test_near_miss_passes(check_id: str) -> None:
    assert _failing_ids(_SESSIONS[check_id][1]()) == set()


@pytest.mark.parametrize("check_id", sorted(_SESSIONS))
def test_recorded_file_gets_the_same_verdict(check_id: str, tmp_path: Path) -> None:
    # The JSON Lines format `responses-conformance check` reads: both frame forms.
    for n, build in enumerate(_SESSIONS[check_id]):
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


@pytest.mark.parametrize("check_id", sorted(_SESSIONS))
def test_each_failing_session_exercises_its_check(check_id: str) -> None:
    # What a live run reports as exercised: never a check the session did not put to the test.
    session, _ = judge_session(_SESSIONS[check_id][0]())
    assert check_id in session.exercised
    quiet, _ = judge_session([_create(), *_serve(_events("resp_a"))])
    assert not {i for i in quiet.exercised if i.startswith(("ws.steer.", "ws.lane.order"))}


def _feed(frames: Frames) -> SessionValidator:
    session = SessionValidator()
    for direction, frame in frames:
        if direction == "client":
            session.client(json.dumps(frame) if isinstance(frame, dict) else frame)
        else:
            session.server(frame)
    return session


def test_a_session_cut_by_the_client_excuses_only_what_was_in_flight() -> None:
    """close(cut=True): the session ended by the client (or a proxy shutting down, docs/proxy.md)
    — a response in flight may lack its terminal event and a request not yet answered is owed
    nothing; close() — the server ended it — reports both. A defect before the cut still counts."""
    partial = _events("resp_a")[:4]
    frames = [_create(), *_serve(partial), _create()]  # a second request never answered
    by_server = {v.check.id for v in _feed(frames).close()}
    assert {"stream.lifecycle.terminal_present", "ws.request.answered"} <= by_server
    assert _feed(frames).close(cut=True) == []
    broken = [dict(e) for e in partial]
    broken[2]["sequence_number"] = 7  # a gap, before the cut
    session = _feed([_create(), *_serve(broken)])
    session.close(cut=True)
    assert "stream.sequence.contiguous" in {v.check.id for v in session.all_violations()}


@pytest.mark.parametrize(("depth", "past"), [(64, True), (63, False)])
def test_frame_past_the_nesting_bound(depth: int, past: bool) -> None:
    """A server frame nested past the judge's 64 levels is ``sse.limit.depth``, before parsing
    (the event is 1 level, its extra field ``depth`` more); 64 levels is judged as usual. A client
    frame past it is owed an error, as a frame that is not JSON is (the servers answer 400)."""
    deep = '{"type": "response.created", "x": ' + "[" * depth + "]" * depth + "}"
    session = SessionValidator()
    session.server(deep)
    session.close()
    ids = {v.check.id for v in session.all_violations()}
    assert ("sse.limit.depth" in ids) is past, ids
    client = SessionValidator()
    client.client('{"type": "response.create", "input": ' + "[" * depth + "]" * depth + "}")
    client.close()
    rejected = {v.check.id for v in client.all_violations()}
    assert ("ws.request.rejected" in rejected) is past, rejected


def _long_session(session: SessionValidator, n: int, *, broken: bool) -> None:
    for i in range(n):
        session.client({"type": "response.create", "model": "m", "input": "hi"})
        events = _events(f"resp_{i:06d}")
        if broken:  # each response breaks one rule: its terminal event is missing
            events = [*events[:-1], {**events[-1], "type": "response.in_progress"}]
        for event in events:
            session.server(json.dumps(event))


@pytest.mark.parametrize("broken", [False, True])
def test_a_folding_session_keeps_its_verdicts_in_bounded_state(broken: bool) -> None:
    """``retain`` (the proxy's, docs/proxy.md): past the latest responses, finished ones are
    folded into the session's verdicts as it goes. The verdicts are the same check IDs as a
    session that keeps everything; each check keeps ``kept_per_check`` violations and counts
    the rest; the responses held stay bounded however long the session."""
    whole, folding = SessionValidator(), SessionValidator(retain=4, kept_per_check=5)
    _long_session(whole, 300, broken=broken)
    _long_session(folding, 300, broken=broken)
    assert len(folding.responses) <= 9 and len(folding._by_id) <= 9
    assert len(folding._items) <= 9 and folding.folded > 280
    whole.close(), folding.close()
    kept = Counter(v.check_id for v in folding.all_violations())
    total = Counter(v.check_id for v in whole.all_violations())
    assert set(kept) == set(total)
    assert all(n <= 5 + 2 * 9 for n in kept.values()), kept  # the cap, and those held (2 each)
    assert kept + folding.omitted == total
    assert bool(total) is broken
