"""Locust's master/worker mode on loopback: the summary merges every worker."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from bench_support import bench_command, free_port, mock_server, quiet_env


def test_master_and_two_workers_merge_into_one_summary(tmp_path: Path) -> None:
    port = free_port()
    with mock_server() as url:
        master = subprocess.Popen(
            bench_command(
                "--base-url", url, "--model", "mock", "--max-output-tokens", "16",
                "--shape", "open-loop", "--rate", "10", "-t", "3s", "--report-dir", str(tmp_path),
                "--master", "--expect-workers", "2", "--master-bind-host", "127.0.0.1",
                "--master-bind-port", str(port), "--loglevel", "WARNING", "--only-summary",
                "--progress-interval", "0",
            ),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=quiet_env(),
        )  # fmt: skip
        workers = [
            subprocess.Popen(
                bench_command(
                    "--worker",
                    "--master-host",
                    "127.0.0.1",
                    "--master-port",
                    str(port),
                    "--loglevel",
                    "WARNING",
                ),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=quiet_env(),
            )
            for _ in range(2)
        ]
        try:
            output, _ = master.communicate(timeout=60)
            for worker in workers:
                worker.wait(timeout=30)
        finally:
            procs: list[subprocess.Popen[Any]] = [master, *workers]
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    assert master.returncode == 0, output
    summary = json.loads((tmp_path / "summary.json").read_text())
    # 10 requests/s for 3 s, split between the two workers by the shared schedule.
    assert summary["open_loop"]["processes"] == 2
    assert summary["open_loop"]["scheduled"] == 30
    assert summary["requests"]["total"] == 30
    assert sorted(summary["sources"].values()) == [15, 15]
    assert summary["latency_ms"]["e2e"]["count"] == 30
    # Most start on time even on a busy CI machine (the open-loop test holds the exact bound).
    assert summary["open_loop"]["started_on_schedule"] >= 27
