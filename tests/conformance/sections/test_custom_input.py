"""``response.custom_tool_call.grammar`` (conformance/sections/s1_7_custom_input.py): a custom
tool's input against the grammar its request declared, wherever the judge sees both — the rule
itself, ``check`` on a cassette, the proxy (the suite: tests/suite/test_live_examples.py, whose
off-grammar server fires it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cassettes import CassetteWriter
from conformance.cli import main
from conformance.examples.build import custom_tool_body, custom_tool_stream, sse
from conformance.proxy.judge import ExchangeJudge
from conformance.proxy.kinds import classify
from conformance.sections.against_request import judged_in_body, judged_in_stream
from conformance.sections.s1_7_custom_input import (
    CUSTOM_INPUT_GRAMMAR,
    judge_custom_inputs,
)
from conformance.suite.grammars import APPLY_PATCH

ID = CUSTOM_INPUT_GRAMMAR.id
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+Hello, world!\n*** End Patch\n"
NOT_A_PATCH = "Hello, world!"


def _tool(name: str = "apply_patch", **fmt: str) -> dict[str, Any]:
    grammar = fmt or {"syntax": "lark", "definition": APPLY_PATCH}
    return {"type": "custom", "name": name, "format": {"type": "grammar", **grammar}}


def _request(*tools: dict[str, Any], stream: bool = False) -> dict[str, Any]:
    return {"model": "gpt-5.5", "input": "Add hello.txt", "tools": list(tools), "stream": stream}


def _ids(result: tuple[list[Any], bool]) -> tuple[list[str], bool]:
    return [v.check_id for v in result[0]], result[1]


def test_body_and_stream() -> None:
    request = _request(_tool())
    assert _ids(
        judged_in_body(judge_custom_inputs, request, custom_tool_body("apply_patch", PATCH))
    ) == (
        [],
        True,
    )
    bad = judged_in_body(judge_custom_inputs, request, custom_tool_body("apply_patch", NOT_A_PATCH))
    assert _ids(bad) == ([ID], True)
    assert bad[0][0].path == "output[0].input" and "refuses byte 0" in bad[0][0].actual
    (found,), judged = judged_in_stream(
        judge_custom_inputs, request, custom_tool_stream("apply_patch", NOT_A_PATCH)
    )
    assert judged and found.check_id == ID and found.event_index == 5 and found.path == "item.input"


@pytest.mark.parametrize(
    ("request_tools", "why"),
    [
        ([{"type": "custom", "name": "apply_patch"}], "free text: no grammar"),
        ([{"type": "custom", "name": "apply_patch", "format": {"type": "text"}}], "text format"),
        ([_tool("other")], "another tool's grammar"),
        ([_tool(syntax="regex", definition="(?=H)H.*")], "a grammar LLGuidance cannot compile"),
        ([{"type": "function", "name": "apply_patch", "parameters": {}}], "a function tool"),
    ],
)
def test_nothing_to_judge(request_tools: list[dict[str, Any]], why: str) -> None:
    body = custom_tool_body("apply_patch", NOT_A_PATCH)
    assert _ids(judged_in_body(judge_custom_inputs, _request(*request_tools), body)) == (
        [],
        False,
    ), why
    assert _ids(judged_in_body(judge_custom_inputs, None, body)) == ([], False)


def test_a_cut_call_is_not_judged() -> None:
    request = _request(_tool())
    body = custom_tool_body("apply_patch", "*** Begin Patch\n")
    body["output"][0]["status"] = "incomplete"
    assert _ids(judged_in_body(judge_custom_inputs, request, body)) == ([], False)
    del body["output"][0]["status"]
    assert _ids(judged_in_body(judge_custom_inputs, request, body)) == ([ID], True)
    body["status"] = "incomplete"  # no item status: the response's cut may have cut it
    assert _ids(judged_in_body(judge_custom_inputs, request, body)) == ([], False)


def test_namespaced_and_deferred_tools() -> None:
    namespace = {"type": "namespace", "name": "files", "tools": [_tool()]}
    body = custom_tool_body("apply_patch", NOT_A_PATCH)
    body["output"][0]["namespace"] = "files"
    assert _ids(judged_in_body(judge_custom_inputs, _request(namespace), body)) == ([ID], True)
    # a deferred top-level tool's call carries its own name as namespace (docs/spec.md §1.7)
    body["output"][0]["namespace"] = "apply_patch"
    assert _ids(judged_in_body(judge_custom_inputs, _request(_tool()), body)) == ([ID], True)
    body["output"][0]["namespace"] = "elsewhere"
    assert _ids(judged_in_body(judge_custom_inputs, _request(_tool()), body)) == ([], False)


def _cassette(folder: Path, request: dict[str, Any], answer: bytes, content_type: str) -> Path:
    writer = CassetteWriter(folder)
    body = json.dumps(request).encode()
    rec = writer.begin("POST", "/v1/responses", [("content-type", "application/json")], body)
    rec.response(200, [("content-type", content_type)])
    rec.chunk(answer)
    rec.finish()
    return folder


@pytest.mark.parametrize("streamed", [False, True], ids=["body", "stream"])
def test_check_on_a_cassette(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, streamed: bool
) -> None:
    def run(text: str, name: str) -> tuple[int, list[str]]:
        if streamed:
            answer, kind = sse(custom_tool_stream("apply_patch", text)), "text/event-stream"
        else:
            answer, kind = json.dumps(custom_tool_body("apply_patch", text)).encode(), "x/json"
        folder = _cassette(tmp_path / name, _request(_tool(), stream=streamed), answer, kind)
        code = main(["check", "--format", "json", str(folder)])
        doc = json.loads(capsys.readouterr().out)
        return code, [v["check_id"] for f in doc["files"] for v in f["violations"]]

    assert run(NOT_A_PATCH, "bad") == (1, [ID])
    assert run(PATCH, "good") == (0, [])


def test_check_of_a_file_alone_has_no_request(tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(custom_tool_body("apply_patch", NOT_A_PATCH)))
    assert main(["check", str(path)]) == 0


@pytest.mark.parametrize("streamed", [False, True], ids=["body", "stream"])
def test_the_proxy(streamed: bool) -> None:
    def verdict(text: str) -> tuple[list[str], bool]:
        info = classify("POST", "/responses", "", _request(_tool(), stream=streamed))
        judge = ExchangeJudge(
            info, profiles=frozenset({"core"}), max_events=1000, max_body_bytes=1 << 20
        )
        if streamed:
            judge.start(200, "text/event-stream")
            judge.feed(sse(custom_tool_stream("apply_patch", text)))
        else:
            judge.start(200, "application/json")
            judge.feed(json.dumps(custom_tool_body("apply_patch", text)).encode())
        done = judge.finish()
        return [v.check_id for v in done.violations], ID in done.exercised

    assert verdict(NOT_A_PATCH) == ([ID], True)
    assert verdict(PATCH) == ([], True)


def test_a_websocket_session() -> None:
    from conformance.websocket import judge_session

    def session(text: str) -> list[str]:
        create = {"type": "response.create", **_request(_tool())}
        create.pop("stream")
        frames: list[tuple[str, object]] = [("client", create)]
        frames += [("server", e) for e in custom_tool_stream("apply_patch", text)]
        return [v.check_id for v in judge_session(frames)[1]]

    assert session(NOT_A_PATCH) == [ID]
    assert session(PATCH) == []
