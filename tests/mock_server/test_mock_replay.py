"""``responses-mock --replay DIR``: record a session, replay it, the SDK sees the same bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from cassettes import read_cassette
from conformance.cli import main as conformance_main
from mock_server.app import FROZEN_TIME, MockSettings
from mock_server.faults import FaultPlan
from mock_server.replay import NO_MATCH_CODE, ReplaySettings, parse_timing
from mock_server.testing import LoopbackMock


def _session(client: openai.OpenAI) -> list[Any]:
    """A session touching every kind of exchange replay must order: a stream, a chain, a
    retrieve, a background response polled to its end, a resumed stream, input items, delete."""
    seen: list[Any] = []
    with client.responses.with_streaming_response.create(
        model="mock", input="hello", stream=True, store=True, background=True
    ) as raw:
        body = b"".join(raw.iter_bytes())
    seen.append(body)
    first_id = json.loads(body.split(b"data: ", 2)[1].split(b"\n", 1)[0])["response"]["id"]
    chained = client.responses.create(model="mock", input="again", previous_response_id=first_id)
    seen.append(chained.model_dump_json())
    seen.append(client.responses.retrieve(first_id).model_dump_json())
    background = client.responses.create(model="mock", input="later", background=True)
    polls = 0
    while background.status in ("queued", "in_progress") and polls < 50:
        background = client.responses.retrieve(background.id)
        polls += 1
    seen.append((background.status, background.model_dump_json()))
    with client.responses.with_streaming_response.retrieve(
        first_id, stream=True, starting_after=3
    ) as raw:
        seen.append(b"".join(raw.iter_bytes()))
    seen.append(client.responses.input_items.list(chained.id).model_dump_json())
    cancelled = client.responses.create(model="mock", input="stop me", background=True)
    seen.append(client.responses.cancel(cancelled.id).model_dump_json())
    seen.append(client.responses.delete(chained.id))
    return seen


def _record(folder: Path) -> list[Any]:
    settings = MockSettings(seed=5, frozen_time=FROZEN_TIME, record=str(folder))
    with LoopbackMock(settings) as mock, mock.client(max_retries=0) as client:
        return _session(client)


def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    folder = tmp_path / "cassette"
    recorded = _record(folder)
    exchanges = read_cassette(folder)
    assert len(exchanges) >= 7
    assert conformance_main(["check", "--strict", str(folder)]) == 0  # and the judge passes it
    # another seed and real time: whatever the replay serves comes from the cassette
    replay = ReplaySettings(str(folder), timing=0.0)
    with (
        LoopbackMock(MockSettings(seed=99, replay=replay)) as mock,
        mock.client(max_retries=0) as client,
    ):
        replayed = _session(client)
        assert [r.method for r in mock.requests] == [e.method for e in exchanges]
    assert replayed == recorded
    assert recorded[0].count(b"event: response.output_text.delta") >= 2


def test_unmatched_request_names_the_closest_recording(tmp_path: Path) -> None:
    folder = tmp_path / "cassette"
    _record(folder)
    with (
        LoopbackMock(MockSettings(replay=ReplaySettings(str(folder), timing=0.0))) as mock,
        mock.client(max_retries=0) as client,
    ):
        with pytest.raises(openai.BadRequestError) as error:
            client.responses.create(model="mock", input="something never recorded")
        body = error.value.body
        assert isinstance(body, dict) and body["code"] == NO_MATCH_CODE
        message = body["message"]
        assert "POST /v1/responses" in message and "Closest recording: #" in message
        assert 'body.input: recorded "' in message and '"something never recorded"' in message
        with pytest.raises(openai.BadRequestError, match=r"already served|differs"):
            client.responses.delete("resp_never")


def test_fallback_sends_unmatched_requests_to_the_engine(tmp_path: Path) -> None:
    folder = tmp_path / "cassette"
    recorded = _record(folder)
    replay = ReplaySettings(str(folder), mode="fallback", timing=0.0)
    with (
        LoopbackMock(MockSettings(seed=5, frozen_time=FROZEN_TIME, replay=replay)) as mock,
        mock.client(max_retries=0) as client,
    ):
        fresh = client.responses.create(model="mock", input="not in the cassette")
        assert fresh.status == "completed" and fresh.output_text
        assert _session(client)[0] == recorded[0]


def test_faults_are_injected_on_top_of_the_replay(tmp_path: Path) -> None:
    folder = tmp_path / "cassette"
    recorded = _record(folder)
    replay = ReplaySettings(str(folder), timing=0.0)
    plan = FaultPlan.combine(["503@1"])
    with (
        LoopbackMock(MockSettings(replay=replay, faults=plan)) as mock,
        mock.client(max_retries=2) as client,
    ):
        with client.responses.with_streaming_response.create(
            model="mock", input="hello", stream=True, store=True, background=True
        ) as raw:
            assert b"".join(raw.iter_bytes()) == recorded[0]
        assert [r.attempt for r in mock.requests] == [1, 2]
    with (
        LoopbackMock(MockSettings(replay=replay, faults=FaultPlan.combine(["drop=3"]))) as mock,
        mock.client(max_retries=0) as client,
        pytest.raises(openai.APIError),
    ):
        list(
            client.responses.create(
                model="mock", input="hello", stream=True, store=True, background=True
            )
        )


def test_timing_as_recorded_scaled_or_zero() -> None:
    assert parse_timing("recorded") == 1.0 and parse_timing("zero") == 0.0
    assert parse_timing("0.5") == 0.5
    for bad in ("-1", "fast", "inf", "nan"):
        with pytest.raises(ValueError):
            parse_timing(bad)


def _hand_written(folder: Path, outcome: str = "complete") -> Path:
    from cassettes import CassetteWriter

    ticks = iter([0.0, 0.0, 0.1, 0.4, 0.4])  # begin, response, chunk 1, chunk 2, end
    writer = CassetteWriter(folder, clock=lambda: next(ticks))
    rec = writer.begin("POST", "/v1/responses", [("content-type", "application/json")], b"{}")
    rec.response(200, [("content-type", "text/event-stream")])
    rec.chunk(b'event: a\ndata: {"type":"a"}\n\n')
    rec.chunk(b'event: b\ndata: {"type":"b"}\n\n')
    rec.finish(outcome)
    return folder


@pytest.mark.parametrize(("timing", "at_least"), [(1.0, 0.4), (0.5, 0.2)])
def test_recorded_times_are_kept_or_scaled(tmp_path: Path, timing: float, at_least: float) -> None:
    import time

    import httpx2

    folder = _hand_written(tmp_path / "c")
    replay = ReplaySettings(str(folder), timing=timing)
    with LoopbackMock(MockSettings(replay=replay)) as mock:
        start = time.monotonic()
        reply = httpx2.post(mock.base_url + "/responses", content=b"{}", timeout=10)
        elapsed = time.monotonic() - start
    assert reply.content.count(b"event: ") == 2
    assert elapsed >= at_least  # a lower bound only: the clock is real


def test_a_recording_that_broke_off_breaks_off_again(tmp_path: Path) -> None:
    import httpx2

    folder = _hand_written(tmp_path / "c", outcome="error: DroppedConnection: cut")
    replay = ReplaySettings(str(folder), timing=0.0)
    with LoopbackMock(MockSettings(replay=replay)) as mock:
        with httpx2.stream("POST", mock.base_url + "/responses", content=b"{}") as reply:
            got = b""
            with pytest.raises(httpx2.HTTPError):
                for chunk in reply.iter_raw():
                    got += chunk
        assert got.count(b"event: ") == 2
