"""`benchmarks.perf.validate_throughput` runs and prints its summary line; without a corpus
(an installed copy has none beside it) it says so in one line and exits 2. No rounds (--repeat 0,
--copies 0) is refused while parsing: test_bench_args."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.perf import validate_throughput

CORPUS = Path(__file__).parents[1] / "data" / "openai-recorded" / "streams"


@pytest.fixture(autouse=True)
def _unpinned(monkeypatch: pytest.MonkeyPatch) -> None:
    # main() pins its process to one CPU: not the test runner's.
    if hasattr(os, "sched_setaffinity"):
        monkeypatch.setattr(
            "benchmarks.perf.validate_throughput.os.sched_setaffinity", lambda pid, cpus: None
        )


def test_validate_throughput_reports_the_total_cpu_ratio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(validate_throughput, "CORPUS", CORPUS)
    out = tmp_path / "throughput.json"
    assert validate_throughput.main(["--repeat", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "ratio judge / json.loads, total CPU" in printed
    assert json.loads(out.read_text())


def test_validate_throughput_says_why_it_cannot_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(validate_throughput, "CORPUS", tmp_path)  # no recordings there
    assert validate_throughput.main([]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert str(tmp_path) in err
