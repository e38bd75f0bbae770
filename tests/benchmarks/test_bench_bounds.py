"""``responses-bench`` reads no more of a body than ``--max-body-bytes``: a 300 MB 429
body (geventhttpclient read error bodies whole: 2.7 GB peak) and a 300 MB non-stream 200 body
(read whole: 970 MB). Asserted as the bench process's peak RSS, measured by a small wrapper process
(a child's ``ru_maxrss`` counts what it inherited before ``exec``, so the wrapper holds nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from bench_support import bench_command, quiet_env, scripted_server

MiB = 1024 * 1024
_WRAP = (
    "import resource, subprocess, sys\n"
    "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
    "print(p.stdout + p.stderr)\n"
)


def _bench_peak(report_dir: Path, url: str, *args: str) -> tuple[int, int, str]:
    command = bench_command(
        "--report-dir", str(report_dir), "--loglevel", "WARNING", "--only-summary",
        "--progress-interval", "0", "--base-url", url, "--model", "m", "-u", "1", "-t", "3s", *args,
    )  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", _WRAP, *command],
        capture_output=True,
        text=True,
        timeout=120,
        env=quiet_env(),
    )
    first, _, output = proc.stdout.partition("\n")
    code, peak = (int(x) for x in first.split())
    return code, peak, output


@pytest.mark.parametrize(
    ("status", "args", "failure"),
    [
        (429, (), "bench.http.429"),
        (500, ("--no-stream",), "bench.http.500"),
        (200, ("--no-stream",), "bench.transport.too_large"),
    ],
)
def test_a_300_mb_body_leaves_the_bench_peak_rss_flat(
    tmp_path: Path, status: int, args: tuple[str, ...], failure: str
) -> None:
    with scripted_server(b"x" * (300 * MiB), status=status) as url:
        code, peak, output = _bench_peak(tmp_path, url, *args)
    assert code == 1, output
    assert failure in output, output
    # The bench itself (~110 MB) plus the 16 MiB cap and its copies; unbounded ≥ 970 MB.
    assert peak < 250 * MiB, (peak, output)


def test_the_cap_is_an_option(tmp_path: Path) -> None:
    with scripted_server(b'{"error": {"message": "' + b"x" * 5000 + b'"}}', status=200) as url:
        code, _, output = _bench_peak(tmp_path, url, "--no-stream", "--max-body-bytes", "1000")
    assert code == 1 and "bench.transport.too_large" in output, output


def test_the_bench_redacts_every_form_of_its_key_in_what_it_wrote(tmp_path: Path) -> None:
    import base64

    from benchmarks.responses_bench.cli import _redact_reports, _secrets

    key = "sk-bench-canary-0123456789"
    secrets = _secrets({"Authorization": f"Bearer {key}", "x-other": "kept"})
    assert key in secrets and "kept" not in secrets
    leaked = tmp_path / "locust_failures.csv"
    leaked.write_text(f"POST,/v1/responses,{base64.b64encode(key.encode()).decode()},{key[:12]}\n")
    (tmp_path / "timeline.png").write_bytes(b"\x89PNG" + key.encode())  # binary: left alone
    _redact_reports(tmp_path, secrets)
    text = leaked.read_text()
    assert key[:12] not in text and base64.b64encode(key.encode()).decode()[:16] not in text
    assert "[REDACTED]" in text
