"""Opaque fields checked as opaque (#32 item 3): ``stream.output.opaque_consistent``
(conformance/sections/s2_9_opaque.py) and ``response.reasoning.encrypted_content_included``
(conformance/sections/s4_7_include.py), wherever the judge sees them — the stream validator,
the rule against its request, ``check`` on a cassette (a real one of OpenAI included), the proxy
and a WebSocket session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cassettes import CassetteWriter
from conformance.cli import main
from conformance.examples.build import at, find, reasoning_stream, sse
from conformance.proxy.judge import ExchangeJudge
from conformance.proxy.kinds import classify
from conformance.sections.against_request import judged_in_body, judged_in_stream
from conformance.sections.s2_9_opaque import OPAQUE_CONSISTENT
from conformance.sections.s4_7_include import (
    ENCRYPTED_INCLUDED,
    judge_included,
)
from conformance.validator import StreamValidator

OPAQUE, INCLUDED = OPAQUE_CONSISTENT.id, ENCRYPTED_INCLUDED.id
BLOB = "gAAAAABpRG9uZQ"
ABSENT = object()
PYDANTIC = Path("/work/shared/corpus/cassettes/pydantic-ai")


def _stream(done: Any = ABSENT, final: Any = ABSENT, *, key: str = "encrypted_content") -> Any:
    events = reasoning_stream()
    if done is not ABSENT:
        at(events, find(events, "response.output_item.done"), f"item.{key}", done)
    if final is not ABSENT:
        at(events, "response.completed", f"response.output.0.{key}", final)
    return events


def _judge(events: Any) -> tuple[list[str], set[str]]:
    validator = StreamValidator(coverage=True)
    for event in events:
        validator.feed(event)
    validator.close()
    return [v.check_id for v in validator.violations], validator.exercised


@pytest.mark.parametrize(
    ("done", "final", "fails"),
    [
        (None, BLOB, True),  # the blob only in the terminal output: what Codex loses
        (ABSENT, BLOB, True),
        ("", BLOB, True),
        (BLOB, "", True),
        (BLOB, None, True),
        ("", "", True),  # present, but empty in both
        (BLOB, BLOB + "x", False),  # re-encrypted: every recorded stream
        (BLOB, BLOB, False),
    ],
)
def test_opaque_consistent(done: Any, final: Any, fails: bool) -> None:
    for key in ("encrypted_content", "fingerprint"):
        ids, exercised = _judge(_stream(done, final, key=key))
        assert (OPAQUE in ids) is fails, key
        assert OPAQUE in exercised


@pytest.mark.parametrize(("done", "final"), [(ABSENT, ABSENT), (None, None), (None, ABSENT)])
def test_not_asked_for_is_not_judged(done: Any, final: Any) -> None:
    ids, exercised = _judge(_stream(done, final))
    assert OPAQUE not in ids and OPAQUE not in exercised


def _request(include: list[str] | None = None, *, stream: bool = False) -> dict[str, Any]:
    request: dict[str, Any] = {"model": "gpt-5", "input": "Hi", "store": False, "stream": stream}
    if include is not None:
        request["include"] = include
    return request


ASKS = _request(["reasoning.encrypted_content"])


def _ids(result: tuple[list[Any], bool]) -> tuple[list[str], bool]:
    return [v.check_id for v in result[0]], result[1]


@pytest.mark.parametrize(
    ("value", "fails"), [(ABSENT, True), (None, True), ("", True), (7, True), (BLOB, False)]
)
def test_included_in_a_stream_and_a_body(value: Any, fails: bool) -> None:
    events = _stream(value, value)
    body = events[-1]["response"]
    want = ([INCLUDED] if fails else [], True)
    assert _ids(judged_in_stream(judge_included, ASKS, events)) == want
    assert _ids(judged_in_body(judge_included, ASKS, body)) == want


@pytest.mark.parametrize("include", [None, [], ["message.output_text.logprobs"]])
def test_not_asked_for(include: list[str] | None) -> None:
    events = _stream(None, None)
    assert _ids(judged_in_stream(judge_included, _request(include), events)) == ([], False)


def test_a_cut_reasoning_item_is_not_judged() -> None:
    events = _stream(None, None)
    at(events, find(events, "response.output_item.done"), "item.status", "incomplete")
    assert _ids(judged_in_stream(judge_included, ASKS, events)) == ([], False)


def _cassette(folder: Path, request: dict[str, Any], answer: bytes, content_type: str) -> Path:
    writer = CassetteWriter(folder)
    body = json.dumps(request).encode()
    rec = writer.begin("POST", "/v1/responses", [("content-type", "application/json")], body)
    rec.response(200, [("content-type", content_type)])
    rec.chunk(answer)
    rec.finish()
    return folder


def _check(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, list[str]]:
    code = main(["check", "--format", "json", str(path)])
    doc = json.loads(capsys.readouterr().out)
    return code, [v["check_id"] for f in doc["files"] for v in f["violations"]]


@pytest.mark.parametrize("streamed", [False, True], ids=["body", "stream"])
def test_check_on_a_cassette(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, streamed: bool
) -> None:
    def run(value: Any, name: str) -> tuple[int, list[str]]:
        events = _stream(value, value)
        if streamed:
            answer, kind = sse(events), "text/event-stream"
        else:
            answer, kind = json.dumps(events[-1]["response"]).encode(), "application/json"
        request = _request(["reasoning.encrypted_content"], stream=streamed)
        return _check(capsys, _cassette(tmp_path / name, request, answer, kind))

    assert run(None, "bad") == (1, [INCLUDED])
    assert run(BLOB, "good") == (0, [])


@pytest.mark.skipif(not PYDANTIC.is_dir(), reason="the shared corpus is not on this machine")
def test_openai_answers_what_include_asked_for(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # pydantic-ai's cassette: requests with `include: ["reasoning.encrypted_content"]`, and
    # OpenAI's answers, each reasoning item with its blob; the same with the blobs taken out fails
    real = PYDANTIC / "test_openai_responses_model_thinking_part.yaml"
    assert _check(capsys, real) == (0, [])
    broken = tmp_path / real.name
    text = real.read_text()
    assert "encrypted_content: gAAAA" in text
    broken.write_text(text.replace("encrypted_content: gAAAA", "encrypted_content: null #"))
    code, ids = _check(capsys, broken)
    assert code == 1 and ids and set(ids) == {INCLUDED}


@pytest.mark.parametrize("streamed", [False, True], ids=["body", "stream"])
def test_the_proxy(streamed: bool) -> None:
    def verdict(value: Any) -> tuple[list[str], bool]:
        info = classify("POST", "/responses", "", _request(["reasoning.encrypted_content"]))
        judge = ExchangeJudge(
            info, profiles=frozenset({"core"}), max_events=1000, max_body_bytes=1 << 20
        )
        events = _stream(value, value)
        if streamed:
            judge.start(200, "text/event-stream")
            judge.feed(sse(events))
        else:
            judge.start(200, "application/json")
            judge.feed(json.dumps(events[-1]["response"]).encode())
        done = judge.finish()
        return [v.check_id for v in done.violations], INCLUDED in done.exercised

    assert verdict(None) == ([INCLUDED], True)
    assert verdict(BLOB) == ([], True)


def test_a_websocket_session() -> None:
    from conformance.websocket import judge_session

    def session(value: Any) -> list[str]:
        create = {"type": "response.create", **_request(["reasoning.encrypted_content"])}
        create.pop("stream")
        frames: list[tuple[str, object]] = [("client", create)]
        frames += [("server", e) for e in _stream(value, value)]
        return [v.check_id for v in judge_session(frames)[1]]

    assert session(None) == [INCLUDED]
    assert session(BLOB) == []
