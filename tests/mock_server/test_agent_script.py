"""Agent scripts: the mock calls a named tool with given or schema-valid
arguments at each step of a turn, then answers — from a header, metadata or ``--script``, and the
same bytes on every run."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from conformance.offline.recorded import check_bytes
from mock_server.agent_script import Call, ScriptError, parse
from mock_server.app import MockSettings
from mock_server.cli import build_parser
from mock_server.cli import main as mock_main
from mock_server.testing import InProcessMock

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "exec_command",
        "description": "Run a shell command.",
        "parameters": {
            "type": "object",
            "properties": {"cmd": {"type": "string"}, "timeout_ms": {"type": "integer"}},
            "required": ["cmd"],
            "additionalProperties": False,
        },
    },
    {
        "type": "function",
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
]

SCRIPT = {
    "rules": [
        {"when": "CONTEXT CHECKPOINT", "steps": [{"say": "Summary: the user listed files."}]},
        {
            "steps": [
                {"call": ["shell", "exec_command"], "arguments": {"cmd": "ls -1"}},
                {"call": "read_file"},
                {"say": "Done: two files."},
            ]
        },
    ]
}


@pytest.fixture
def mock() -> Iterator[InProcessMock]:
    handle = InProcessMock(MockSettings(frozen_time=1_700_000_000))
    yield handle
    handle.close()


def _run_task(client: openai.OpenAI, headers: dict[str, str]) -> list[Any]:
    """A minimal agent loop: call tools until the model answers; returns every response."""
    history: list[Any] = [{"role": "user", "content": "List the files and read one."}]
    responses = []
    for _ in range(6):
        response = client.responses.create(
            model="mock", input=history, tools=TOOLS, store=False, extra_headers=headers
        )
        responses.append(response)
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return responses
        history += [item.model_dump(exclude_none=True) for item in response.output]
        for call in calls:
            history.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": "a.txt\nb.txt"}
            )
    raise AssertionError("the script never answered")


def test_header_script_drives_a_turn(mock: InProcessMock) -> None:
    responses = _run_task(mock.client(), {"x-mock-script": json.dumps(SCRIPT)})
    assert len(responses) == 3
    first = responses[0].output[-1]
    assert (first.type, first.name, json.loads(first.arguments)) == (
        "function_call",
        "exec_command",  # "shell" is not declared: the next name is
        {"cmd": "ls -1"},
    )
    second = responses[1].output[-1]
    assert second.name == "read_file"
    assert isinstance(json.loads(second.arguments)["path"], str)  # valid for the schema
    assert responses[2].output_text == "Done: two files."


def test_same_bytes_every_run() -> None:
    outputs = []
    for _ in range(2):
        handle = InProcessMock(MockSettings(frozen_time=1_700_000_000))
        try:
            responses = _run_task(handle.client(), {"x-mock-script": json.dumps(SCRIPT)})
            outputs.append([r.model_dump_json() for r in responses])
        finally:
            handle.close()
    assert outputs[0] == outputs[1]


def test_rules_match_the_last_user_message(mock: InProcessMock) -> None:
    response = mock.client().responses.create(
        model="mock",
        input="You are performing a CONTEXT CHECKPOINT COMPACTION.",
        tools=TOOLS,
        extra_headers={"x-mock-script": json.dumps(SCRIPT)},
    )
    assert response.output_text == "Summary: the user listed files."


def test_past_the_last_step_the_mock_replies(mock: InProcessMock) -> None:
    response = mock.client().responses.create(
        model="mock",
        input=[
            {"role": "user", "content": "Remember this code word: PLUM."},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "What was the code word I asked you to remember?"},
        ],
        tools=TOOLS,
        extra_headers={"x-mock-script": '{"steps": []}'},
    )
    assert response.output_text == "The code word was PLUM."


def test_metadata_script_and_reasoning_before_each_step(mock: InProcessMock) -> None:
    steps = [{"call": "exec_command", "arguments": {"cmd": "pwd"}}]
    response = mock.client().responses.create(
        model="mock",
        input="Where am I?",
        tools=TOOLS,
        reasoning={"effort": "low", "summary": "auto"},
        metadata={"mock_script": json.dumps(steps)},
    )
    assert [item.type for item in response.output] == ["reasoning", "function_call"]


def test_streams_pass_the_judge(mock: InProcessMock) -> None:
    client = mock.client()
    with client.responses.with_streaming_response.create(
        model="mock",
        input="List the files.",
        tools=TOOLS,
        stream=True,
        extra_headers={"x-mock-script": json.dumps(SCRIPT)},
    ) as raw:
        data = raw.read()
    verdict = check_bytes(data, name="scripted.sse")
    assert verdict.events > 5
    assert verdict.failing(strict=True) == []


def test_undeclared_tool_and_bad_script_are_400(mock: InProcessMock) -> None:
    client = mock.client()
    with pytest.raises(openai.BadRequestError, match="does not declare"):
        client.responses.create(
            model="mock",
            input="hi",
            tools=TOOLS,
            extra_headers={"x-mock-script": '[{"call": "apply_patch"}]'},
        )
    with pytest.raises(openai.BadRequestError, match="x-mock-script"):
        client.responses.create(
            model="mock", input="hi", extra_headers={"x-mock-script": '{"steps": 3}'}
        )


@pytest.mark.parametrize(
    "text",
    ["", "[1]", '{"rules": []}', '[{"say": 1}]', '[{"call": []}]', '[{"call": "a", "say": "b"}]'],
)
def test_malformed_scripts(text: str) -> None:
    with pytest.raises(ScriptError):
        parse(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"steps": [], "step": []}', "script: unknown key(s) 'step'; expected when, steps"),
        ('{"rules": [{"steps": []}], "steps": [{"say": "x"}]}', "script: unknown key(s) 'steps'"),
        ('{"rules": [{"whn": "x", "steps": []}]}', "rules[0]: unknown key(s) 'whn'"),
        ('[{"say": "x", "bogus": 1}]', "script.steps[0]: unknown key(s) 'bogus'; expected say"),
        ('[{"scenario": "auto", "say_": 1}]', "script.steps[0]: unknown key(s) 'say_'"),
        ('[{"call": "f", "argument": {}}]', "script.steps[0]: unknown key(s) 'argument'"),
        ('[{"calls": [{"call": "f", "args": 1}]}]', "script.steps[0].calls[0]: unknown key(s)"),
        ('[{"calls": [{"call": "f"}], "n": 2}]', "script.steps[0]: unknown key(s) 'n'"),
    ],
)
def test_an_unknown_key_is_refused_not_dropped(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: the typo was ignored (``argument``: arguments generated instead of these)."""
    with pytest.raises(ScriptError, match=re.escape(message)):
        parse(text)
    path = tmp_path / "script.json"
    path.write_text(text)
    with pytest.raises(SystemExit) as exit_info:
        mock_main(["--script", str(path), "--port", "0"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and f"--script: {path}: " in err and message in err


def test_the_near_misses_of_unknown_keys_parse() -> None:
    script = parse(
        '{"rules": [{"when": "x", "steps": [{"call": "f", "arguments": {}}, '
        '{"calls": [{"call": ["f", "g"], "arguments": "{}"}]}, {"scenario": "auto"}]}]}'
    )
    (rule,) = script.rules
    assert rule.when == "x" and rule.steps[0].calls == (Call(("f",), "{}"),)


def test_cli_script_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(SCRIPT))
    args = build_parser().parse_args(["--script", str(path)])
    assert args.script == path
    path.write_text("{")
    with pytest.raises(SystemExit) as exit_info:
        mock_main(["--script", str(path), "--port", "0"])
    assert exit_info.value.code == 2
    assert "--script" in capsys.readouterr().err


def test_settings_script_is_the_default(tmp_path: Path) -> None:
    handle = InProcessMock(MockSettings(script=parse(json.dumps([{"say": "Scripted."}]))))
    try:
        client = handle.client()
        assert client.responses.create(model="mock", input="hi").output_text == "Scripted."
        # a request's own scenario still wins
        other = client.responses.create(model="mock-refusal", input="hi")
        assert other.output[0].content[0].type == "refusal"
    finally:
        handle.close()
