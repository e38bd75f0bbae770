"""Offline reads stop at their size limit + 1 byte: ``check FILE``, a cassette, ``report INDEX``.

A size from ``stat`` says nothing of a device or a pipe: ``/dev/zero`` has size 0 and no end, so
a reader that trusted it read without a stop (until memory ran out). The limits are lowered here
so that a bounded read is quick; the near misses (an input of exactly the limit) are accepted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import cassettes.reader
import conformance.offline.recorded
import conformance.suite.reporting.index
from cassettes import CassetteError, read_cassette
from conformance.cli import main

pytestmark = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")

DATA = Path(__file__).parents[2] / "data"
TEXT_STREAM = DATA / "openai-recorded" / "streams" / "azure-text.1.jsonl"
VCR = DATA / "cassettes" / "pydantic-ai" / "test_background_mode_streaming_continuation_vcr.yaml"
PUBLISHED = Path(__file__).parents[3] / "docs" / "vendors" / "matrix" / "index.json"
LIMIT = 64 * 1024


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_dev_zero_stops_at_the_file_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conformance.offline.recorded, "_MAX_FILE_BYTES", LIMIT)
    code, _, err = _run(capsys, "check", "/dev/zero")
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("ERROR /dev/zero: cannot validate: "), err
    assert f"more than the {LIMIT:,}-byte limit for a file" in err


def test_check_a_file_of_exactly_the_limit_is_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conformance.offline.recorded, "_MAX_FILE_BYTES", TEXT_STREAM.stat().st_size)
    code, out, err = _run(capsys, "check", str(TEXT_STREAM))
    assert code == 0 and err == "", err
    assert "1 passed, 0 failed" in out


def test_read_limited_stops_at_limit_plus_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conformance.offline.recorded, "_MAX_FILE_BYTES", LIMIT)
    with pytest.raises(conformance.offline.recorded.UnreadableFile, match="-byte limit for a file"):
        conformance.offline.recorded.read_limited("/dev/zero")


def test_a_vcr_cassette_that_is_dev_zero_is_unreadable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(cassettes.reader, "MAX_FILE_BYTES", LIMIT)
    link = tmp_path / "endless.yaml"
    os.symlink("/dev/zero", link)
    code, _, err = _run(capsys, "check", str(link))
    assert code == 2, err
    assert err.count("\n") == 1 and "-byte limit for a cassette file" in err, err


def test_read_cassette_of_dev_zero_is_a_cassette_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cassettes.reader, "MAX_FILE_BYTES", LIMIT)
    with pytest.raises(
        CassetteError, match=f"more than the {LIMIT:,}-byte limit for a cassette file"
    ):
        read_cassette("/dev/zero")


def test_a_cassette_of_exactly_the_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cassettes.reader, "MAX_FILE_BYTES", VCR.stat().st_size)
    assert read_cassette(VCR)


def test_a_crlf_cassette_reads_as_before(tmp_path: Path) -> None:
    """The bounded read keeps text mode's newlines: CRLF and CR read as LF."""
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(VCR.read_bytes().replace(b"\n", b"\r\n"))
    assert [e.body for e in read_cassette(crlf)] == [e.body for e in read_cassette(VCR)]


def test_report_dev_zero_stops_at_the_index_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(conformance.suite.reporting.index, "MAX_INDEX_BYTES", LIMIT)
    out_dir = tmp_path / "out"
    code, _, err = _run(capsys, "report", "--report-dir", str(out_dir), "/dev/zero")
    assert code == 2, err
    assert err == (
        f"responses-conformance report: /dev/zero: more than the {LIMIT:,}-byte limit for an index\n"
    )
    assert not out_dir.exists()


def test_report_an_index_of_exactly_the_limit_is_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    index = tmp_path / "index.json"
    index.write_text(json.dumps(json.loads(PUBLISHED.read_text(encoding="utf-8"))))
    monkeypatch.setattr(
        conformance.suite.reporting.index, "MAX_INDEX_BYTES", index.stat().st_size, raising=False
    )
    code, out, err = _run(capsys, "report", "--report-dir", str(tmp_path / "out"), str(index))
    assert code in (0, 1) and err == "", err
    assert out.startswith("reports: ")
