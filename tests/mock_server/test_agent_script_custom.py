"""Agent-script steps that call a custom (freeform) tool — Codex's ``apply_patch`` with its Lark
grammar: the script's text is the ``custom_tool_call``'s input when the grammar accepts it, an
error naming the step when it does not; through the real ``openai`` SDK over loopback."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from mock_support import sse_events

from conformance.offline.recorded import check_bytes
from mock_server.grammar_gen import accepts
from mock_server.testing import LoopbackMock

APPLY_PATCH_GRAMMAR = (
    Path(__file__).parents[1] / "data" / "grammars" / "apply_patch.lark"
).read_text()
# As Codex declares it for catalogue models (codex-rs/core/src/tools/handlers/apply_patch.rs).
APPLY_PATCH: dict[str, Any] = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Use the `apply_patch` tool to edit files. This is a FREEFORM tool.",
    "format": {"type": "grammar", "syntax": "lark", "definition": APPLY_PATCH_GRAMMAR},
}
NOTE: dict[str, Any] = {"type": "custom", "name": "note", "description": "Free text."}
EXEC: dict[str, Any] = {
    "type": "function",
    "name": "exec_command",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}},
}
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+Hello, world!\n*** End Patch\n"
NOT_A_PATCH = "*** Begin Patch\n*** Add File: hello.txt\nHello, world!\n*** End Patch\n"  # no "+"


def _headers(*steps: dict[str, Any]) -> dict[str, str]:
    return {"x-mock-script": json.dumps({"steps": list(steps)})}


def _create(client: openai.OpenAI, headers: dict[str, str], **body: Any) -> Any:
    return client.responses.create(
        model="gpt-5.5",
        input=body.pop("input", "Create hello.txt saying Hello, world!"),
        tools=body.pop("tools", [EXEC, APPLY_PATCH]),
        store=False,
        extra_headers=headers,
        **body,
    )


def test_a_patch_in_the_grammar_is_served_as_codexs_custom_tool_call(
    responses_mock: LoopbackMock,
) -> None:
    headers = _headers(
        {"call": "apply_patch", "arguments": PATCH},
        {"say": "Created hello.txt.", "expect": "Success"},
    )
    with responses_mock.client(max_retries=0) as client:
        first = _create(client, headers)
        (call,) = first.output
        assert (call.type, call.name, call.input) == ("custom_tool_call", "apply_patch", PATCH)
        # What Codex sends back: the call and its output; the next step checks the output.
        history = [
            {"role": "user", "content": "Create hello.txt saying Hello, world!"},
            call.model_dump(exclude_none=True),
            {"type": "custom_tool_call_output", "call_id": call.call_id,
             "output": "Success. Updated the following files:\nA hello.txt\n"},
        ]  # fmt: skip
        second = _create(client, headers, input=history)
        assert second.output_text == "Created hello.txt."


def test_a_patch_outside_the_grammar_is_an_error_naming_the_step(
    responses_mock: LoopbackMock,
) -> None:
    headers = _headers({"say": "First."}, {"call": "apply_patch", "arguments": NOT_A_PATCH})
    headers = {"x-mock-script": json.dumps({"rules": [json.loads(headers["x-mock-script"])]})}
    history = [
        {"role": "user", "content": "Create hello.txt."},
        {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ]
    with (
        responses_mock.client(max_retries=0) as client,
        pytest.raises(openai.BadRequestError) as info,
    ):
        _create(client, headers, input=history)
    message = str(info.value)
    assert "Mock agent script: rules[0].steps[1]: the input for the custom tool 'apply_patch' " \
        "is outside its lark grammar: the lark grammar refuses it at byte 40" in message  # fmt: skip
    # Streamed: the same message, as an error event and response.failed (no call is sent).
    raw = httpx2.post(
        responses_mock.base_url + "/responses",
        json={"model": "gpt-5.5", "input": history, "tools": [EXEC, APPLY_PATCH], "stream": True},
        headers=headers,
    )
    events = sse_events(raw.content)
    assert [e["type"] for e in events][-1] == "response.failed"
    assert "rules[0].steps[1]" in events[-1]["response"]["error"]["message"]
    assert not any(e["type"].startswith("response.custom_tool_call") for e in events)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"call": "apply_patch", "arguments": {"patch": PATCH}},
         "script.steps[0].arguments: apply_patch is a custom tool, whose input is text"),
        ({"call": "apply_patch", "arguments": "*** Begin Patch\n"},
         "needs more after its end"),
        ({"call": "edit_file", "arguments": PATCH},
         "custom tools: apply_patch"),
    ],
)  # fmt: skip
def test_bad_custom_steps(responses_mock: LoopbackMock, step: dict[str, Any], message: str) -> None:
    with (
        responses_mock.client(max_retries=0) as client,
        pytest.raises(openai.BadRequestError, match=re.escape(message)),
    ):
        _create(client, _headers(step))


def test_unscripted_input_and_free_text_tools(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=0) as client:
        generated = _create(client, _headers({"call": "apply_patch"})).output[0]
        assert generated.type == "custom_tool_call"
        assert accepts("lark", APPLY_PATCH_GRAMMAR, generated.input), generated.input
        again = _create(client, _headers({"call": "apply_patch"})).output[0]
        assert again.input == generated.input  # same request, same bytes
        free = _create(
            client, _headers({"call": "note", "arguments": "any text (?=at all)"}), tools=[NOTE]
        ).output[0]
        assert (free.type, free.input) == ("custom_tool_call", "any text (?=at all)")


def test_a_scripted_patch_streams_and_passes_the_judge(responses_mock: LoopbackMock) -> None:
    raw = httpx2.post(
        responses_mock.base_url + "/responses",
        json={"model": "gpt-5.5", "input": "Patch.", "tools": [APPLY_PATCH], "stream": True},
        headers=_headers({"call": "apply_patch", "arguments": PATCH}),
    )
    events = sse_events(raw.content)
    deltas = [e["delta"] for e in events if e["type"] == "response.custom_tool_call_input.delta"]
    assert "".join(deltas) == PATCH and len(deltas) > 1
    verdict = check_bytes(raw.content, name="patch.sse")
    assert verdict.failing(strict=True) == []
