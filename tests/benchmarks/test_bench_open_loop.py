"""Open loop and goodput (docs/bench-metrics.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_support import mock_server, run_bench


def test_open_loop_starts_requests_on_schedule_whatever_the_server_speed(tmp_path: Path) -> None:
    # Every response takes 2 s (a slow start), so about 40 are in flight at once: a closed loop of
    # any small size would fall behind; the open loop must not.
    with mock_server("--fault", "slow=2") as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "--max-output-tokens", "16",
            "--shape", "open-loop", "--rate", "20", "-t", "10s", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    loop = summary["open_loop"]
    # Counted values, then lower bounds only (a real clock on a loaded machine can only be late).
    assert loop["scheduled"] == 200
    assert loop["skipped_max_in_flight"] == 0
    assert loop["completed"] == loop["started"] == summary["requests"]["total"] == 200
    assert summary["latency_ms"]["e2e"]["p50"] >= 2000  # the server really was that slow
    # 20 starts/s of 2 s responses keep ~40 in flight; a closed loop of a few users never
    # exceeds its user count. Late starts only lower the peak in proportion: 10 is far below.
    assert max(s["concurrency"] for s in summary["timeline"]) >= 10
    assert loop["started_on_schedule"] >= 100


def test_goodput_is_the_requests_meeting_the_slo_per_second(tmp_path: Path) -> None:
    # Half the requests (chosen by a hash of the body) start 0.4 s late: they miss TTFT ≤ 300 ms.
    with mock_server("--ttft", "0.05", "--fault", "slow=0.4~0.5") as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "--max-output-tokens", "16",
            "-u", "4", "-t", "2s", "--slo", "ttft_p99=300ms,error_rate=100%", "--request-log",
        )  # fmt: skip
    summary = run.summary
    records = run.requests()
    assert len(records) == summary["requests"]["total"] > 10
    good = [r for r in records if r["ok"] and r["ttft"] is not None and r["ttft"] <= 0.3]
    assert 0 < len(good) < len(records)
    assert summary["requests"]["good"] == len(good)
    window = max(r["start"] + r["e2e"] for r in records) - min(r["start"] for r in records)
    assert summary["window_s"] == pytest.approx(window, abs=1e-3)
    assert summary["throughput"]["goodput_per_s"] == pytest.approx(len(good) / window, rel=1e-3)
    # ttft_p99 is over 300 ms (the slow half), so the SLO breaches and the exit code says so.
    assert summary["slo"]["breached"] and run.code == 1, run.output
