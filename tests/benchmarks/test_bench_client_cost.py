"""`benchmarks.perf.client_cost` runs and prints its summary line: the rates, the ratio of
medians, and the ratio of total CPU (the steadiest figure on a machine whose speed wanders)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.perf import client_cost

CORPUS = Path(__file__).parents[1] / "data" / "openai-recorded" / "streams"


@pytest.fixture(autouse=True)
def _here(monkeypatch: pytest.MonkeyPatch) -> None:
    # main() pins its process to one CPU: not the test runner's.
    if hasattr(os, "sched_setaffinity"):
        monkeypatch.setattr(
            "benchmarks.perf.client_cost.os.sched_setaffinity", lambda pid, cpus: None
        )
    # Its default corpus is found beside the source tree, which an installed copy (tox) lacks.
    monkeypatch.setattr(client_cost, "CORPUS", CORPUS)


def test_client_cost_reports_the_total_cpu_ratio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cost.json"
    assert client_cost.main(["--repeat", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    for label in ("validating", "no-validation", "json-only", "validating / json-only"):
        assert label in printed
    assert "validating / json-only, total CPU" in printed
    data = json.loads(out.read_text())
    totals = data["cpu_seconds_total"]
    assert set(totals) == {"validating", "no-validation", "json-only"}
    assert all(seconds > 0 for seconds in totals.values())
    assert data["ratio_validating_to_json_only_total_cpu"] == pytest.approx(
        totals["json-only"] / totals["validating"]
    )
    assert len(data["ratio_validating_to_json_only_by_round"]) == 2


def test_client_cost_refuses_no_rounds(capsys: pytest.CaptureFixture[str]) -> None:
    # Refused while parsing (argparse: usage, one error line, exit 2), before the corpus is read.
    with pytest.raises(SystemExit) as done:
        client_cost.main(["--repeat", "0"])
    assert done.value.code == 2
    assert "argument --repeat" in capsys.readouterr().err
