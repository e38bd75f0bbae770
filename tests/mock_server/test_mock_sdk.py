"""The mock through the real ``openai`` SDK over loopback HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from mock_support import independent_count, scenario_request

from mock_server.app import FROZEN_TIME, MockSettings
from mock_server.scenarios import FAILURE_MESSAGE, SCENARIOS
from mock_server.testing import LoopbackMock


@pytest.fixture(scope="module")
def json_mock() -> Iterator[LoopbackMock]:
    with LoopbackMock(MockSettings(seed=5, frozen_time=FROZEN_TIME)) as mock:
        yield mock


@pytest.fixture(scope="module")
def sse_mock() -> Iterator[LoopbackMock]:
    with LoopbackMock(MockSettings(seed=5, frozen_time=FROZEN_TIME)) as mock:
        yield mock


def _without_parsed(value: Any) -> Any:
    """The SDK's stream helper returns a ParsedResponse: drop the keys parsing adds."""
    if isinstance(value, dict):
        return {
            k: _without_parsed(v)
            for k, v in value.items()
            if k not in ("parsed", "parsed_arguments", "output_parsed")
        }
    if isinstance(value, list):
        return [_without_parsed(v) for v in value]
    return value


def _expected_usage(
    body: dict[str, Any], response: openai.types.responses.Response
) -> tuple[int, int, int]:
    """(input, output, reasoning) tokens by the documented formula, counted independently."""
    tools = 0
    for tool in body.get("tools", []):
        doc = {k: tool.get(k) for k in ("name", "description", "parameters")}
        tools += independent_count(json.dumps(doc, sort_keys=True, separators=(",", ":")))
    n_input = (
        3 + (3 + independent_count(body["instructions"])) + (3 + independent_count(body["input"]))
    )
    output = reasoning = 0
    for item in response.output:
        if item.type == "reasoning":
            for part in item.summary:
                reasoning += independent_count(part.text)
            for content in item.content or []:
                reasoning += independent_count(content.text)
        elif item.type == "message":
            for part in item.content:
                output += independent_count(
                    part.text if part.type == "output_text" else part.refusal
                )
        elif item.type == "function_call":
            output += independent_count(item.arguments)
        elif item.type == "custom_tool_call":
            output += independent_count(item.input)
        elif item.type == "web_search_call":
            output += independent_count(item.action.query)  # type: ignore[union-attr]
    return n_input + tools, output + reasoning, reasoning


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stream_matches_non_stream_and_usage_is_exact(
    scenario: str, json_mock: LoopbackMock, sse_mock: LoopbackMock
) -> None:
    # The two servers see the same requests in the same order, so ids agree as well.
    body = scenario_request(scenario)
    with json_mock.client(max_retries=0) as jc, sse_mock.client(max_retries=0) as sc:
        if scenario == "failure":
            with pytest.raises(openai.InternalServerError) as json_error:
                jc.responses.create(**body)
            assert FAILURE_MESSAGE in json_error.value.message
            with pytest.raises(openai.APIError) as stream_error, sc.responses.stream(**body) as s:
                for _ in s:
                    pass
            assert stream_error.value.message == FAILURE_MESSAGE
            return
        expected = jc.responses.create(**body)
        if scenario == "max-output-tokens":
            events = list(sc.responses.create(stream=True, **body))
            assert events[-1].type == "response.incomplete"
            final = events[-1].response
            assert final.incomplete_details is not None
            assert final.incomplete_details.reason == "max_output_tokens"
        else:
            with sc.responses.stream(**body) as stream:
                events = list(stream)
                final = stream.get_final_response()
            assert events[-1].type == "response.completed"
    assert _without_parsed(final.model_dump()) == expected.model_dump()
    assert final.usage is not None
    n_input, n_output, n_reasoning = _expected_usage(body, final)
    assert final.usage.input_tokens == n_input
    assert final.usage.output_tokens == n_output
    assert final.usage.output_tokens_details.reasoning_tokens == n_reasoning
    assert final.usage.total_tokens == n_input + n_output
    if scenario == "max-output-tokens":
        assert final.usage.output_tokens == body["max_output_tokens"]


def test_input_tokens_endpoint_matches_usage(responses_mock: LoopbackMock) -> None:
    body = scenario_request("function-call")
    with responses_mock.client() as client:
        counted = client.responses.input_tokens.count(
            model=body["model"],
            input=body["input"],
            instructions=body["instructions"],
            tools=body["tools"],
        )
        created = client.responses.create(**body)
    assert created.usage is not None
    assert counted.input_tokens == created.usage.input_tokens


def test_three_turn_chain_with_a_function_call_round_trip(responses_mock: LoopbackMock) -> None:
    tool = scenario_request("function-call")["tools"][0]
    with responses_mock.client() as client:
        first = client.responses.create(
            model="mock", input="Forecast for Paris, please.", tools=[tool]
        )
        call = first.output[0]
        assert call.type == "function_call" and call.name == "get_forecast"
        args = json.loads(call.arguments)
        assert set(args) == {"city", "days", "unit"}
        second = client.responses.create(
            model="mock",
            previous_response_id=first.id,
            tools=[tool],
            input=[
                {
                    "type": "function_call_output",
                    "call_id": call.call_id,
                    "output": '{"temp_c": 21}',
                }
            ],
        )
        assert second.output_text.startswith('The tool returned: "{"temp_c": 21}".')
        third = client.responses.create(
            model="mock",
            previous_response_id=second.id,
            input="Thanks!",
            tools=[tool],
            tool_choice="none",
        )
        assert third.output_text.startswith('You said: "Thanks!" (turn 2).')
        assert first.usage and second.usage and third.usage
        assert first.usage.input_tokens < second.usage.input_tokens < third.usage.input_tokens
        # The engine saw the whole history on the third turn.
        roles = [m.role for m in responses_mock.generations[-1].messages]
        assert roles == ["user", "assistant", "tool", "assistant", "user"]


def test_create_retrieve_input_items_delete(responses_mock: LoopbackMock) -> None:
    with responses_mock.client() as client:
        created = client.responses.create(model="mock-text", input="Remember me.")
        assert client.responses.retrieve(created.id) == created
        items = client.responses.input_items.list(created.id)
        assert [i.type for i in items.data] == ["message"]
        with pytest.raises(openai.BadRequestError):
            client.responses.cancel(created.id)  # not a background response
        deleted = client.responses.delete(created.id)
        assert deleted is None or getattr(deleted, "deleted", True)
        with pytest.raises(openai.NotFoundError):
            client.responses.retrieve(created.id)


def test_scenario_by_header_and_metadata(responses_mock: LoopbackMock) -> None:
    with responses_mock.client() as client:
        by_header = client.responses.create(
            model="gpt-4o", input="hi", extra_headers={"x-mock-scenario": "refusal"}
        )
        assert by_header.output[0].content[0].type == "refusal"  # type: ignore[union-attr]
        by_meta = client.responses.create(
            model="gpt-4o", input="hi", metadata={"mock_scenario": "web-search"}
        )
        assert [i.type for i in by_meta.output] == ["web_search_call", "message"]
        with pytest.raises(openai.BadRequestError, match="Unknown mock scenario"):
            client.responses.create(
                model="gpt-4o", input="hi", extra_headers={"x-mock-scenario": "nope"}
            )


def test_queued_scripts(responses_mock: LoopbackMock) -> None:
    responses_mock.queue("refusal")
    responses_mock.queue_text("Exactly this.")
    with responses_mock.client() as client:
        assert (
            client.responses.create(model="mock", input="a").output[0].content[0].type == "refusal"
        )  # type: ignore[union-attr]
        assert client.responses.create(model="mock", input="b").output_text == "Exactly this."
    assert [r.json()["input"] for r in responses_mock.requests] == ["a", "b"]


def test_seed_changes_the_answer() -> None:
    texts = []
    for seed in (1, 2):
        with LoopbackMock(MockSettings(seed=seed)) as mock, mock.client() as client:
            texts.append(client.responses.create(model="mock-text", input="hi").output_text)
    assert texts[0] != texts[1]
