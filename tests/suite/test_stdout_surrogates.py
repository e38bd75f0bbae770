"""A lone surrogate (JSON's ``"\\ud800"``, which Python reads as a str UTF-8 cannot encode) in
what ``responses-conformance`` prints on standard output is written as its escape: before,
``report --format json`` and ``check`` raised UnicodeEncodeError on a real (UTF-8, strict)
standard output, a traceback after the reports were written."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "docs" / "vendors" / "matrix" / "index.json"
TEXT_STREAM = ROOT / "tests" / "data" / "openai-recorded" / "streams" / "azure-text.1.jsonl"


def _strict_stdout(monkeypatch: pytest.MonkeyPatch) -> io.BytesIO:
    """Standard output as a terminal or a pipe has it: UTF-8, errors strict."""
    buffer = io.BytesIO()
    stream = io.TextIOWrapper(buffer, encoding="utf-8", errors="strict", write_through=True)
    monkeypatch.setattr(sys, "stdout", stream)
    return buffer


def _index_with(reason: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    name = next(iter(doc["targets"]))
    doc["targets"] = {name: doc["targets"][name]}
    doc["targets"][name]["reason"] = reason
    return doc


def test_report_json_escapes_a_lone_surrogate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    index = tmp_path / "in.json"
    index.write_text(json.dumps(_index_with("odd \ud800 text"), ensure_ascii=True))
    buffer = _strict_stdout(monkeypatch)
    code = main(["report", "--format", "json", "--report-dir", str(tmp_path / "out"), str(index)])
    assert code in (0, 1)
    text = buffer.getvalue().decode("utf-8")  # strict: it is UTF-8
    assert '"reason": "odd \\ud800 text"' in text
    (doc,) = [json.loads(text)]
    assert next(iter(doc["targets"].values()))["reason"] == "odd \ud800 text"  # the same string


def test_report_json_of_plain_text_is_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The near miss: non-ASCII text that UTF-8 encodes is written as it is, not escaped."""
    index = tmp_path / "in.json"
    index.write_text(json.dumps(_index_with("§2.1 — déjà vu 🙂"), ensure_ascii=True))
    buffer = _strict_stdout(monkeypatch)
    code = main(["report", "--format", "json", "--report-dir", str(tmp_path / "out"), str(index)])
    assert code in (0, 1)
    assert '"reason": "§2.1 — déjà vu 🙂"' in buffer.getvalue().decode("utf-8")


def _surrogate_stream(tmp_path: Path) -> Path:
    """The recorded text stream with a lone surrogate in a delta and an unknown event type."""
    events = [json.loads(line) for line in TEXT_STREAM.read_text().splitlines() if line.strip()]
    for event in events:
        if event["type"] == "response.output_text.delta":
            event["delta"] = "a\ud800b"
            break
    events[1]["type"] = "response.\ud800"
    path = tmp_path / "surrogate.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=True) + "\n" for e in events))
    return path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_check_escapes_a_lone_surrogate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fmt: str
) -> None:
    path = _surrogate_stream(tmp_path)
    buffer = _strict_stdout(monkeypatch)
    code = main(["check", "--format", fmt, "-v", str(path)] if fmt == "text" else
                ["check", "--format", fmt, str(path)])  # fmt: skip
    assert code == 1
    text = buffer.getvalue().decode("utf-8")
    assert "\\ud800" in text
    if fmt == "json":
        assert json.loads(text)["files"][0]["passed"] is False


def test_printable() -> None:
    from conformance.catalog.render import printable

    assert printable("a\ud800b\udfff") == "a\\ud800b\\udfff"
    assert printable("déjà 🙂 \\u00e9") == "déjà 🙂 \\u00e9"
