"""Faults and broken streams show up under the right names; breaches set the exit code."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

from bench_support import (
    bench_command,
    free_port,
    mock_server,
    run_bench,
    scripted_server,
    sse,
    text_stream,
)


def test_http_and_mid_stream_faults_are_named_and_breach_the_error_rate(tmp_path: Path) -> None:
    faults = ("--fault", "429~0.2", "--fault", "500~0.1", "--fault", "error=5~0.2")
    with mock_server(*faults) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "--max-output-tokens", "32",
            "-u", "4", "-t", "2s", "--slo", "error_rate=5%",
        )  # fmt: skip
    summary = run.summary
    causes = summary["failures"]["by_cause"]
    assert {"bench.http.429", "bench.http.500", "bench.response.failed"} <= set(causes), causes
    assert summary["failures"]["by_check_id"] == {}  # the failures were well-formed
    assert summary["slo"]["breached"]
    assert run.code == 1 and "SLO breached: error_rate" in run.output, run.output
    failures_csv = (tmp_path / "locust_failures.csv").read_text()
    assert "bench.http.429" in failures_csv and "bench.response.failed" in failures_csv


def test_a_dropped_connection_is_a_truncated_stream_and_a_missing_terminal(tmp_path: Path) -> None:
    with mock_server("--fault", "drop=12~0.5") as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "-u", "2", "-t", "2s",
            "--slo", "error_rate=100%",
        )  # fmt: skip
    summary = run.summary
    assert summary["failures"]["by_cause"].get("bench.transport.truncated", 0) > 0
    assert summary["failures"]["by_check_id"].get("stream.lifecycle.terminal_present", 0) > 0
    assert summary["requests"]["succeeded"] > 0
    # A judge check broke, so the run fails even though the error-rate objective allows it all.
    assert run.code == 1, run.output


def test_a_broken_stream_fails_under_the_judges_check_id(tmp_path: Path) -> None:
    events = text_stream(["a", "b", "c"])
    events[6]["sequence_number"] = 99
    with scripted_server(sse(events)) as url:
        run = run_bench(tmp_path, "--base-url", url, "--model", "m", "-u", "1", "-t", "1s")
    summary = run.summary
    total = summary["requests"]["total"]
    assert summary["failures"]["by_cause"] == {"stream.sequence.contiguous": total}
    assert run.code == 1
    assert "stream.sequence.contiguous" in (tmp_path / "locust_failures.csv").read_text()


def test_a_gzip_stream_the_bench_did_not_ask_for_is_decoded_and_judged(tmp_path: Path) -> None:
    """The bench asks for identity; a server that gzips anyway is decoded (a bounded piece at a
    time) and judged like any stream: a clean one passes."""
    packed = gzip.compress(sse(text_stream(["a", "b", "c"])))
    with scripted_server(packed, headers=[("content-encoding", "gzip")]) as url:
        run = run_bench(tmp_path, "--base-url", url, "--model", "m", "-u", "1", "-t", "1s")
    assert run.code == 0, run.output
    assert run.summary["requests"]["succeeded"] == run.summary["requests"]["total"] > 0


def test_a_gzip_stream_that_does_not_decode_is_undecodable(tmp_path: Path) -> None:
    """Before: reported as a truncated body (zlib.error was taken for a cut connection)."""
    packed = gzip.compress(sse(text_stream(["a", "b", "c"])))
    cut = packed[:10] + bytes(b ^ 0xFF for b in packed[10:40]) + packed[40:]  # corrupt inside
    with scripted_server(cut, headers=[("content-encoding", "gzip")]) as url:
        run = run_bench(tmp_path, "--base-url", url, "--model", "m", "-u", "1", "-t", "1s")
    causes = run.summary["failures"]["by_cause"]
    assert "bench.transport.undecodable" in causes and "bench.transport.truncated" not in causes
    assert run.code == 1


def test_usage_that_undercounts_the_stream_is_a_failure(tmp_path: Path) -> None:
    with scripted_server(sse(text_stream(["a", "b", "c", "d"], output_tokens=1))) as url:
        run = run_bench(tmp_path, "--base-url", url, "--model", "m", "-u", "1", "-t", "1s")
    causes = run.summary["failures"]["by_cause"]
    assert list(causes) == ["bench.usage.deltas_exceed_output_tokens"], causes


def test_an_unreachable_target_exits_2_at_once(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    run = run_bench(tmp_path, "--base-url", url, "--model", "m", "-t", "1s", timeout=30)
    assert run.code == 2 and "unreachable" in run.output


def test_bad_options_exit_2_and_help_exits_0() -> None:
    bad = subprocess.run(
        bench_command("--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--slo", "p95=1"),
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert bad.returncode == 2 and "--slo" in bad.stderr
    shown = subprocess.run(bench_command("--help"), capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0
    for flag in ("--base-url", "--slo", "--shape", "--processes", "--report-dir", "Exit codes"):
        assert flag in shown.stdout
