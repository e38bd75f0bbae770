"""Every recorded SSE stream, re-framed as a one-lane WebSocket session, gets its SSE verdict.

A stream defect has one name on both transports (docs/websocket.md): the session validator
runs the stream validator per response, so the violations must be the very same (check ID, event
index, path), on the real recordings of every corpus and on the mutants built from them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import orjson
import pytest
from mutations import Event, generate, judge, load_recordings

from conformance.websocket import SessionValidator

DATA = Path(__file__).parents[2] / "data"
STREAMS = sorted(DATA.glob("*/streams/*.jsonl"))


def _key(violations: Sequence[object]) -> list[tuple[str, int | None, str]]:
    return [(v.check.id, v.event_index, v.path) for v in violations]  # type: ignore[attr-defined]


def _as_session(
    events: Sequence[Event], *, lane: str | None, as_text: bool = True
) -> SessionValidator:
    session = SessionValidator()
    create: dict[str, object] = {"type": "response.create", "model": "m", "input": "hi"}
    if lane is not None:
        create["stream_id"] = lane
    session.client(json.dumps(create))
    for event in events:
        framed = dict(event)
        if lane is not None:
            framed["stream_id"] = lane
        # A text frame, or the object a client already parsed (the judge's fast path).
        session.server(orjson.dumps(framed).decode() if as_text else framed)
    session.close()
    return session


def test_both_corpora_are_found() -> None:
    assert len(STREAMS) >= 48


@pytest.mark.parametrize("lane", [None, "agent_1"])
@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_recording_reframed_gets_its_sse_verdict(path: Path, lane: str | None) -> None:
    events = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    session = _as_session(events, lane=lane)
    assert session.violations == []  # no session rule fires on a well-formed one-lane session
    assert _key(session.all_violations()) == _key(judge(events))
    assert len(session.responses) == 1


def test_mutants_reframed_get_their_sse_verdicts() -> None:
    # The failing side: every mutant of the corpus, judged both ways, names the same defects.
    compared = 0
    for n, mutant in enumerate(generate(load_recordings(), budget=2)):
        session = _as_session(mutant.events, lane="l", as_text=n % 2 == 0)
        want = _key(judge(mutant.events))
        got = _key(session.all_violations())
        if not session.responses:
            # Cut before its first event: over SSE an empty stream, over WebSocket no answer.
            assert _key(session.violations) == [("ws.request.answered", None, "")], mutant.name
            continue
        assert got == want, mutant.name
        assert session.violations == [], mutant.name
        compared += 1
    assert compared > 500
