"""``python -m benchmarks.vendors run --baseline`` and ``summary`` read their JSON indexes through
the suite's validated loader (``conformance.suite.reporting.load_index``): its size limit, its
format and shape checks, one line and exit 2 for what is not an index. Before, each had its own
``json.load``: a JSON file of any shape was taken as the baseline (and compared with), or
rendered as the summary."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import conformance.suite.reporting.index
from benchmarks.vendors.cli import main

MATRIX = Path(__file__).resolve().parents[2] / "docs" / "vendors" / "matrix"
# JSON, but no `format`: not an index
NOT_AN_INDEX: dict[str, object] = {"targets": {}, "checks": {}}


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as done:
        return int(done.code or 0)


def _run_dir(tmp_path: Path, index: object) -> Path:
    run = tmp_path / "run"
    (run / "merged").mkdir(parents=True)
    shutil.copyfile(MATRIX / "run.json", run / "run.json")
    text = index if isinstance(index, str) else json.dumps(index)
    (run / "merged" / "index.json").write_text(text, encoding="utf-8")
    return run


def test_baseline_that_is_not_an_index_is_refused_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(NOT_AN_INDEX))
    # an unknown target: had the baseline been taken, the run would stop there (exit 2 too)
    code = _exit(["run", "--baseline", str(baseline), "--target", "no-such-target"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"vendors: --baseline: {baseline} is not a responses-conformance.index/1")


def test_baseline_of_a_malformed_index_names_the_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = json.loads((MATRIX / "index.json").read_text(encoding="utf-8"))
    name = next(iter(doc["targets"]))
    doc["targets"][name]["status"] = 5
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(doc))
    code = _exit(["run", "--baseline", str(baseline), "--target", "no-such-target"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "is not a well-formed index" in err and f"targets.{name}.status" in err


def test_baseline_dev_zero_is_bounded(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("needs /dev/zero")
    monkeypatch.setattr(conformance.suite.reporting.index, "MAX_INDEX_BYTES", 4096)
    code = _exit(["run", "--baseline", "/dev/zero", "--target", "no-such-target"])
    err = capsys.readouterr().err
    assert code == 2 and err == (
        "vendors: --baseline: /dev/zero: more than the 4,096-byte limit for an index\n"
    )


def test_a_good_baseline_is_taken(capsys: pytest.CaptureFixture[str]) -> None:
    """The near miss: the published matrix is a baseline; the run then stops at the target."""
    code = _exit(["run", "--baseline", str(MATRIX / "index.json"), "--target", "no-such-target"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("vendors: unknown target(s): no-such-target"), err


def test_summary_of_a_merged_file_that_is_not_an_index_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = _run_dir(tmp_path, NOT_AN_INDEX)
    code = _exit(["summary", str(run)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("vendors: summary: the merged index: ")
    assert "is not a responses-conformance.index/1 file" in err
    assert not (run / "SUMMARY.md").exists()


def test_summary_of_broken_json_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = _run_dir(tmp_path, '{"format": ')
    code = _exit(["summary", str(run)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is not JSON" in err, err


def test_summary_of_the_published_matrix_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = _run_dir(tmp_path, (MATRIX / "index.json").read_text(encoding="utf-8"))
    assert _exit(["summary", str(run)]) == 0
    assert capsys.readouterr().out.strip() == str(run / "SUMMARY.md")
    assert (run / "SUMMARY.md").read_text().startswith("#")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("[]", "is not a run record (from `vendors run`)"),
        ('"x"', "is not a run record (from `vendors run`)"),
        ('{"targets": 5}', "is not a run record (from `vendors run`)"),
        ('{"targets": [1]}', "is not a run record (from `vendors run`)"),
        ('{"targets": {"a": 1}}', "is not a run record this version renders (AttributeError"),
    ],
)
def test_summary_of_a_record_of_the_wrong_shape_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: str, message: str
) -> None:
    """Before: an AttributeError traceback, for each of these (a record is input, like an index)."""
    (tmp_path / "merged").mkdir()
    shutil.copy(MATRIX / "index.json", tmp_path / "merged")
    (tmp_path / "run.json").write_text(record)
    assert _exit(["summary", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    # The near misses: the published run's record renders, and so does an empty one (every
    # field it lacks shown as '?').
    for good in ((MATRIX / "run.json").read_text(), "{}"):
        (tmp_path / "run.json").write_text(good)
        assert _exit(["summary", str(tmp_path)]) == 0
        assert (tmp_path / "SUMMARY.md").is_file()
