"""Agent-script steps that cannot pass on a failure (``expect`` / ``expect_not`` / ``ok``) and
faults per step (``fault``): each with a failing example and its passing near miss, through the
real ``openai`` SDK over loopback."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import openai
import pytest
from mock_support import sse_events

from mock_server.agent_script import ScriptError, is_error, parse
from mock_server.testing import LoopbackMock

EXEC: dict[str, Any] = {
    "type": "function",
    "name": "exec_command",
    "description": "Runs a command in a PTY, returning output or a session ID.",
    "parameters": {
        "type": "object",
        "properties": {"cmd": {"type": "string"}},
        "required": ["cmd"],
        "additionalProperties": False,
    },
}
WRITE = {"call": "exec_command", "arguments": {"cmd": "echo hi > out.txt"}}
# What Codex 0.169 sends back for exec_command (captured): a failed and a good run.
FAILED = (
    "Chunk ID: 57734b\nWall time: 0.0000 seconds\nProcess exited with code 1\n"
    "Original token count: 13\nOutput:\n/bin/bash: line 1: out.txt: Read-only file system\n"
)
GOOD = "Chunk ID: 830218\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\nhi\n"


def _history(output: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Write hi to out.txt."},
        {"type": "function_call", "call_id": "c1", "name": "exec_command",
         "arguments": json.dumps(WRITE["arguments"])},
        {"type": "function_call_output", "call_id": "c1", "output": output},
    ]  # fmt: skip


def _headers(*steps: dict[str, Any]) -> dict[str, str]:
    return {"x-mock-script": json.dumps({"steps": list(steps)})}


@pytest.mark.parametrize(
    ("output", "error"),
    [
        (FAILED, True),
        (GOOD, False),  # the near miss: exit code 0
        ("Exit code: 2\nWall time: 0.1 seconds\nOutput:\n", True),  # the shell tool's text
        ('{"output": "x", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}', False),
        ('{"output": "", "metadata": {"exit_code": 127}}', True),
        ("An error occurred while running the tool. Please try again. Error: boom", True),
        ("error: no such file", True),
        ("failed to parse function arguments: missing field `cmd`", True),
        ("The errors are listed below: none.", False),  # "error" not at the start
        ("Process exited with code 0 after the retry (code 1 before)", False),
    ],
)
def test_what_is_an_error(output: str, error: bool) -> None:
    assert is_error(output) is error


def test_ok_fails_the_step_on_a_failed_command(responses_mock: LoopbackMock) -> None:
    headers = _headers(WRITE, {"say": "Wrote out.txt.", "ok": True})
    with responses_mock.client(max_retries=0) as client:
        good = client.responses.create(
            model="mock", input=_history(GOOD), tools=[EXEC], extra_headers=headers
        )
        assert good.output_text == "Wrote out.txt."
        # Unstreamed, the failure is an HTTP 400 naming the step, what it expected and got.
        with pytest.raises(openai.BadRequestError) as info:
            client.responses.create(
                model="mock", input=_history(FAILED), tools=[EXEC], extra_headers=headers
            )
    message = str(info.value)
    assert "Mock script check failed at script.steps[1]" in message
    assert "expected a tool output that is not an error" in message
    assert "Process exited with code 1" in message and "Wrote out.txt." not in message


def test_a_failed_check_streams_its_message_then_response_failed(
    responses_mock: LoopbackMock,
) -> None:
    body = {
        "model": "mock",
        "input": _history(FAILED),
        "tools": [EXEC],
        "stream": True,
        "reasoning": {"summary": "auto"},  # as Codex asks: the failure comes after the reasoning
    }
    raw = httpx2.post(
        responses_mock.base_url + "/responses",
        json=body,
        headers=_headers(WRITE, {"say": "Wrote out.txt.", "expect": "hi"}),
    )
    events = sse_events(raw.content)
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert text.startswith("Mock script check failed at script.steps[1]: expected a tool output")
    assert "containing 'hi'" in text and "Read-only file system" in text
    assert [e["type"] for e in events][-2:] == ["error", "response.failed"]
    failed = events[-1]["response"]
    assert failed["error"]["code"] == "invalid_request" and failed["error"]["message"] == text
    assert "Wrote out.txt." not in raw.text


@pytest.mark.parametrize(
    ("check", "output", "passes"),
    [
        ({"expect": "hi"}, GOOD, True),
        ({"expect": "hi"}, FAILED, False),
        ({"expect_not": "Read-only"}, GOOD, True),
        ({"expect_not": "Read-only"}, FAILED, False),
        ({"ok": False}, FAILED, True),  # a step that tests a failure
        ({"ok": False}, GOOD, False),
    ],
)
def test_each_check_and_its_near_miss(
    responses_mock: LoopbackMock, check: dict[str, Any], output: str, passes: bool
) -> None:
    headers = _headers(WRITE, {"say": "Checked.", **check})
    with responses_mock.client(max_retries=0) as client:
        if passes:
            response = client.responses.create(
                model="mock", input=_history(output), tools=[EXEC], extra_headers=headers
            )
            assert response.output_text == "Checked."
        else:
            with pytest.raises(openai.BadRequestError, match="Mock script check failed"):
                client.responses.create(
                    model="mock", input=_history(output), tools=[EXEC], extra_headers=headers
                )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"say": "x", "ok": true}]', "script.steps[0]: the first step has no tool output"),
        ('[{"say": "x"}, {"say": "y", "expekt": "z"}]', "unknown key(s) 'expekt'"),
        ('[{"say": "x"}, {"say": "y", "ok": "yes"}]', "script.steps[1].ok: true or false"),
        ('[{"say": "x"}, {"say": "y", "expect": ""}]', "expect: a non-empty string"),
        ('[{"say": "x", "fault": "429@0"}]', "script.steps[0].fault: bad attempts"),
        ('[{"say": "x", "fault": "teapot"}]', "script.steps[0].fault: bad fault"),
        ('[{"say": "x", "fault": "error=call"}]', "only drop takes =call"),
    ],
)
def test_bad_checks_and_faults_are_refused(text: str, message: str) -> None:
    with pytest.raises(ScriptError, match=re.escape(message)):
        parse(text)


def test_checks_and_faults_parse() -> None:
    (rule,) = parse(
        '[{"call": "f", "fault": "drop"}, {"say": "y", "expect": "a", "expect_not": "b", '
        '"ok": true, "fault": "429; slow=0.5@2"}]'
    ).rules
    call, say = rule.steps
    (drop,) = call.faults
    assert drop.kind == "drop" and drop.at_call and drop.spans == ((1, 1),)
    assert (say.expect, say.expect_not, say.ok) == ("a", "b", True)
    status, slow = say.faults
    assert status.spans == ((1, 1),)  # first attempt only, unless it says when
    assert slow.spans == ((2, 2),) and slow.arg == 0.5


# -- faults per step ------------------------------------------------------------------------------

AGENT_SCRIPT = [WRITE, {"say": "Wrote out.txt.", "ok": True}]


def _second_request(client: openai.OpenAI, step: dict[str, Any]) -> openai.types.responses.Response:
    """The agent's second request (the step after the call), with ``step``'s fault."""
    return client.responses.create(
        model="mock", input=_history(GOOD), tools=[EXEC],
        extra_headers=_headers(WRITE, {"say": "Wrote out.txt.", "ok": True, **step}),
    )  # fmt: skip


@pytest.mark.parametrize("status", [429, 500])
def test_a_step_status_fault_then_the_retry_gets_the_step(
    responses_mock: LoopbackMock, status: int
) -> None:
    with responses_mock.client(max_retries=1) as client:
        response = _second_request(client, {"fault": str(status)})
        first = client.responses.create(  # the first step has no fault
            model="mock", input="Write hi to out.txt.", tools=[EXEC],
            extra_headers=_headers(WRITE, {"say": "x", "fault": str(status)}),
        )  # fmt: skip
    assert response.output_text == "Wrote out.txt."
    assert first.output[-1].type == "function_call"
    seen = [(r.attempt, r.injection.status) for r in responses_mock.requests]
    assert seen == [(1, status), (2, None), (1, None)]


def test_a_step_fault_without_enough_retries_surfaces(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=0) as client, pytest.raises(openai.RateLimitError):
        _second_request(client, {"fault": "429"})
    # Attempts count by the request's bytes: a fresh body, failed on attempts 1 and 2.
    with responses_mock.client(max_retries=1) as client, pytest.raises(openai.RateLimitError):
        client.responses.create(
            model="mock", input=_history(GOOD + " "), tools=[EXEC],
            extra_headers=_headers(WRITE, {"say": "x", "fault": "429@1,2"}),
        )  # fmt: skip
    seen = [(r.attempt, r.injection.status) for r in responses_mock.requests]
    assert seen == [(1, 429), (1, 429), (2, 429)]


def test_a_step_drop_cuts_the_stream_in_the_middle_of_the_call(
    responses_mock: LoopbackMock,
) -> None:
    body = {"model": "mock", "input": "Write hi to out.txt.", "tools": [EXEC], "stream": True,
            "reasoning": {"summary": "auto"}}  # fmt: skip
    headers = _headers({**WRITE, "fault": "drop"}, {"say": "Wrote out.txt."})
    received = b""
    with (
        pytest.raises(httpx2.RemoteProtocolError),
        httpx2.stream(
            "POST", responses_mock.base_url + "/responses", json=body, headers=headers
        ) as response,
    ):
        for chunk in response.iter_raw():
            received += chunk
    types = [e["type"] for e in sse_events(received)]
    assert types[-1] == "response.function_call_arguments.delta"
    assert "response.reasoning_summary_text.delta" in types  # the reasoning came first, whole
    # The retry (the same bytes: attempt 2) gets the step's call, whole.
    again = httpx2.post(responses_mock.base_url + "/responses", json=body, headers=headers)
    events = sse_events(again.content)
    assert events[-1]["type"] == "response.completed"
    (call,) = [i for i in events[-1]["response"]["output"] if i["type"] == "function_call"]
    assert json.loads(call["arguments"]) == {"cmd": "echo hi > out.txt"}


def test_a_step_error_and_slow_fault(responses_mock: LoopbackMock) -> None:
    failing = _headers(WRITE, {"say": "Wrote out.txt.", "fault": "error=2"})
    with responses_mock.client(max_retries=0) as client:
        with (
            pytest.raises(openai.APIError, match="injected a mid-stream error"),
            client.responses.stream(
                model="mock", input=_history(GOOD), tools=[EXEC], extra_headers=failing
            ) as stream,
        ):
            for _ in stream:
                pass
        slow = _second_request(client, {"fault": "slow=0.05"})
    assert slow.output_text == "Wrote out.txt."
    injected = [(r.attempt, r.injection.error_after, r.injection.slow)
                for r in responses_mock.requests]  # fmt: skip
    assert injected == [(1, 2, 0.0), (1, None, 0.05)]


def test_a_step_without_a_fault_is_untouched(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=0) as client:
        response = _second_request(client, {})
    assert response.output_text == "Wrote out.txt."
    assert [r.injection.active for r in responses_mock.requests] == [False]
