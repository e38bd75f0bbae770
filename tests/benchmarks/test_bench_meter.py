"""The per-request meter, without sockets: what starts the TTFT clock, ITL, TPOT, verdict names."""

from __future__ import annotations

import json

import pytest
from bench_support import response_object, sse, text_stream

from benchmarks.responses_bench.meter import (
    DELTAS_EXCEED_TOKENS,
    FAILED,
    TRUNCATED,
    StreamMeter,
    measure_body,
    record_http_error,
)


def _event_bytes(event: dict[str, object]) -> bytes:
    return sse([event], done=False)


def _feed_timed(events: list[dict[str, object]], times: list[float], **kw: object) -> StreamMeter:
    meter = StreamMeter(t0=0.0, start=0.0, **kw)  # type: ignore[arg-type]
    for event, at in zip(events, times, strict=True):
        meter.feed(_event_bytes(event), at)
    return meter


@pytest.mark.parametrize("validate", [True, False])
def test_ttft_starts_at_the_first_output_delta_not_created_or_item_added(validate: bool) -> None:
    events = text_stream(["a", "b", "c"])
    # created 0.05, in_progress 0.06, item added 0.07, part added 0.08, deltas 0.2/0.22/0.25, rest.
    times = [0.05, 0.06, 0.07, 0.08, 0.2, 0.22, 0.25, 0.26, 0.26, 0.26, 0.3]
    meter = StreamMeter(t0=0.0, start=0.0, validate=validate)
    meter.feed(b": keep-alive\n\n", 0.01)  # a comment is not output either
    for event, at in zip(events, times, strict=True):
        meter.feed(_event_bytes(event), at)
    rec = meter.finish(0.4)
    assert rec.ok, rec.names
    assert rec.ttft == pytest.approx(0.2)
    assert rec.itls == pytest.approx([0.02, 0.03])
    assert rec.e2e == pytest.approx(0.3)  # to the terminal event, not to the end of the body
    assert rec.output_tokens == 3
    assert rec.tpot == pytest.approx((0.3 - 0.2) / 2)
    assert rec.deltas == 3
    assert rec.response_id == "resp_1"


def test_every_output_kind_counts_as_a_delta() -> None:
    meter = StreamMeter(t0=0.0, start=0.0, validate=False)
    kinds = [
        "response.refusal.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
    ]
    for at, kind in enumerate(kinds, 1):
        meter.feed(_event_bytes({"type": kind, "delta": "x", "sequence_number": at}), float(at))
    meter.feed(_event_bytes({"type": "response.output_item.added", "sequence_number": 9}), 9.0)
    rec = meter.finish(10.0)
    assert rec.ttft == 1.0
    assert rec.itls == [1.0, 1.0, 1.0]


def test_deltas_in_one_chunk_share_its_arrival_time() -> None:
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(text_stream(["a", "b"])), 0.5)
    rec = meter.finish(0.5)
    assert rec.ttft == 0.5 and rec.itls == [0.0]


@pytest.mark.parametrize("split", ["event", "pairs", "whole", "unterminated"])
def test_the_judged_meter_times_every_recording_as_the_bare_one(split: str) -> None:
    # The judge counts the output deltas (`tally`) and the meter times them per chunk; without
    # the judge, the meter times each decoded delta itself: the same timings, over real streams.
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[1] / "data" / "openai-recorded" / "streams"
    compared = 0
    for path in sorted(corpus.glob("*.jsonl")):
        events = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
        blocks = [_event_bytes(e) for e in events]
        if split == "pairs":
            chunks = [b"".join(blocks[i : i + 2]) for i in range(0, len(blocks), 2)]
        elif split == "whole":
            chunks = [b"".join(blocks)]
        elif split == "unterminated":  # the last event ends without its blank line
            chunks = [*blocks[:-1], blocks[-1][:-2]]
        else:
            chunks = blocks
        records = []
        for validate in (True, False):
            meter = StreamMeter(t0=0.0, start=0.0, validate=validate)
            for at, chunk in enumerate(chunks, 1):
                meter.feed(chunk, at / 8)  # exact in binary: equal ITLs compare equal
            rec = meter.finish(len(chunks) + 1.0)
            records.append(
                (rec.ttft, rec.itls, rec.deltas, meter.nonempty_deltas, rec.e2e, rec.output_tokens)
            )
        assert records[0] == records[1], path.name
        compared += records[0][2] > 0
    assert compared > 20


def test_incomplete_is_a_success() -> None:
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(text_stream(["a", "b"], status="incomplete")), 0.1)
    rec = meter.finish(0.1)
    assert rec.ok and rec.status == "incomplete"


def test_a_violation_fails_the_request_under_its_check_id() -> None:
    events = text_stream(["a", "b", "c"])
    events[5]["sequence_number"] = 42  # a gap
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(events), 0.1)
    rec = meter.finish(0.1)
    assert rec.failure == "stream.sequence.contiguous"


def test_usage_violations_fail_too() -> None:
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(text_stream(["a", "b"], total_delta=5)), 0.1)
    assert meter.finish(0.1).failure == "usage.total"


def test_usage_below_the_streamed_deltas_is_caught_by_the_cross_check() -> None:
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(text_stream(["a", "b", "c", "d"], output_tokens=2)), 0.1)
    rec = meter.finish(0.1)
    assert rec.failure == DELTAS_EXCEED_TOKENS
    assert rec.output_tokens == 2


def test_a_cut_stream_is_truncated_then_the_judge_names_the_missing_terminal() -> None:
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(text_stream(["a", "b"])[:6], done=False), 0.1)
    rec = meter.finish(0.2, transport_error=TRUNCATED)
    assert rec.names[:2] == [TRUNCATED, "stream.lifecycle.terminal_present"]
    assert rec.e2e == pytest.approx(0.2)


def test_a_failed_response_is_a_failure() -> None:
    events = text_stream(["a"])[:5]
    events.append(
        {
            "type": "error",
            "error": {
                "type": "server_error",
                "code": "server_error",
                "message": "x",
                "param": None,
            },
        }
    )
    failed = response_object("failed", error={"code": "server_error", "message": "x"})
    events.append({"type": "response.failed", "response": failed})
    for number, event in enumerate(events):
        event["sequence_number"] = number
    meter = StreamMeter(t0=0.0, start=0.0)
    meter.feed(sse(events), 0.1)
    rec = meter.finish(0.1)
    assert rec.failure == FAILED, rec.names


def test_non_stream_body_is_judged_and_measured() -> None:
    body = json.dumps(
        response_object(
            "completed",
            usage={
                "input_tokens": 3,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 7,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 9,  # wrong: 3 + 7
            },
        )
    ).encode()
    rec = measure_body(body, t0=0.0, now=0.5, start=0.0)
    assert rec.e2e == 0.5 and rec.output_tokens == 7 and rec.ttft is None
    assert rec.failure == "usage.total"


def test_http_errors_are_named_by_status_and_a_bad_error_body_by_check() -> None:
    good = json.dumps(
        {"error": {"message": "slow down", "type": "requests", "param": None, "code": "rate"}}
    ).encode()
    rec = record_http_error(429, good, stream=True, t0=0.0, now=0.01, start=0.0)
    assert rec.names == ["bench.http.429"]
    bad = json.dumps({"error": {"message": "x", "type": "t", "param": None, "code": 500}}).encode()
    rec = record_http_error(500, bad, stream=True, t0=0.0, now=0.01, start=0.0)
    assert rec.names == ["bench.http.500", "error.code.type"]
