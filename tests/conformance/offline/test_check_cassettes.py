"""``responses-conformance check DIR``: every exchange of a cassette judged (docs/cassettes.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cassettes import CassetteWriter, read_cassette, secret_forms
from conformance.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "cassettes" / "pydantic-ai"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _event(kind: str, seq: int, **fields: object) -> bytes:
    data = json.dumps({"type": kind, "sequence_number": seq, **fields}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n".encode()


# A real stream (OpenAI, background mode; tests/data/cassettes/README.md): one event per chunk.
REAL = read_cassette(DATA / "test_background_mode_streaming_vcr.yaml")[0]


def _stream() -> list[bytes]:
    return [c.data for c in REAL.chunks]


def _final() -> dict[str, Any]:
    last = json.loads(_stream()[-1].split(b"data: ", 1)[1])
    assert last["type"] == "response.completed"
    return dict(last["response"])


def _cassette(folder: Path, exchanges: list[tuple[str, str, int, str, list[bytes]]]) -> Path:
    writer = CassetteWriter(folder)
    for method, target, status, content_type, chunks in exchanges:
        rec = writer.begin(method, target, [("content-type", "application/json")], b"{}")
        rec.response(status, [("content-type", content_type)])
        for chunk in chunks:
            rec.chunk(chunk)
        rec.finish()
    return folder


SSE, JSON = "text/event-stream", "application/json"


def test_the_real_vcr_cassettes_pass(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", "--strict", "--format", "json", str(DATA))
    doc = json.loads(out)
    assert code == 0, out
    paths = [f["path"] for f in doc["files"]]
    assert len(paths) == 17 and all("#" in p for p in paths)
    kinds = {f["kind"] for f in doc["files"]}
    assert {"sse", "response", "conversation", "conversation_deleted"} <= kinds
    assert doc["unreadable"] == [] and "skipped" not in doc


def test_a_bad_stream_in_a_cassette_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cut = _stream()[:-1]  # no terminal event
    folder = _cassette(tmp_path / "c", [("POST", "/v1/responses", 200, SSE, cut)])
    code, out, _ = _run(capsys, "check", "--format", "json", str(folder))
    doc = json.loads(out)
    assert code == 1
    (verdict,) = doc["files"]
    assert verdict["path"].endswith("000001-POST-responses.jsonl") and not verdict["passed"]
    assert verdict["violations"]


def test_resume_context_comes_from_the_request(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rest = _stream()[4:]  # a resumed stream: the events after sequence number 3
    target = f"/v1/responses/{_final()['id']}?stream=true&starting_after=3"
    folder = _cassette(tmp_path / "c", [("GET", target, 200, SSE, rest)])
    assert _run(capsys, "check", str(folder))[0] == 0
    plain = _cassette(tmp_path / "d", [("POST", "/v1/responses", 200, SSE, rest)])
    assert _run(capsys, "check", str(plain))[0] == 1  # the same bytes without that context


def test_a_retrieve_must_match_what_the_stream_produced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    final = _final()
    good = json.dumps({**final, "billing": {"payer": "developer"}}).encode()  # OpenAI adds it
    other = dict(final, model="another-model")
    where = f"/v1/responses/{final['id']}"
    exchanges = [
        ("POST", "/v1/responses", 200, SSE, _stream()),
        ("GET", where, 200, JSON, [good]),
    ]
    assert _run(capsys, "check", str(_cassette(tmp_path / "a", exchanges)))[0] == 0
    exchanges[1] = ("GET", where, 200, JSON, [json.dumps(other).encode()])
    code, out, _ = _run(
        capsys, "check", "--format", "json", str(_cassette(tmp_path / "b", exchanges))
    )
    assert code == 1
    ids = [v["check_id"] for f in json.loads(out)["files"] for v in f["violations"]]
    assert "live.store.retrieve_equals" in ids


def test_skipped_and_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = _cassette(
        tmp_path / "c",
        [
            ("GET", "/v1/models", 200, JSON, [b'{"data":[]}']),
            ("POST", "/v1/responses", 200, SSE, _stream()),
        ],
    )
    code, out, _ = _run(capsys, "check", str(folder))
    assert code == 0 and "SKIP" in out and "outside the Responses surface" in out
    assert "1 passed, 0 failed, 1 skipped" in out
    (folder / "000009-GET-bad.jsonl").write_text("{not json\n")
    code, _, err = _run(capsys, "check", str(folder))
    assert code == 2 and "000009-GET-bad.jsonl:1: not JSON" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _run(capsys, "check", str(empty))[0] == 2


def test_no_canary_in_a_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    key, cookie = "sk-canary-check-0123456789abcdef", "canary-cookie-check-98765432"
    writer = CassetteWriter(tmp_path / "c", secrets=[key])
    rec = writer.begin(
        "POST",
        "/v1/responses",
        [("authorization", f"Bearer {key}"), ("cookie", f"s={cookie}")],
        json.dumps({"input": key}).encode(),
    )
    rec.response(200, [("content-type", SSE), ("set-cookie", f"s={cookie}")])
    # the key and cookie echoed where a violation quotes them (an `error` on a completed response)
    leaked = dict(_final(), error={"code": key, "message": f"key {key} cookie {cookie}"})
    for chunk in [*_stream()[:-1], _event("response.completed", 16, response=leaked)]:
        rec.chunk(chunk)
    rec.finish()
    reports = []
    for fmt in ("text", "json"):
        reports.append(_run(capsys, "check", "-v", "--format", fmt, str(tmp_path / "c"))[1])
    assert all("[REDACTED]" in report for report in reports)  # the echo reached the report...
    for secret in (key, cookie):
        for report in reports:  # ...in no form
            assert not [f for f in secret_forms(secret) if f in report]


_HEAD = '{"type":"request","format":"responses-cassette/1","seq":1,"method":"GET","target":"/"}\n'


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("deep.yaml", "interactions: " + "[" * 20_000 + "]" * 20_000, "nested too deeply"),
        ("date.yaml", "a: !!timestamp 2001-13-99\n", "month must be in 1..12"),
        ("big.jsonl", _HEAD + '{"type":"end","t":' + "9" * 5000 + "}\n", "big.jsonl:2: not JSON"),
        (
            "deep.jsonl",
            _HEAD + "[" * 100_000 + "]" * 100_000 + "\n",
            "deep.jsonl:2: JSON nested too deeply",
        ),
    ],
)
def test_a_garbage_cassette_is_unreadable_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, message: str
) -> None:
    (tmp_path / name).write_text(text)
    code, _, err = _run(capsys, "check", str(tmp_path / name))
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize(("depth", "code"), [(64, 2), (63, 0)])
def test_a_cassette_nested_past_the_bound_is_unreadable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, depth: int, code: int
) -> None:
    """The judge's own input: an exchange file whose line nests past 64 levels is refused before
    it is parsed (exit 2, one line); 64 levels is read (the header line is 1, its extra field
    ``depth`` more)."""
    folder = _cassette(tmp_path / "c", [("POST", "/v1/responses", 200, SSE, _stream())])
    (path,) = folder.glob("*.jsonl")
    head, rest = path.read_bytes().split(b"\n", 1)
    deep = b"[" * depth + b"]" * depth
    path.write_bytes(head[:-1] + b',"x":' + deep + b"}\n" + rest)
    got, out, err = _run(capsys, "check", str(folder))
    assert got == code, out + err
    assert ("more than 64 levels" in err) is (code == 2), err
