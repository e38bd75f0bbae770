"""benchmarks/perf/proxy_overhead.py runs end to end (mock, proxy, client) and prints its labels; its
numbers are the benchmark's to report, not a test's to assert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.perf import proxy_overhead


def test_proxy_overhead_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "numbers.json"
    argv = ["--streams", "2", "--rounds", "1", "--repeat", "1", "--ttft", "0.01",
            "--inter-token", "0.001", "--json", str(out)]  # fmt: skip
    assert proxy_overhead.main(argv) == 0
    text = capsys.readouterr().out
    for label in (
        "TTFT p99 proxy/direct",
        "events/CPU-s",
        "proxy/validating client",
        "load average",
    ):
        assert label in text
    assert "floor (a relay that parses nothing" in text and "proxy CPU per event: user" in text
    doc = json.loads(out.read_text())
    assert doc["proxy"]["events"] == doc["direct"]["events"] == doc["floor"]["events"] > 0
    assert doc["proxy"]["failed"] == doc["direct"]["failed"] == doc["floor"]["failed"] == 0
    assert doc["proxy_cpu_s"] > 0 and doc["floor_cpu_s"] >= 0
    assert 0 <= doc["proxy_user_cpu_s"] <= doc["proxy_cpu_s"]


def test_proxy_overhead_ab(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--baseline-root: a second proxy (here this same checkout) measured in the same rounds."""
    out = tmp_path / "numbers.json"
    root = Path(proxy_overhead.__file__).resolve().parents[2]
    argv = ["--streams", "2", "--rounds", "1", "--repeat", "1", "--ttft", "0.01",
            "--inter-token", "0.001", "--baseline-root", str(root), "--no-floor",
            "--json", str(out)]  # fmt: skip
    assert proxy_overhead.main(argv) == 0
    text = capsys.readouterr().out
    assert "baseline (" in text and "proxy/baseline CPU rate" in text
    doc = json.loads(out.read_text())
    assert doc["baseline"]["events"] == doc["direct"]["events"] > 0
    assert doc["baseline_cpu_s"] > 0 and len(doc["baseline_round_rates"]) == 1
    assert "floor" not in doc and "floor (" not in text


def test_forward_floor_relays_both_ways_and_half_closes() -> None:
    """The floor relay moves bytes unchanged in both directions and passes a half-close on: the
    upstream (an echo that answers after the client's EOF) still answers through it."""
    import socket
    import subprocess
    import sys
    import threading

    upstream = socket.socket()
    upstream.bind(("127.0.0.1", 0))
    upstream.listen(1)
    got = bytearray()

    def echo_after_eof() -> None:
        conn, _ = upstream.accept()
        with conn:
            while chunk := conn.recv(65536):
                got.extend(chunk)
            conn.sendall(b"echo:" + bytes(got))

    thread = threading.Thread(target=echo_after_eof, daemon=True)
    thread.start()
    floor = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.perf.forward_floor", "--upstream",
         f"127.0.0.1:{upstream.getsockname()[1]}"],
        cwd=Path(proxy_overhead.__file__).resolve().parents[2], stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert floor.stdout is not None
        line = floor.stdout.readline()
        assert line.startswith("floor: ")
        with socket.create_connection(("127.0.0.1", int(line.split()[1])), timeout=10) as client:
            client.sendall(b"x" * 100_000 + b"end")
            client.shutdown(socket.SHUT_WR)
            answer = bytearray()
            while chunk := client.recv(65536):
                answer.extend(chunk)
        assert bytes(answer) == b"echo:" + b"x" * 100_000 + b"end"
        thread.join(10)
    finally:
        floor.terminate()
        floor.communicate(timeout=10)
        upstream.close()
