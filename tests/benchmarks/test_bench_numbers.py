"""Numbers a user can trust and compare (docs/bench-metrics.md): Locust's table counts requests only,
one progress line, equal counts in every output, token and concurrency statistics, vLLM's and
GuideLLM's names, per-second percentiles only with enough samples."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from bench_support import mock_server, run_bench

from benchmarks.responses_bench.aggregate import Aggregate
from benchmarks.responses_bench.meter import RequestRecord
from benchmarks.responses_bench.report import MIN_SAMPLES, PERCENTILES, _timeline


def _rec(start: float, e2e: float, ttft: float = 0.01, **kw: object) -> RequestRecord:
    return RequestRecord(start=start, stream=True, ttft=ttft, itls=[0.001], e2e=e2e, **kw)  # type: ignore[arg-type]


def test_concurrency_over_time_is_the_request_seconds_in_each_second() -> None:
    agg = Aggregate()
    agg.add(_rec(100.0, 2.0), True)  # in flight 100.0-102.0
    agg.add(_rec(101.0, 1.5), True)  # 101.0-102.5
    assert agg.in_flight == {100: 1.0, 101: 2.0, 102: 0.5}
    assert agg.all.busy_s == 3.5
    merged = Aggregate()
    merged.merge_wire(agg.drain())
    merged.merge_wire(agg.drain())  # an empty report from a worker changes nothing
    assert merged.in_flight == {100: 1.0, 101: 2.0, 102: 0.5}
    points = _timeline(merged.timeline, merged.in_flight)
    assert [(p["t"], p["concurrency"]) for p in points] == [(100, 1.0), (101, 2.0), (102, 0.5)]


def test_a_per_second_percentile_needs_enough_samples() -> None:
    assert MIN_SAMPLES == {50: 10, 95: 20, 99: 100}
    agg = Aggregate()
    for i in range(MIN_SAMPLES[95] - 1):  # 19 requests finishing in one second
        agg.add(_rec(200.0 + i / 100, 0.5, ttft=0.1), True)
    (point,) = (p for p in _timeline(agg.timeline, agg.in_flight) if p["requests"])
    assert point["ttft_n"] == 19
    assert point["ttft_p50"] is not None and point["ttft_p95"] is None
    agg.add(_rec(200.5, 0.4, ttft=0.1), True)
    (point,) = (p for p in _timeline(agg.timeline, agg.in_flight) if p["requests"])
    assert point["ttft_p95"] is not None  # 20 samples: p95 is no longer just the maximum
    few = Aggregate()
    few.add(_rec(300.0, 0.1), True)
    (lonely,) = _timeline(few.timeline, few.in_flight)
    assert lonely["ttft_p50"] is None and lonely["e2e_p95"] is None and lonely["ttft_n"] == 1


def test_every_output_counts_the_same_requests_and_tokens(tmp_path: Path) -> None:
    with mock_server("--ttft", "0.02", "--inter-token", "0.002") as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "-u", "3", "-t", "3s",
            "--max-output-tokens", "32", "--request-log", "--loglevel", "WARNING",
            "--progress-interval", "1", quiet=False,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    total = summary["requests"]["total"]
    records = run.requests()
    assert len(records) == total > 10

    # Locust's table: requests only (9f25f79: TTFT/ITL/TPOT pseudo-rows made "Aggregated" 4x), and
    # its CSV counts what summary.json counts (9f25f79: it missed the last second: 156 vs 160).
    with (tmp_path / "locust_stats.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {r["Type"] for r in rows if r["Name"] != "Aggregated"} == {"POST"}
    (aggregated,) = (r for r in rows if r["Name"] == "Aggregated")
    assert int(aggregated["Request Count"]) == total
    assert sum(int(r["Request Count"]) for r in rows if r["Name"] != "Aggregated") == total

    # One progress line: ours; Locust's periodic table does not interleave with it.
    before_summary = run.output.split("responses-bench summary")[0]
    assert "[responses-bench" in before_summary
    assert "Aggregated" not in before_summary and "# reqs" not in before_summary

    # Tokens: input statistics, output and total throughput, from the same usage numbers.
    ok = [r for r in records if r["ok"]]
    tokens = summary["tokens"]
    assert tokens["input_total"] == sum(r["input_tokens"] for r in ok) > 0
    assert tokens["output_total"] == sum(r["output_tokens"] for r in ok) > 0
    assert tokens["total"] == tokens["input_total"] + tokens["output_total"]
    assert tokens["input"]["count"] == len(ok)
    assert tokens["input"]["max"] == max(r["input_tokens"] for r in ok)
    window = summary["window_s"]
    thr = summary["throughput"]
    assert thr["input_tokens_per_s"] == pytest.approx(tokens["input_total"] / window, rel=1e-3)
    assert thr["total_tokens_per_s"] == pytest.approx(tokens["total"] / window, rel=1e-3)

    # Concurrency: request-seconds in flight over the window, and per second.
    busy = sum(r["e2e"] for r in records)
    assert summary["concurrency"]["mean"] == pytest.approx(busy / window, rel=1e-2)
    assert 0 < summary["concurrency"]["mean"] <= 3 + 1e-6
    assert sum(p["concurrency"] for p in summary["timeline"]) == pytest.approx(busy, rel=1e-2)
    assert "concurrency (requests in flight): mean" in run.output
    assert "input tokens per request" in run.output and "total tok/s" in run.output

    # The same numbers under vLLM's benchmark_serving and GuideLLM's names and percentiles.
    vllm = summary["compat"]["vllm"]
    lat = summary["latency_ms"]
    assert vllm["completed"] == summary["requests"]["succeeded"]
    assert vllm["total_input_tokens"] == tokens["input_total"]
    assert vllm["total_token_throughput"] == thr["total_tokens_per_s"]
    assert vllm["mean_ttft_ms"] == lat["ttft"]["mean"] and vllm["p99_itl_ms"] == lat["itl"]["p99"]
    assert vllm["median_e2el_ms"] == lat["e2e"]["p50"] and vllm["std_tpot_ms"] is not None
    for q in PERCENTILES:
        assert f"p{q:g}_ttft_ms" in vllm
    guide = summary["compat"]["guidellm"]
    assert guide["time_to_first_token_ms"]["percentiles"]["p999"] == lat["ttft"]["p99.9"]
    assert guide["prompt_token_count"]["mean"] == tokens["input"]["mean"]
    assert guide["request_latency"]["median"] == pytest.approx(lat["e2e"]["p50"] / 1000)
    assert guide["request_concurrency"]["mean"] == summary["concurrency"]["mean"]
