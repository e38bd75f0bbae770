"""Input handling without sockets: stored item forms, engine turns, history order (SPEC §4)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from reference_impl.engine import EngineHints, Message
from reference_impl.errors import APIError
from reference_impl.request.inputs import check_call_outputs, conversation_items, normalize_input
from reference_impl.request.messages import generation_request, to_messages


def ids() -> Any:
    counter = itertools.count()
    return lambda prefix: f"{prefix}_{next(counter)}"


def test_string_input_is_one_user_message() -> None:
    assert normalize_input("hello", ids()) == [
        {
            "id": "msg_0",
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "hello"}],
            "status": "completed",
        }
    ]


def test_item_forms_and_ids() -> None:
    items = normalize_input(
        [
            {"role": "developer", "content": "rules"},
            {"role": "assistant", "content": "earlier answer"},
            {
                "type": "message",
                "role": "user",
                "id": "msg_given",
                "content": [
                    {"type": "input_text", "text": "look: "},
                    {"type": "input_image", "image_url": "https://x/img.png"},
                ],
            },
            {"type": "reasoning", "summary": []},
            {"type": "reasoning", "id": "rs_given", "summary": [{"type": "summary_text", "text": "s"}],
             "status": "completed", "encrypted_content": "opaque"},
            {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1",
             "output": [{"type": "input_text", "text": "result"}]},
            {"type": "web_search_call", "status": "completed", "action": {"type": "search"}},
        ],
        ids(),
    )  # fmt: skip
    assert [i["id"] for i in items] == [
        "msg_0",
        "msg_1",
        "msg_given",
        "rs_2",
        "rs_given",
        "fc_3",
        "fco_4",
        "ws_5",
    ]
    assert items[1]["content"] == [
        {"type": "output_text", "text": "earlier answer", "annotations": []}
    ]
    assert items[4] == {
        "id": "rs_given",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "s"}],
        "encrypted_content": "opaque",
        "status": "completed",
    }


def test_to_messages_gathers_an_assistant_turn() -> None:
    items = normalize_input(
        [
            {"role": "user", "content": "q"},
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}]},
            {"role": "assistant", "content": "let me call"},
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "one"},
            {"type": "function_call_output", "call_id": "c2", "output": "two"},
            {"role": "user", "content": [{"type": "input_image", "file_id": "file_1"}]},
        ],
        ids(),
    )
    messages = to_messages(items, "system rules")
    assert messages == [
        Message("system", "system rules"),
        Message("user", "q"),
        Message(
            "assistant",
            "let me call",
            tool_calls=(
                {"call_id": "c1", "name": "f", "arguments": "{}"},
                {"call_id": "c2", "name": "g", "arguments": "{}"},
            ),
            reasoning="think",
        ),
        Message("tool", "one", tool_call_id="c1"),
        Message("tool", "two", tool_call_id="c2"),
        Message("user", "", images=("file_1",)),
    ]


def test_consecutive_assistant_messages_stay_separate() -> None:
    items = normalize_input(
        [{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}], ids()
    )
    assert [m.content for m in to_messages(items, None)] == ["a", "b"]


def test_history_order_is_prior_input_prior_output_new_input() -> None:
    prior_input = [{"id": "msg_1", "type": "message", "role": "user", "content": "q1"}]
    prior_output = [{"id": "msg_2", "type": "message", "role": "assistant", "content": "a1"}]
    new = [{"id": "msg_3", "type": "message", "role": "user", "content": "q2"}]
    assert [i["id"] for i in conversation_items(prior_input, prior_output, new)] == [
        "msg_1",
        "msg_2",
        "msg_3",
    ]


def test_generation_request_fields() -> None:
    body = {
        "model": "m",
        "input": "x",
        "tools": [
            {"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": True},
            {"type": "web_search"},
        ],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "max_output_tokens": 64,
        "reasoning": {"effort": "low", "summary": "auto"},
        "text": {"format": {"type": "json_object"}},
        "metadata": {"k": "v"},
    }
    request = generation_request(body, normalize_input("x", ids()), EngineHints(attempt=2))
    assert [t.name for t in request.tools] == ["f"] and request.tools[0].strict is True
    assert request.tool_choice == "required" and request.parallel_tool_calls is False
    assert request.max_output_tokens == 64
    assert (request.reasoning_effort, request.reasoning_summary) == ("low", "auto")
    assert request.text_format == {"type": "json_object"}
    assert request.metadata == {"k": "v"} and request.hints == EngineHints(attempt=2)
    assert request.body is body


@pytest.mark.parametrize(
    ("value", "param"),
    [
        ([{"role": "user"}], "input[0].content"),
        ([{"type": "function_call_output", "output": "x"}], "input[0].call_id"),
        ([{"role": "user", "content": [{"type": "input_image"}]}], "input[0].content[0].image_url"),
        ([{"type": "reasoning", "content": [{"text": 1}]}], "input[0].content[0]"),
        ([{"type": "message", "role": "user", "content": "x", "id": 5}], "input[0].id"),
        ([{}], "input[0].type"),
    ],
)
def test_bad_items_name_their_path(value: Any, param: str) -> None:
    with pytest.raises(APIError) as info:
        normalize_input(value, ids())
    assert info.value.status == 400 and info.value.param == param


def test_call_outputs_must_answer_a_call_in_the_conversation() -> None:
    call = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "call_1", "output": "r"}
    # The conversation is the whole chain: the call may be in the new input or before it.
    check_call_outputs([call, output], [output])
    check_call_outputs([{**output, "call_id": "old"}], [])  # only the new input is checked
    with pytest.raises(APIError) as info:
        check_call_outputs(
            [call, {**output, "call_id": "call_2"}], [{**output, "call_id": "call_2"}]
        )
    error = info.value
    assert (error.status, error.param, error.code) == (400, "input", None)
    assert error.message == "No tool call found for function call output with call_id call_2."
