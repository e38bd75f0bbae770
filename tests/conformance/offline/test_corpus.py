"""The judge accepts everything OpenAI really sends. Every recording, in both stream formats, in strict mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import SSEStreamValidator, check_file, failing

CORPUS = Path(__file__).parents[2] / "data" / "openai-recorded"
STREAMS = sorted((CORPUS / "streams").glob("*.jsonl"))
BODIES = sorted((CORPUS / "bodies").glob("*.json"))
ERRORS = sorted((CORPUS / "errors").glob("*.json"))


def test_corpus_is_complete() -> None:
    # The counts the corpus README states; a lost file would silently shrink the proof.
    assert (len(STREAMS), len(BODIES), len(ERRORS)) == (48, 44, 12)


def _fail_text(violations: list) -> str:  # type: ignore[type-arg]
    return "\n".join(v.format() for v in violations)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_stream_passes_strict(path: Path) -> None:
    verdict = check_file(path)
    assert verdict.kind == "jsonl"
    bad = failing(verdict.violations, strict=True)
    assert not bad, _fail_text(bad)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_stream_as_sse_bytes_passes_strict(path: Path) -> None:
    # The same events framed as a server sends them, fed in awkward 7-byte chunks.
    body = b"".join(
        b"event: " + _type(line) + b"\ndata: " + line + b"\n\n"
        for line in path.read_bytes().splitlines()
        if line.strip()
    )
    sse = SSEStreamValidator()
    for i in range(0, len(body), 7):
        sse.feed(body[i : i + 7])
    sse.close()
    bad = failing(sse.violations, strict=True)
    assert not bad, _fail_text(bad)
    assert sse.validator.terminal is not None


def _type(line: bytes) -> bytes:
    import json

    return str(json.loads(line)["type"]).encode()


@pytest.mark.parametrize("path", BODIES, ids=lambda p: p.name)
def test_body_passes_strict(path: Path) -> None:
    verdict = check_file(path)
    assert verdict.kind == "response"
    bad = failing(verdict.violations, strict=True)
    assert not bad, _fail_text(bad)


@pytest.mark.parametrize("path", ERRORS, ids=lambda p: p.name)
def test_error_body_passes_strict(path: Path) -> None:
    verdict = check_file(path)
    assert verdict.kind == "error"
    bad = failing(verdict.violations, strict=True)
    assert not bad, _fail_text(bad)
