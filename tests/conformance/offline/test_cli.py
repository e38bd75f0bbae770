"""`responses-conformance` from a user's seat: exit codes, formats, every kind of input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.cli import main

CORPUS = Path(__file__).parents[2] / "data" / "openai-recorded"
TEXT_STREAM = CORPUS / "streams" / "azure-text.1.jsonl"


def _events(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write_jsonl(path: Path, events: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_whole_corpus_strict_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    paths = sorted(str(p) for p in CORPUS.glob("*/*.json*"))
    assert len(paths) == 104
    code, out, _ = _run(capsys, "check", "--strict", *paths)
    assert code == 0, out
    assert "104 passed, 0 failed" in out


def test_violation_exits_1_and_json_names_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = _events(TEXT_STREAM)
    for e in events:
        if "output_index" in e:
            e["output_index"] += 1  # KB01
    path = _write_jsonl(tmp_path / "kb01.jsonl", events)
    code, out, _ = _run(capsys, "check", "--format", "json", str(path))
    assert code == 1
    doc = json.loads(out)
    (file,) = doc["files"]
    assert file["passed"] is False
    ids = {v["check_id"] for v in file["violations"]}
    assert "stream.output_index.contiguous" in ids
    first = file["violations"][0]
    assert {"check_id", "level", "event_index", "expected", "actual"} <= first.keys()


def test_text_format_prints_requirement_expected_actual(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    events = _events(TEXT_STREAM)
    events[3]["sequence_number"] = 7
    path = _write_jsonl(tmp_path / "gap.jsonl", events)
    code, out, _ = _run(capsys, "check", str(path))
    assert code == 1
    assert "FAIL" in out and "stream.sequence.contiguous" in out
    assert "requirement:" in out and "expected:" in out and "actual:" in out
    assert "event #3" in out


def test_should_fails_only_under_strict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    events = _events(CORPUS / "streams" / "openai-reasoning-encrypted-content.1.part1.jsonl")
    renamed = False
    for e in events:
        # vLLM's name for a reasoning part event (KB24) — a SHOULD violation
        if e["type"] == "response.content_part.added":
            e["type"] = "response.reasoning_part.added"
            renamed = True
    if not renamed:  # this recording has no content parts: add a nonstandard event instead
        extra = {"type": "response.reasoning_part.added", "sequence_number": 0}
        events.insert(2, extra)
        for i, e in enumerate(events):
            e["sequence_number"] = i
    path = _write_jsonl(tmp_path / "kb24.jsonl", events)
    assert _run(capsys, "check", str(path))[0] == 0
    code, out, _ = _run(capsys, "check", "--strict", str(path))
    assert code == 1
    assert "event.type.nonstandard" in out


def test_resume_after(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    events = _events(TEXT_STREAM)
    tail = _write_jsonl(tmp_path / "resumed.jsonl", events[4:])
    code, out, _ = _run(capsys, "check", "--resume-after", "3", str(tail))
    assert code == 0, out
    code, out, _ = _run(capsys, "check", str(tail))
    assert code == 1
    assert "stream.sequence.start" in out and "stream.lifecycle.created_first" in out
    code, out, _ = _run(capsys, "check", "--resume-after", "2", str(tail))
    assert code == 1 and "stream.sequence.start" in out


def test_raw_sse_capture(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = TEXT_STREAM.read_bytes().splitlines()
    body = b"".join(
        b"event: " + json.loads(x)["type"].encode() + b"\r\ndata: " + x + b"\r\n\r\n" for x in lines
    )
    path = tmp_path / "capture.sse"
    path.write_bytes(b": keep-alive\n\n" + body + b"data: [DONE]\n\n")
    code, out, _ = _run(capsys, "check", "--strict", "--profile", "openresponses", str(path))
    assert "(sse, 9 events)" in out
    # The recording predates Open Responses: it lacks ResponseResource fields.
    assert code == 1 and "response.openresponses.required_fields" in out
    assert _run(capsys, "check", "--strict", str(path))[0] == 0
    # A mismatched event name is a framing violation.
    path.write_bytes(body.replace(b"event: response.in_progress", b"event: response.created"))
    code, out, _ = _run(capsys, "check", str(path))
    assert code == 1 and "sse.event_name.matches_type" in out


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.jsonl", b"", "empty"),
        ("binary.bin", b"\x00\x01\x02garbage", "binary"),
        ("broken.jsonl", b'{"type": "response.created"}\n{not json\n', "line 2 is not JSON"),
        ("array.json", b"[1, 2]", "not an object"),
        ("other.json", b'{"hello": "world"}', "neither"),
        ("prose.txt", b"hello world\n", "neither SSE"),
    ],
)
def test_unreadable_file_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    code, _, err = _run(capsys, "check", str(path), str(TEXT_STREAM))
    assert code == 2
    assert reason in err
    assert "Traceback" not in err


def test_missing_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, "check", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "No such file" in err


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "check")[0] == 2
    assert _run(capsys, "check", "--resume-after", "x", str(TEXT_STREAM))[0] == 2
    assert _run(capsys, "frobnicate")[0] == 2


@pytest.mark.parametrize("bad", ["-1", "x", "1.5", "²", ""])
def test_resume_after_takes_an_event_number(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    # -1 was taken, and judged a recording as "resumed after event #-1".
    code, out, err = _run(capsys, "check", "--resume-after", bad, str(TEXT_STREAM))
    assert code == 2 and out == ""
    assert "--resume-after" in err and "event number" in err and "Traceback" not in err
    assert _run(capsys, "check", "--resume-after", "0", str(TEXT_STREAM))[0] in (0, 1)  # taken


def test_error_body_with_numeric_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "err.json"
    path.write_text(
        json.dumps(
            {
                "error": {
                    "message": "bad",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": 400,
                }
            }
        )
    )
    code, out, _ = _run(capsys, "check", str(path))
    assert code == 1 and "error.code.type" in out  # KB21


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "list", "--format", "json")
    assert code == 0
    checks = json.loads(out)
    ids = [c["id"] for c in checks]
    assert len(ids) == len(set(ids)) > 50
    for c in checks:
        assert c["level"] in ("MUST", "SHOULD", "INFO")
        assert c["clause"] and c["requirement"]
    code, out, _ = _run(capsys, "list")
    assert code == 0 and "stream.sequence.contiguous" in out


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", "--help")
    assert code == 0 and "--resume-after" in out and "--strict" in out


def test_console_script_installed() -> None:
    exe = shutil.which("responses-conformance", path=str(Path(sys.executable).parent))
    assert exe is not None
    proc = subprocess.run(
        [exe, "check", "--strict", str(TEXT_STREAM)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_on_event_hook_and_warm_up() -> None:
    from conformance import SSEStreamValidator, warm_up

    warm_up()
    seen: list[str] = []
    sse = SSEStreamValidator(on_event=lambda e: seen.append(e["type"]))
    body = b"".join(
        b"event: " + json.loads(x)["type"].encode() + b"\ndata: " + x + b"\n\n"
        for x in TEXT_STREAM.read_bytes().splitlines()
    )
    sse.feed(body)
    sse.close()
    assert seen == [e["type"] for e in _events(TEXT_STREAM)]
    assert not sse.violations


def test_evidence_indices_survive_an_undecodable_event() -> None:
    from conformance import SSEStreamValidator

    lines = TEXT_STREAM.read_bytes().splitlines()
    frames = [b"event: x\ndata: " + x + b"\n\n" for x in lines]
    frames.insert(3, b"data: {not json\n\n")
    sse = SSEStreamValidator(keep_events=True)
    sse.feed(b"".join(frames))
    sse.close()
    by_id = {v.check_id: v for v in sse.violations}
    bad = by_id["sse.data.json"]
    assert bad.event_index == 3 and sse.events[3] == "{not json"
    # every later event keeps the index it had in the stream as received
    assert sse.events[4]["sequence_number"] == 3


def test_cancelled_stream_may_end_without_terminal() -> None:
    from conformance import StreamValidator

    events = _events(TEXT_STREAM)[:5]  # cut mid-message, as a cancel does (SPEC §2.13)
    v = StreamValidator()
    for e in events:
        v.feed(e)
    assert v.close(cancelled=True) == []
    v = StreamValidator()
    for e in events:
        v.feed(e)
    assert [x.check_id for x in v.close()] == ["stream.lifecycle.terminal_present"]
