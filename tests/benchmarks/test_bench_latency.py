"""Measured latencies against the mock's configured ones (docs/bench-metrics.md)."""

from __future__ import annotations

from pathlib import Path

from bench_support import mock_server, run_bench


def test_measured_ttft_and_itl_match_the_configured_latency(tmp_path: Path) -> None:
    # TTFT 200 ms, 20 ms between deltas, no jitter, one token per delta.
    with mock_server("--ttft", "0.2", "--inter-token", "0.02", "--chunk", "1") as url:
        run = run_bench(tmp_path, "--base-url", url, "--model", "mock", "-u", "4", "-t", "3s")
    assert run.code == 0, run.output
    summary = run.summary
    latency = summary["latency_ms"]
    # A real clock: lower bounds only (the project rule; an upper bound flakes under load). No
    # byte can reach the client before the mock sends it, so nothing measured may be quicker than
    # configured (0.6%: the histogram's bucket width).
    floor = 1 - 0.006
    assert latency["ttft"]["p50"] >= 200 * floor
    assert latency["ttft"]["min"] >= 200 * floor
    assert latency["itl"]["p50"] >= 20 * floor
    assert latency["tpot"]["p50"] >= 20 * floor
    per_request = summary["tokens"]["output_per_request_mean"]
    assert latency["e2e"]["p50"] >= (200 + 20 * (per_request - 1)) * floor
    # Counted, not timed: one gap between each two deltas of every successful stream.
    ok = summary["requests"]["succeeded"]
    assert latency["itl"]["count"] == summary["tokens"]["deltas_total"] - ok > 250
    assert summary["failures"]["by_name"] == {}
    # One token per delta: the usage the server reports equals the deltas it streamed.
    assert summary["tokens"]["deltas_total"] == summary["tokens"]["output_total"] > 0
    assert summary["requests"]["total"] >= 6
    for name in ("locust_stats.csv", "locust_failures.csv", "locust.html", "timeline.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    # Locust's table holds requests only (latency distributions are the bench's own).
    stats_csv = (tmp_path / "locust_stats.csv").read_text()
    assert "TTFT" not in stats_csv and "ITL" not in stats_csv and "TPOT" not in stats_csv
