"""Tool search in the mock (``tool_search`` with namespaces): deferred tools
(``defer_loading``), ``namespace`` tools, a server-executed search that loads a deferred tool
before calling it, a client-executed one the client answers with a ``tool_search_output``; every
stream judged strictly, and the openai SDK's accumulator consumes each. Shapes follow [REC]
openai-tool-search.1 and openai-client-tool-search.1/.2."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest
from mock_support import judged_stream, post_mock
from openai.types.responses import Response

from mock_server.testing import InProcessMock

WEATHER = {
    "type": "function", "name": "get_weather", "defer_loading": True,
    "description": "Get the current weather at a location",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"], "additionalProperties": False},
    "strict": True,
}  # fmt: skip
CRM = {
    "type": "namespace", "name": "crm", "description": "Customer records",
    "tools": [{"type": "function", "name": "lookup_customer", "defer_loading": True,
               "parameters": {"type": "object", "properties": {"email": {"type": "string"}},
                              "required": ["email"]}}],
}  # fmt: skip
SEARCH = {"type": "tool_search"}
CLIENT_SEARCH = {"type": "tool_search", "execution": "client"}


def _output(body: dict[str, Any]) -> list[dict[str, Any]]:
    response = post_mock(body)
    assert response.status_code == 200, response.text
    Response.model_validate(response.json())
    output: list[dict[str, Any]] = response.json()["output"]
    return output


def _types(output: list[dict[str, Any]]) -> list[str]:
    return [i["type"] for i in output]


def test_a_server_search_loads_the_deferred_tool_then_calls_it() -> None:
    output = _output({"input": "What is the weather in Paris?", "tools": [WEATHER, CRM, SEARCH]})
    assert _types(output) == ["tool_search_call", "tool_search_output", "function_call"]
    search, loaded, call = output
    assert (search["execution"], search["call_id"], search["arguments"]) == (
        "server", None, {"paths": ["get_weather"]},
    )  # fmt: skip
    assert (loaded["execution"], loaded["call_id"]) == ("server", None)
    assert loaded["tools"] == [WEATHER]
    assert (call["name"], call["namespace"]) == ("get_weather", "get_weather")


def test_a_namespaced_tool_is_loaded_with_its_namespace_and_called_in_it() -> None:
    output = _output({"input": "Use lookup_customer for bob@example.com", "tools": [WEATHER, CRM, SEARCH]})  # fmt: skip
    assert _types(output) == ["tool_search_call", "tool_search_output", "function_call"]
    assert output[0]["arguments"] == {"paths": ["crm"]}
    assert output[1]["tools"] == [CRM]
    assert (output[2]["name"], output[2]["namespace"]) == ("lookup_customer", "crm")


def test_the_server_search_stream_passes_the_judge() -> None:
    events = judged_stream({"input": "Weather in Oslo?", "tools": [WEATHER, CRM, SEARCH]})
    added = [e["item"]["type"] for e in events if e["type"] == "response.output_item.added"]
    assert added == ["tool_search_call", "tool_search_output", "function_call"]


def test_a_tool_not_deferred_is_called_without_a_search() -> None:
    plain = {k: v for k, v in WEATHER.items() if k != "defer_loading"}
    output = _output({"input": "What is the weather in Paris?", "tools": [plain, SEARCH]})
    assert _types(output) == ["function_call"]
    assert "namespace" not in output[0]


def test_a_tool_loaded_earlier_in_the_conversation_is_not_searched_again() -> None:
    first = _output({"input": "Weather in Paris?", "tools": [WEATHER, SEARCH]})
    history = [{"role": "user", "content": "Weather in Paris?"}, *first,
               {"type": "function_call_output", "call_id": first[2]["call_id"], "output": "12 C"},
               {"role": "user", "content": "And in Rome?"}]  # fmt: skip
    again = _output({"input": history, "tools": [WEATHER, SEARCH]})
    assert _types(again) == ["function_call"]


def test_a_client_search_round_trip() -> None:
    tools = [WEATHER, CLIENT_SEARCH]
    first = _output({"input": "What is the weather in Paris?", "tools": tools})
    assert _types(first) == ["tool_search_call"]
    call = first[0]
    assert call["execution"] == "client" and call["call_id"].startswith("call_")
    assert isinstance(call["arguments"]["goal"], str)
    loaded = {"type": "tool_search_output", "call_id": call["call_id"], "execution": "client",
              "tools": [{**WEATHER, "defer_loading": False}]}  # fmt: skip
    history = [{"role": "user", "content": "What is the weather in Paris?"}, call, loaded]
    second = _output({"input": history, "tools": tools})
    assert _types(second) == ["function_call"]
    assert second[0]["name"] == "get_weather"
    judged_stream({"input": history, "tools": tools})


def test_client_search_parameters_shape_the_arguments() -> None:
    search = {**CLIENT_SEARCH, "parameters": {
        "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"],
        "additionalProperties": False}}  # fmt: skip
    output = _output({"input": "Weather in Paris?", "tools": [WEATHER, search]})
    assert set(output[0]["arguments"]) == {"query"}


def test_defer_loading_and_namespaces_are_echoed() -> None:
    response = post_mock({"input": "Hi", "tools": [WEATHER, CRM, SEARCH], "tool_choice": "none"})
    tools = response.json()["tools"]
    assert tools[0]["defer_loading"] is True
    assert tools[1]["type"] == "namespace" and tools[1]["tools"][0]["defer_loading"] is True
    assert tools[2] == SEARCH


@pytest.mark.parametrize(
    ("tool", "param", "code"),
    [
        ({**CRM, "tools": []}, "tools[0].tools", "invalid_type"),
        ({**CRM, "tools": [{"type": "web_search"}]}, "tools[0].tools[0].type", "invalid_value"),
        ({k: v for k, v in CRM.items() if k != "name"}, "tools[0].name", "missing_required_parameter"),
        ({**CRM, "tools": [{"type": "function", "name": "bad name"}]}, "tools[0].tools[0].name", "invalid_value"),
        ({**SEARCH, "execution": "remote"}, "tools[0].execution", "invalid_value"),
        ({**WEATHER, "defer_loading": "yes"}, "tools[0].defer_loading", "invalid_type"),
    ],
)  # fmt: skip
def test_bad_tool_search_declarations_are_openai_400s(
    tool: dict[str, Any], param: str, code: str
) -> None:
    response = post_mock({"input": "Hi", "tools": [tool]})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", param, code)


@pytest.fixture
def sdk() -> Iterator[openai.OpenAI]:
    mock = InProcessMock()
    http = httpx2.Client(transport=mock.transport)
    client = openai.OpenAI(base_url=mock.base_url, api_key="sk-test", http_client=http)
    yield client
    client.close()
    mock.close()


def test_the_openai_sdk_accumulates_a_server_search_stream(sdk: openai.OpenAI) -> None:
    with sdk.responses.stream(
        model="mock",
        input="Weather in Paris?",
        tools=[WEATHER, CRM, SEARCH],  # type: ignore[list-item]
    ) as stream:
        for _event in stream:
            pass
        final = stream.get_final_response()
    assert [i.type for i in final.output] == ["tool_search_call", "tool_search_output", "function_call"]  # fmt: skip
