"""The Vercel AI SDK (``ai`` + ``@ai-sdk/openai``'s ``responses`` model) against the mock.

``tests/clients/vercel/vercel_ai_sdk.mjs`` uses the SDK as its docs show — ``generateText`` and
``streamText``, a tool round trip each way, structured output, reasoning (also across a tool round
trip, with and without ``store``), ``toolChoice``, ``maxOutputTokens``, failures, an abort, and
two ways of holding a conversation — and prints one JSON report, which the tests below read.

On demand (``tox -e clients``; docs/agents.md): needs node (>= 20) and npm, and the registry once
(``npm ci`` of the pinned packages into pytest's cache: ``tests/clients/npm_support.py``); skips
with the reason otherwise.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from npm_support import installed

from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock

pytestmark = pytest.mark.on_demand

CLIENT = Path(__file__).resolve().parent / "vercel"
SCRIPT = "vercel_ai_sdk.mjs"
INSTALLED = "node_modules/ai/package.json"


@pytest.fixture(scope="module")
def report(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    where = installed(CLIENT, INSTALLED, request.config, tmp_path_factory)
    if where != CLIENT:
        shutil.copyfile(CLIENT / SCRIPT, where / SCRIPT)
    with LoopbackMock(MockSettings(seed=1)) as mock:
        done = subprocess.run(
            ["node", SCRIPT, mock.base_url],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert done.stdout.strip(), done.stderr
    yield json.loads(done.stdout)


def result(report: dict[str, Any], name: str) -> dict[str, Any]:
    outcome: dict[str, Any] = report["results"][name]
    sent = report["requests"][outcome["requests"][0] : outcome["requests"][1]]
    assert outcome["ok"], json.dumps({"outcome": outcome, "sent": sent}, indent=2)[:4000]
    outcome["sent"] = [r["body"] for r in sent]
    return outcome


def sent_item_types(outcome: dict[str, Any]) -> list[str]:
    return [
        item.get("type", "message")
        for body in outcome["sent"]
        for item in (body.get("input") if isinstance(body.get("input"), list) else [])
    ]


def test_generate_and_stream_text(report: dict[str, Any]) -> None:
    generated, streamed = result(report, "generate_text"), result(report, "stream_text")
    assert generated["text"].startswith('You said: "Say hello to the lighthouse keeper." (turn 1).')
    # The mock's answer is a function of the request; the transport does not change it.
    assert streamed["text"] == generated["text"] and streamed["deltas"] > 10
    assert generated["finishReason"] == streamed["finishReason"] == "stop"
    assert generated["usage"]["outputTokens"] == streamed["usage"]["outputTokens"] > 0
    assert streamed["sent"][0]["stream"] is True and "stream" not in generated["sent"][0]


@pytest.mark.parametrize("name", ["generate_text_tool_round_trip", "stream_text_tool_round_trip"])
def test_tool_round_trip(report: dict[str, Any], name: str) -> None:
    outcome = result(report, name)
    call, answer = outcome["steps"]
    assert call["finishReason"] == "tool-calls"
    assert [c["toolName"] for c in call["toolCalls"]] == ["get_weather"]
    city = call["toolCalls"][0]["input"]["city"]
    assert call["toolResults"][0]["output"]["forecast"] == f"Sunny in {city}, 21C"
    assert answer["finishReason"] == "stop"
    assert outcome["text"].startswith('The tool returned: "{') and city in outcome["text"]
    assert sent_item_types(outcome)[-2:] == ["function_call", "function_call_output"]


def test_structured_output(report: dict[str, Any]) -> None:
    output = result(report, "structured_output")["output"]
    assert isinstance(output["city"], str) and isinstance(output["population"], int)


@pytest.mark.parametrize("name", ["reasoning_summary", "stream_text_reasoning"])
def test_reasoning_summary(report: dict[str, Any], name: str) -> None:
    outcome = result(report, name)
    assert outcome["reasoningText"].startswith("**Considering the request**")
    assert outcome["text"].startswith('You said: "Say hello')


def test_reasoning_across_a_tool_round_trip(report: dict[str, Any]) -> None:
    # With `store` on, step 2 names step 1's reasoning item by id: an item_reference input.
    outcome = result(report, "reasoning_tool_round_trip")
    assert "item_reference" in sent_item_types(outcome)
    assert outcome["text"].startswith('The tool returned: "{')


def test_reasoning_across_a_tool_round_trip_without_store(report: dict[str, Any]) -> None:
    # The SDK asks for reasoning.encrypted_content; the mock sends none, so the SDK leaves the
    # reasoning out of step 2 (with a warning) and the round trip still completes.
    outcome = result(report, "reasoning_tool_round_trip_store_false")
    assert all(body.get("store") is False for body in outcome["sent"])
    assert outcome["text"].startswith('The tool returned: "{')


def test_tool_choice_required(report: dict[str, Any]) -> None:
    outcome = result(report, "tool_choice_required")
    assert outcome["finishReason"] == "tool-calls" and outcome["toolCalls"] == ["get_weather"]


def test_max_output_tokens_ends_with_length(report: dict[str, Any]) -> None:
    outcome = result(report, "max_output_tokens")
    assert outcome["finishReason"] == "length" and outcome["outputTokens"] == 16


def test_failures_surface_with_the_mocks_message(report: dict[str, Any]) -> None:
    message = "The mock engine failed mid-stream (scenario 'failure')."
    non_stream = result(report, "failure_non_stream")
    assert non_stream["statusCode"] == 500 and message in non_stream["error"]
    streamed = result(report, "failure_stream")
    assert streamed["error"] == message and streamed["deltas"] > 0


def test_abort_mid_stream(report: dict[str, Any]) -> None:
    outcome = result(report, "abort_mid_stream")
    assert outcome["aborted"] and outcome["deltas"] == 5


def test_conversation_as_messages_sends_item_references(report: dict[str, Any]) -> None:
    outcome = result(report, "multi_turn_messages")
    assert sent_item_types(outcome)[-3:] == ["message", "item_reference", "message"]
    # The second turn reached the engine with the first: the fact it stated is recalled.
    assert outcome["second"] == "Your name is Ada."


def test_conversation_by_previous_response_id(report: dict[str, Any]) -> None:
    outcome = result(report, "previous_response_id")
    assert outcome["sent"][1]["previous_response_id"].startswith("resp_")
    assert outcome["second"] == "Your name is Ada."


@pytest.mark.parametrize(
    ("name", "tool"),
    [
        ("hosted_web_search", "web_search"),
        ("hosted_file_search", "file_search"),
        ("hosted_code_interpreter", "code_interpreter"),
        ("hosted_image_generation", "image_generation"),
        ("hosted_mcp", "mcp"),
    ],
)
def test_hosted_tool_streams_as_provider_executed_parts(
    report: dict[str, Any], name: str, tool: str
) -> None:
    outcome = result(report, name)
    parts = outcome["parts"]
    assert not [p for p in parts if p["type"] == "error"], parts
    calls = [p for p in parts if p["type"] == "tool-call"]
    results = [p for p in parts if p["type"] == "tool-result"]
    assert calls and results, parts
    assert all(p["providerExecuted"] for p in calls + results), parts
    assert outcome["finishReason"] == "stop" and outcome["text"]
    if tool == "web_search":
        sources = [p for p in parts if p["type"] == "source"]
        assert sources and all(s["url"].startswith("https://example.com/") for s in sources)
