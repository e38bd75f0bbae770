"""``response.logprobs.delivered`` (conformance/sections/s7_8_logprobs.py, docs/spec.md §7.8):
logprobs a request's ``include`` asked for come on its text deltas, done events and parts — judged
against the request by the stream rule, the body rule, a WebSocket lane's finished items, and
``check`` on a cassette."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cassettes import CassetteWriter
from conformance.catalog.registry import Level
from conformance.cli import main
from conformance.examples.build import at, find, text_stream
from conformance.sections.against_request import (
    judge_body_against_request,
    judge_item_against_request,
    judge_stream_against_request,
)
from conformance.sections.s7_8_logprobs import LOGPROBS_DELIVERED

DELIVERED = LOGPROBS_DELIVERED.id
ASKS = {"model": "gpt-5.1", "input": "Hi", "include": ["message.output_text.logprobs"]}


def _lp(token: str) -> dict[str, Any]:
    return {"token": token, "logprob": -0.5, "bytes": list(token.encode()), "top_logprobs": []}


def _stream(*, deltas: bool = True, done: bool = True, part: bool = True) -> list[dict[str, Any]]:
    events = text_stream()
    tokens = [_lp("Hel"), _lp("lo")]
    if deltas:
        for nth, lp in enumerate(tokens):
            at(events, find(events, "response.output_text.delta", nth), "logprobs", [lp])
    if done:
        at(events, find(events, "response.output_text.done"), "logprobs", tokens)
    if part:
        at(events, find(events, "response.output_item.done"), "item.content.0.logprobs", tokens)
        at(events, "response.completed", "response.output.0.content.0.logprobs", tokens)
    return events


def _ids(result: tuple[list[Any], set[str]]) -> tuple[list[str], bool]:
    return [v.check_id for v in result[0]], DELIVERED in result[1]


def test_the_check_is_a_should() -> None:
    assert LOGPROBS_DELIVERED.level is Level.SHOULD


@pytest.mark.parametrize(
    ("kwargs", "found"),
    [
        ({}, []),
        ({"deltas": False}, [DELIVERED]),  # `logprobs: []` on both deltas: one finding
        ({"done": False}, [DELIVERED]),
        ({"deltas": False, "done": False}, [DELIVERED, DELIVERED]),
        ({"part": False}, []),  # the stream rule judges events; the parts are the body's
    ],
)
def test_stream(kwargs: dict[str, bool], found: list[str]) -> None:
    assert _ids(judge_stream_against_request(ASKS, _stream(**kwargs))) == (found, True)


def test_a_finding_counts_its_offenders() -> None:
    violations, _ = judge_stream_against_request(ASKS, _stream(deltas=False))
    assert "2 `output_text.delta`(s) without" in violations[0].actual


@pytest.mark.parametrize("include", [None, [], ["reasoning.encrypted_content"]])
def test_not_asked_for_is_not_judged(include: list[str] | None) -> None:
    request = dict(ASKS, include=include)
    assert _ids(judge_stream_against_request(request, _stream(deltas=False, done=False))) == (
        [],
        False,
    )


def test_empty_text_is_not_judged() -> None:
    events = text_stream(("",))
    assert _ids(judge_stream_against_request(ASKS, events)) == ([], False)


@pytest.mark.parametrize(("value", "fails"), [([_lp("Hello")], False), ([], True), (None, True)])
def test_body_and_item(value: Any, fails: bool) -> None:
    body = _stream()[-1]["response"]
    body["output"][0]["content"][0]["logprobs"] = value
    want = ([DELIVERED] if fails else [], True)
    assert _ids(judge_body_against_request(ASKS, body)) == want
    assert _ids(judge_item_against_request(ASKS, body["output"][0], 7)) == want


def _cassette(folder: Path, request: dict[str, Any], answer: bytes) -> Path:
    writer = CassetteWriter(folder)
    rec = writer.begin(
        "POST",
        "/v1/responses",
        [("content-type", "application/json")],
        json.dumps(request).encode(),
    )
    rec.response(200, [("content-type", "application/json")])
    rec.chunk(answer)
    rec.finish()
    return folder


def test_check_on_a_cassette(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def run(body: dict[str, Any], name: str, *strict: str) -> tuple[int, list[str]]:
        folder = _cassette(tmp_path / name, ASKS, json.dumps(body).encode())
        code = main(["check", *strict, "--format", "json", str(folder)])
        doc = json.loads(capsys.readouterr().out)
        return code, [v["check_id"] for f in doc["files"] for v in f["violations"]]

    bare = text_stream()[-1]["response"]  # `logprobs: []` on its part
    assert run(bare, "bad") == (0, [DELIVERED])  # a SHOULD: reported, fails only --strict
    assert run(bare, "bad-strict", "--strict") == (1, [DELIVERED])
    assert run(_stream()[-1]["response"], "good", "--strict") == (0, [])
