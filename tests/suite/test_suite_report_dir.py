"""A report folder that cannot be made is refused before any work (one line, exit 2). Before,
`run` and `proxy` found out only when they wrote the reports — after the whole run or the whole
session of traffic — as a NotADirectoryError traceback (exit 1), their verdicts lost; `report`
the same after merging."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main

MATRIX = Path(__file__).resolve().parents[2] / "docs" / "vendors" / "matrix" / "index.json"


@pytest.mark.parametrize(
    "argv",
    [["run"], ["proxy", "--upstream", "http://127.0.0.1:9"], ["report", str(MATRIX)]],
    ids=["run", "proxy", "report"],
)
def test_a_report_folder_under_a_file_is_refused_before_any_work(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("")
    code = main([*argv, "--report-dir", str(tmp_path / "file" / "out")])
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "cannot write" in ln]
    assert code == 2 and len(lines) == 1 and lines[0].endswith("file is not a folder"), lines


def test_a_folder_still_to_be_made_under_a_writable_one_is_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the near miss: nested folders that do not exist yet are made
    code = main(["report", str(MATRIX), "--report-dir", str(tmp_path / "a" / "b")])
    assert code == 1 and capsys.readouterr().err == ""
    assert (tmp_path / "a" / "b" / "report.html").is_file()
