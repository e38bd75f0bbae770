"""A rate sweep steps up until the SLO breaks, and draws the latency-throughput curve."""

from __future__ import annotations

from pathlib import Path

from bench_support import capacity_server, run_bench, sse, text_stream


def test_sweep_stops_at_the_first_rate_that_breaches(tmp_path: Path) -> None:
    # Two requests at a time, 0.2 s each: 10 requests/s of capacity. 4 and 8/s are served at once;
    # at 16/s a queue builds and TTFT passes 500 ms.
    with capacity_server(2, 0.2, sse(text_stream(["a", "b", "c"]))) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "--shape", "sweep",
            "--rates", "4,8,16,32", "--step-time", "1.5s", "--drain-timeout", "5s",
            "--slo", "ttft_p95=500ms", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    sweep = run.summary["sweep"]
    assert [s["status"] for s in sweep["steps"]] == ["ok", "ok", "breached", "not judged"]
    assert sweep["breached_at_step"] == 2
    assert sweep["max_rate_meeting_slo"] == 8
    first, second, third = sweep["steps"][:3]
    assert first["requests"]["total"] == 6 and second["requests"]["total"] == 12
    assert third["latency_ms"]["ttft"]["p95"] > 500 > second["latency_ms"]["ttft"]["p95"]
    assert (tmp_path / "sweep.png").stat().st_size > 0
