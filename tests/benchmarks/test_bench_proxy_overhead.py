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
    doc = json.loads(out.read_text())
    assert doc["proxy"]["events"] == doc["direct"]["events"] > 0
    assert doc["proxy"]["failed"] == doc["direct"]["failed"] == 0
    assert doc["proxy_cpu_s"] > 0


def test_proxy_overhead_ab(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--baseline-root: a second proxy (here this same checkout) measured in the same rounds."""
    out = tmp_path / "numbers.json"
    root = Path(proxy_overhead.__file__).resolve().parents[2]
    argv = ["--streams", "2", "--rounds", "1", "--repeat", "1", "--ttft", "0.01",
            "--inter-token", "0.001", "--baseline-root", str(root), "--json", str(out)]  # fmt: skip
    assert proxy_overhead.main(argv) == 0
    text = capsys.readouterr().out
    assert "baseline (" in text and "proxy/baseline CPU rate" in text
    doc = json.loads(out.read_text())
    assert doc["baseline"]["events"] == doc["direct"]["events"] > 0
    assert doc["baseline_cpu_s"] > 0 and len(doc["baseline_round_rates"]) == 1
