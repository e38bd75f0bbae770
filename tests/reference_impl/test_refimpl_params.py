"""Request fields: every one the openai SDK's types allow is accepted, null included; fields real
clients send that the schema lacks are accepted; `include[]` values are the SDK's enum, no other;
unknown fields keep OpenAI's `unknown_parameter` 400.

The tests enumerate the SDK's own types (ResponseCreateParamsBase, ResponseIncludable), so a field
or value a newer SDK adds fails here until the protocol layer handles it. They drive the mock
(the protocol layer of reference_impl with a deterministic engine) in process."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest
from openai.types.responses import Response, response_create_params
from openai.types.responses.response_includable import ResponseIncludable

from mock_server.app import MockSettings
from mock_server.testing import IN_PROCESS_URL, InProcessMock
from reference_impl.request.validation import INCLUDABLE, KNOWN_CREATE_PARAMS, NO_EFFECT_PARAMS

# A valid value for every field of the SDK's ResponseCreateParamsBase (+ `stream`). A field the SDK
# adds is missing here, and test_every_sdk_field_has_a_sample fails until it is handled.
SAMPLES: dict[str, Any] = {
    "access_programs": {"cyber": "standard"},
    "background": False,
    "background_options": {"completion_window": "soonest", "continuation_id": "c-1"},
    "context_management": [{"type": "compaction", "compact_threshold": 100000}],
    "conversation": None,  # its own tests: test_refimpl_conversations.py
    "image": {"context_compression": "auto"},
    "include": ["reasoning.encrypted_content"],
    "input": "Hello",
    "instructions": "Be brief.",
    "max_output_tokens": 64,
    "max_tool_calls": 3,
    "metadata": {"k": "v"},
    "model": "mock-text",
    "moderation": {"model": "omni-moderation-latest", "policy": {"input": {"mode": "score"}}},
    "parallel_tool_calls": True,
    "previous_response_id": None,  # chains: test_refimpl_app.py
    "prompt": None,  # templates: test_refimpl_prompts.py
    "prompt_cache_key": "cache-1",
    "prompt_cache_options": {"mode": "implicit", "ttl": "30m", "prewarm": False},
    "prompt_cache_retention": "24h",
    "reasoning": {"effort": "max", "summary": "auto", "context": "all_turns", "mode": "standard"},
    "safety_identifier": "user-1",
    "service_tier": "fast",
    "store": True,
    "stream": False,
    "stream_options": None,  # only with stream: true
    "temperature": 0.5,
    "text": {"verbosity": "low", "format": {"type": "text"}},
    "tool_choice": "auto",
    "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
    "top_logprobs": 2,
    "top_p": 0.9,
    "truncation": "disabled",
    "user": "u-1",
}


def sdk_fields() -> set[str]:
    return set(response_create_params.ResponseCreateParamsBase.__annotations__) | {"stream"}


def optional_fields() -> list[str]:
    """The SDK fields whose type admits null (what a client built from a model dump sends)."""
    hints = typing.get_type_hints(response_create_params.ResponseCreateParamsStreaming)
    hints |= typing.get_type_hints(response_create_params.ResponseCreateParamsNonStreaming)
    return sorted(k for k, t in hints.items() if type(None) in typing.get_args(t))


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    mock = InProcessMock(MockSettings(seed=3, frozen_time=1_700_000_000))
    with httpx2.Client(transport=mock.transport, base_url=IN_PROCESS_URL) as client:
        yield client
    mock.close()


def post(http: httpx2.Client, body: dict[str, Any]) -> httpx2.Response:
    return http.post("/v1/responses", json=body)


def test_every_sdk_field_has_a_sample_and_is_known() -> None:
    assert sdk_fields() - set(SAMPLES) == set(), "a new SDK field: add a sample and handle it"
    assert sdk_fields() <= KNOWN_CREATE_PARAMS


def test_every_sdk_field_at_once_is_accepted_and_the_no_effect_ones_are_echoed(
    http: httpx2.Client,
) -> None:
    body = {k: v for k, v in SAMPLES.items() if v is not None}
    response = post(http, body)
    assert response.status_code == 200, response.text
    data = response.json()
    Response.model_validate(data)
    # Echoed as the Response model reports them: the effective setting.
    assert data["access_programs"] == {"cyber": "standard"}
    assert data["image"] == {"context_compression": "disabled"}
    assert data["prompt_cache_options"] == {
        "mode": "implicit",
        "ttl": "30m",
        "comparison_response_id": None,
    }
    assert "moderation" not in data  # Response.moderation holds results; none are produced
    for key in ("prompt_cache_key", "prompt_cache_retention", "safety_identifier", "user"):
        assert data[key] == body[key], key
    # SDK ServiceTier: "The response will show service_tier=priority ... if you specify fast".
    assert data["service_tier"] == "priority"
    assert data["reasoning"]["effort"] == "max"
    assert data["reasoning"]["context"] == "all_turns"
    assert data["reasoning"]["mode"] == "standard"
    assert NO_EFFECT_PARAMS <= KNOWN_CREATE_PARAMS


@pytest.mark.parametrize("key", optional_fields())
def test_each_nullable_sdk_field_may_be_null(http: httpx2.Client, key: str) -> None:
    body: dict[str, Any] = {"model": "mock-text", "input": "Hi", key: None}
    if key in ("model", "input"):
        body[key] = SAMPLES[key]
    response = post(http, body)
    assert response.status_code == 200, (key, response.text)


def test_all_nullable_fields_null_together_and_nested_nulls(http: httpx2.Client) -> None:
    body: dict[str, Any] = dict.fromkeys(optional_fields())
    body |= {"model": "mock-text", "input": "Hi"}
    body["reasoning"] = {"effort": None, "summary": None, "generate_summary": None, "context": None}
    body["text"] = {"format": None, "verbosity": None}
    body["stream_options"] = None
    body["prompt_cache_options"] = {"comparison_response_id": None}
    body["moderation"] = {"model": "omni-moderation-latest", "policy": None}
    response = post(http, body)
    assert response.status_code == 200, response.text


def test_output_items_sent_back_as_model_dump_with_their_nulls_are_accepted(
    http: httpx2.Client,
) -> None:
    # The Agents SDK and others replay `item.model_dump()`: every optional field as null.
    first = post(
        http,
        {
            "model": "mock-auto",
            "input": "Weather?",
            "reasoning": {"effort": "low", "summary": "auto"},
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
            "tool_choice": "required",
        },
    )
    assert first.status_code == 200, first.text
    output = Response.model_validate(first.json()).output
    dumped = [item.model_dump() for item in output]
    assert any(None in d.values() for d in dumped), "the dump carries nulls"
    history: list[Any] = [{"role": "user", "content": "Weather?"}, *dumped]
    calls = [d for d in dumped if d["type"] == "function_call"]
    history += [
        {"type": "function_call_output", "call_id": c["call_id"], "output": "sunny"} for c in calls
    ]
    again = post(http, {"model": "mock-text", "input": history, "store": False})
    assert again.status_code == 200, again.text


def test_codex_cli_first_request_is_accepted(http: httpx2.Client) -> None:
    # The fields of Codex CLI 0.169's first request; it failed with 400
    # "Unknown parameter: 'client_metadata'".
    body = {
        "model": "mock-text",
        "instructions": "You are Codex.",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "tools": [
            {"type": "function", "name": "exec_command", "parameters": {"type": "object"}, "strict": False},
            {"type": "web_search", "external_web_access": False},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "0199-session",
        "client_metadata": {"x-codex-installation-id": "abc", "x-codex-turn": "1"},
        "text": {"verbosity": "low"},
    }  # fmt: skip
    response = post(http, body)
    assert response.status_code == 200, response.text
    assert b"response.completed" in response.content


def test_every_sdk_includable_value_is_handled_and_a_bogus_one_is_refused(
    http: httpx2.Client,
) -> None:
    sdk = set(typing.get_args(ResponseIncludable))
    assert sdk == set(INCLUDABLE), "a new include[] value: honour it or refuse it"
    for value in sorted(sdk):
        response = post(http, {"model": "mock-text", "input": "Hi", "include": [value]})
        assert response.status_code == 200, (value, response.text)
    for bogus in ("reasoning.everything", "", "REASONING.ENCRYPTED_CONTENT"):
        response = post(http, {"model": "mock-text", "input": "Hi", "include": [bogus]})
        assert response.status_code == 400
        error = response.json()["error"]
        assert (error["type"], error["param"], error["code"]) == (
            "invalid_request_error",
            "include[0]",
            "invalid_value",
        )
        assert "Supported values are" in error["message"]


@pytest.mark.parametrize(
    ("extra", "param", "code"),
    [
        ({"bogus_field": 1}, "bogus_field", "unknown_parameter"),
        ({"service_tier": "turbo"}, "service_tier", "invalid_value"),
        ({"reasoning": {"effort": "maximal"}}, "reasoning.effort", "invalid_value"),
        ({"reasoning": {"context": "never"}}, "reasoning.context", "invalid_value"),
        ({"client_metadata": "x"}, "client_metadata", "invalid_type"),
        ({"client_metadata": {"a": {"b": 1}}}, "client_metadata.a", "invalid_type"),
        ({"moderation": []}, "moderation", "invalid_type"),
        ({"prompt_cache_options": {"ttl": "1y"}}, "prompt_cache_options.ttl", "invalid_value"),
        ({"access_programs": {"cyber": "red"}}, "access_programs.cyber", "invalid_value"),
        ({"image": {"context_compression": 1}}, "image.context_compression", "invalid_type"),
        ({"prompt_cache_retention": "forever"}, "prompt_cache_retention", "invalid_value"),
        ({"include": "reasoning.encrypted_content"}, "include", "invalid_type"),
    ],
)
def test_malformed_fields_get_openai_shaped_400s(
    http: httpx2.Client, extra: dict[str, Any], param: str, code: str
) -> None:
    response = post(http, {"model": "mock-text", "input": "Hi", **extra})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["param"], error["code"]) == (param, code)


def test_the_sdk_sends_fast_and_max_and_reads_them_back() -> None:
    mock = InProcessMock(MockSettings(frozen_time=1_700_000_000))
    try:
        client = mock.client()
        response = client.responses.create(
            model="mock-reasoning",
            input="Hi",
            service_tier="fast",
            reasoning={"effort": "max"},
            extra_body={"client_metadata": {"source": "test"}},
        )
        assert response.service_tier == "priority"
        assert response.reasoning is not None and response.reasoning.effort == "max"
        with pytest.raises(openai.BadRequestError) as info:
            client.responses.create(model="mock-text", input="Hi", extra_body={"nope": 1})
        assert info.value.code == "unknown_parameter"
    finally:
        mock.close()
