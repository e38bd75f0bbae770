"""``responses-bench --transport websocket``: users keep one connection, every response judged."""

from __future__ import annotations

from pathlib import Path

from bench_support import mock_server, run_bench


def test_websocket_users_turns_and_lanes(tmp_path: Path) -> None:
    with mock_server("--inter-token", "0.002") as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "-u", "3", "-t", "3s",
            "--transport", "websocket", "--turns", "3", "--lanes", "2", "--max-output-tokens", "32",
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    assert summary["failures"]["by_name"] == {}
    assert summary["requests"]["total"] >= 12
    latency = summary["latency_ms"]
    assert latency["ttft"]["count"] == summary["requests"]["total"]  # every response timed
    assert latency["itl"]["count"] > 0 and latency["e2e"]["p50"] > 0


def test_a_dropped_websocket_fails_its_requests_under_the_judges_ids(tmp_path: Path) -> None:
    with mock_server("--fault", "drop=5") as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "mock", "-u", "2", "-t", "2s",
            "--transport", "websocket",
        )  # fmt: skip
    assert run.code == 1, run.output
    names = run.summary["failures"]["by_name"]
    assert "stream.lifecycle.terminal_present" in names, names


def test_lanes_need_the_websocket_transport(tmp_path: Path) -> None:
    run = run_bench(tmp_path, "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--lanes", "2")
    assert run.code == 2 and "--transport websocket" in run.output
