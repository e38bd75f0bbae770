"""The official ``openai`` SDK against the app over loopback (uvicorn in a thread)."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from refimpl_support import (
    FrozenIds,
    ScriptedEngine,
    ServeFn,
    check_stream,
    parse_sse,
    scripts,
    sdk_client,
)

from reference_impl.engine import Final, TextDelta, ToolCallDelta

TOOLS: list[Any] = [
    {"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "strict": False},
    {"type": "function", "name": "get_time", "parameters": {"type": "object"}, "strict": False},
]
COMPLETED = [
    "text",
    "reasoning_summary",
    "reasoning_raw",
    "refusal",
    "function_call",
    "parallel_calls",
    "text_then_tool",
    "web_search",
]


def raw_events(stream: Any) -> list[dict[str, Any]]:
    return [event.to_dict(warnings=False) for event in stream]


def without_parsed(value: Any) -> Any:
    """An SDK ``ParsedResponse`` as a plain dict: without the ``parsed*`` fields it adds."""
    if isinstance(value, dict):
        return {
            k: without_parsed(v)
            for k, v in value.items()
            if k not in ("parsed", "parsed_arguments")
        }
    if isinstance(value, list):
        return [without_parsed(v) for v in value]
    return value


@pytest.mark.parametrize("name", COMPLETED)
def test_sdk_stream_accumulates_and_equals_the_non_stream_body(
    serve: ServeFn, engine: ScriptedEngine, name: str
) -> None:
    server = serve(engine, ids=FrozenIds(), clock=lambda: 1_750_000_000.0)
    engine.push(scripts()[name], scripts()[name], scripts()[name])
    body: dict[str, Any] = {"model": "test-model", "input": "hi", "tools": TOOLS}
    with sdk_client(server) as client:
        with client.responses.stream(**body) as stream:
            types = [event.type for event in stream]
            final = stream.get_final_response()
        assert types[-1] == "response.completed"
        plain = client.responses.create(**body)
        assert without_parsed(final.to_dict(warnings=False)) == plain.to_dict()
        assert final.output_text == plain.output_text
        assert client.responses.retrieve(plain.id).to_dict() == plain.to_dict()
    # The same request streamed, as raw bytes: its terminal response is the non-stream body.
    raw = httpx2.post(server.base_url + "/v1/responses", json={**body, "stream": True})
    events, _, done = parse_sse(raw.content)
    check_stream(events)
    assert done and events[-1]["response"] == plain.to_dict()


def test_sdk_function_call_arguments(client: openai.OpenAI, engine: ScriptedEngine) -> None:
    engine.push(scripts()["parallel_calls"])
    with client.responses.stream(model="m", input="weather?", tools=TOOLS) as stream:
        final = stream.get_final_response()
    calls = [o for o in final.output if o.type == "function_call"]
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_weather", '{"city":"Paris"}'),
        ("get_time", '{"tz":"CET"}'),
    ]


def test_sdk_cut_off_ends_with_response_incomplete(
    client: openai.OpenAI, engine: ScriptedEngine
) -> None:
    engine.push(scripts()["cut_off"])
    with client.responses.stream(model="m", input="long", max_output_tokens=16) as stream:
        events = raw_events(stream)
        with pytest.raises(RuntimeError, match=r"Didn.t receive a `response\.completed` event"):
            stream.get_final_response()
    check_stream(events)
    assert events[-1]["type"] == "response.incomplete"
    response = events[-1]["response"]
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response["output"][-1]["status"] == "incomplete"


@pytest.mark.parametrize("name", ["failure_midstream", "failure_final"])
def test_sdk_failure_raises_api_error_with_the_engine_message(
    client: openai.OpenAI, engine: ScriptedEngine, name: str
) -> None:
    engine.push(scripts()[name])
    message = "the engine broke" if name == "failure_midstream" else "boom"
    seen: list[str] = []
    with (
        pytest.raises(openai.APIError, match=message),
        client.responses.stream(model="m", input="x") as stream,
    ):
        for event in stream:
            seen.append(event.type)
    assert seen[:2] == ["response.created", "response.in_progress"]


def test_sdk_non_stream_failure_is_a_server_error(
    client: openai.OpenAI, engine: ScriptedEngine
) -> None:
    engine.push(scripts()["failure_final"])
    with pytest.raises(openai.InternalServerError, match="boom"):
        client.responses.create(model="m", input="x")


def test_sdk_create_retrieve_input_items_delete(client: openai.OpenAI) -> None:
    created = client.responses.create(
        model="m", input=[{"role": "user", "content": "hello"}], metadata={"k": "v"}
    )
    assert created.status == "completed" and created.output_text == "ok"
    assert created.metadata == {"k": "v"}
    assert client.responses.retrieve(created.id).to_dict() == created.to_dict()
    items = client.responses.input_items.list(created.id)
    assert [i.type for i in items.data] == ["message"]
    assert items.data[0].id.startswith("msg_")
    deleted = client.responses.delete(created.id)
    assert deleted is None or getattr(deleted, "deleted", True)
    with pytest.raises(openai.NotFoundError, match=f"Response with id '{created.id}' not found"):
        client.responses.retrieve(created.id)


def test_sdk_input_tokens_and_models(client: openai.OpenAI) -> None:
    counted = client.responses.input_tokens.count(model="m", input="a b c", instructions="be brief")
    assert counted.input_tokens == 4 + 3
    assert [m.id for m in client.models.list()] == ["test-model"]


def test_sdk_three_turn_chain_with_a_function_call_round_trip(
    client: openai.OpenAI, engine: ScriptedEngine
) -> None:
    engine.push(
        [
            TextDelta("Let me look."),
            ToolCallDelta(0, '{"city":"Paris"}', name="get_weather", call_id="call_w1"),
            Final("tool_calls", 10, 8),
        ],
        [TextDelta("It is sunny in Paris."), Final("stop", 30, 6)],
        [TextDelta("You asked about Paris."), Final("stop", 40, 5)],
    )
    first = client.responses.create(
        model="m", input="Weather in Paris?", instructions="Be terse.", tools=TOOLS
    )
    call = next(o for o in first.output if o.type == "function_call")
    assert call.call_id == "call_w1"
    second = client.responses.create(
        model="m",
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": "sunny"}],
        tools=TOOLS,
    )
    third = client.responses.create(
        model="m", previous_response_id=second.id, input="What did I ask?", instructions="Recall."
    )
    assert third.previous_response_id == second.id and third.instructions == "Recall."

    turn1, turn2, turn3 = engine.requests
    assert [(m.role, m.content) for m in turn1.messages] == [
        ("system", "Be terse."),
        ("user", "Weather in Paris?"),
    ]
    # Turn 2: prior input, prior output (text + the call in one assistant turn), new input;
    # the prior instructions are not carried over (SPEC §3, §4; KB19).
    assert [m.role for m in turn2.messages] == ["user", "assistant", "tool"]
    assistant = turn2.messages[1]
    assert assistant.content == "Let me look."
    assert assistant.tool_calls == (
        {"call_id": "call_w1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
    )
    assert (turn2.messages[2].tool_call_id, turn2.messages[2].content) == ("call_w1", "sunny")
    assert [(m.role, m.content) for m in turn3.messages] == [
        ("system", "Recall."),
        ("user", "Weather in Paris?"),
        ("assistant", "Let me look."),
        ("tool", "sunny"),
        ("assistant", "It is sunny in Paris."),
        ("user", "What did I ask?"),
    ]
    history = client.responses.input_items.list(third.id, order="asc", limit=100)
    assert [i.type for i in history.data] == [
        "message",
        "message",
        "function_call",
        "function_call_output",
        "message",
        "message",
    ]


def test_sdk_unknown_previous_response(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="m", input="x", previous_response_id="resp_gone")
    assert info.value.code == "previous_response_not_found"
    assert info.value.param == "previous_response_id"


def test_sdk_auth(serve: ServeFn, engine: ScriptedEngine) -> None:
    server = serve(engine, api_key="sk-right")
    with sdk_client(server, api_key="sk-wrong") as bad, pytest.raises(openai.AuthenticationError):
        bad.responses.create(model="m", input="x")
    with sdk_client(server, api_key="sk-right") as good:
        assert good.responses.create(model="m", input="x").status == "completed"
