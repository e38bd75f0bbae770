"""ResponseAssembler without sockets: event order, objects, terminal states (SPEC §1–§3)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

import pytest
from refimpl_support import Step, check_stream, scripts

from reference_impl.assembler.stream import ResponseAssembler, obfuscation
from reference_impl.engine import (
    EngineError,
    Final,
    GenerationRequest,
    HostedToolCall,
    Message,
    ReasoningDelta,
    ReasoningItem,
    TextDelta,
    TextRun,
    ToolCallDelta,
)

BODY: dict[str, Any] = {
    "model": "test-model",
    "input": "hi",
    "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
}


def counting_ids() -> Any:
    counter = itertools.count()
    return lambda prefix: f"{prefix}_{next(counter):04d}"


def assemble(
    steps: Sequence[Step], body: dict[str, Any] | None = None, **kw: Any
) -> tuple[ResponseAssembler, list[dict[str, Any]]]:
    body = dict(BODY if body is None else body)
    request = GenerationRequest(model=body["model"], messages=[Message("user", "hi")], body=body)
    asm = ResponseAssembler(
        request,
        response_id="resp_1",
        created_at=1_700_000_000,
        new_id=counting_ids(),
        clock=lambda: 1_700_000_002.7,
        **kw,
    )
    events = asm.start() + asm.begin()
    for step in steps:
        if isinstance(step, EngineError):
            events += asm.fail(step.message, step.code)
            break
        events += asm.feed(step)  # type: ignore[arg-type]
    return asm, events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


@pytest.mark.parametrize("name", sorted(scripts()))
def test_every_script_gives_a_well_formed_stream(name: str) -> None:
    asm, events = assemble(scripts()[name])
    check_stream(events)
    assert asm.finished
    assert events[-1]["response"] is asm.response  # non-stream body == terminal response


def test_text_stream_matches_openai_recording_shape() -> None:
    _, events = assemble([TextDelta("blue"), TextDelta("-42"), Final("stop", 91, 7)])
    assert types(events) == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    added = events[2]["item"]
    assert added == {
        "id": "msg_0000",
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    }
    assert events[3]["part"] == {
        "type": "output_text",
        "annotations": [],
        "logprobs": [],
        "text": "",
    }
    delta = events[4]
    assert delta["logprobs"] == [] and len(delta["delta"] + delta["obfuscation"]) == 16
    assert events[6]["text"] == "blue-42" and events[6]["logprobs"] == []
    terminal = events[-1]["response"]
    assert terminal["status"] == "completed" and terminal["completed_at"] == 1_700_000_002
    assert terminal["usage"] == {
        "input_tokens": 91,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
        "output_tokens": 7,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 98,
    }
    assert events[0]["response"]["completed_at"] is None


def test_response_carries_the_union_of_recorded_and_open_responses_fields() -> None:
    _, events = assemble(scripts()["text"])
    required = {
        # [OAPI] / [REC]
        "id", "object", "created_at", "error", "incomplete_details", "instructions", "model",
        "tools", "output", "parallel_tool_calls", "metadata", "tool_choice", "temperature", "top_p",
        # [OR] ResponseResource
        "completed_at", "status", "previous_response_id", "truncation", "text", "presence_penalty",
        "frequency_penalty", "top_logprobs", "reasoning", "user", "usage", "max_output_tokens",
        "max_tool_calls", "store", "background", "service_tier", "safety_identifier",
        "prompt_cache_key",
    }  # fmt: skip
    for event in events:
        if "response" in event:
            assert required <= event["response"].keys()
            assert isinstance(event["response"]["created_at"], int)
    tools = events[-1]["response"]["tools"]
    assert tools == [
        {
            "type": "function",
            "description": None,
            "name": "get_weather",
            "parameters": {"type": "object"},
            "strict": None,
        }
    ]


def test_reasoning_summary_parts_are_framed_and_indexed() -> None:
    _, events = assemble(scripts()["reasoning_summary"])
    reasoning = [e for e in events if "summary" in e["type"]]
    assert types(reasoning) == [
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
    ]
    assert [e["summary_index"] for e in reasoning] == [0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert events[2]["item"] == {"id": "rs_0000", "type": "reasoning", "summary": []}
    item = events[-1]["response"]["output"][0]
    assert item["summary"] == [
        {"type": "summary_text", "text": "Thinking hard."},
        {"type": "summary_text", "text": "Second part."},
    ]
    assert events[-1]["response"]["usage"]["output_tokens_details"]["reasoning_tokens"] == 8


def test_raw_reasoning_uses_reasoning_text_parts() -> None:
    _, events = assemble(scripts()["reasoning_raw"])
    part_added = next(e for e in events if e["type"] == "response.content_part.added")
    assert part_added["part"] == {"type": "reasoning_text", "text": ""}  # KB04
    assert "response.reasoning_text.done" in types(events)
    # KB05: the reasoning part is closed before its item
    closing = types(events)[types(events).index("response.reasoning_text.done") :][:3]
    assert closing == [
        "response.reasoning_text.done",
        "response.content_part.done",
        "response.output_item.done",
    ]
    item = events[-1]["response"]["output"][0]
    assert item["content"] == [{"type": "reasoning_text", "text": "raw thoughts"}]
    assert all(
        "obfuscation" not in e for e in events if e["type"].startswith("response.reasoning_text")
    )


def test_reasoning_item_without_text_is_added_and_done_with_an_empty_summary() -> None:
    # The shape of [REC] openai-code-interpreter-tool.1 (reasoning.effort set, no summary).
    _, events = assemble(
        [ReasoningItem(), TextDelta("Hi."), Final("stop", 5, 30, reasoning_tokens=28)]
    )
    assert types(events)[2:4] == ["response.output_item.added", "response.output_item.done"]
    item = {"id": "rs_0000", "type": "reasoning", "summary": []}
    assert events[2]["item"] == events[3]["item"] == item
    assert events[2]["output_index"] == events[3]["output_index"] == 0
    response = events[-1]["response"]
    assert response["output"][0] == item and response["output"][1]["type"] == "message"
    assert response["usage"]["output_tokens_details"]["reasoning_tokens"] == 28
    # A reasoning delta after it starts a new item; one before it is closed first.
    _, events = assemble(
        [ReasoningDelta("shown"), ReasoningItem(), ReasoningDelta("again"), Final("stop", 5, 9)]
    )
    output = events[-1]["response"]["output"]
    assert [len(o["summary"]) for o in output] == [1, 0, 1]
    assert len({o["id"] for o in output}) == 3


def test_refusal_part() -> None:
    _, events = assemble(scripts()["refusal"])
    assert events[3]["part"] == {"type": "refusal", "refusal": ""}
    done = next(e for e in events if e["type"] == "response.refusal.done")
    assert done["refusal"] == "I can't help with that."
    assert events[-1]["response"]["output"][0]["content"] == [
        {"type": "refusal", "refusal": "I can't help with that."}
    ]


def test_parallel_function_calls_are_separate_items() -> None:
    _, events = assemble(scripts()["parallel_calls"])
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert [(a["type"], a["name"], a["arguments"], a["status"]) for a in added] == [
        ("function_call", "get_weather", "", "in_progress"),
        ("function_call", "get_time", "", "in_progress"),
    ]
    assert all(a["call_id"].startswith("call_") for a in added)
    assert [a["id"] for a in added] == ["fc_0001", "fc_0003"]  # each call id is drawn first
    done = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert [d["arguments"] for d in done] == ['{"city":"Paris"}', '{"tz":"CET"}']
    assert all("name" not in d for d in done)  # as in [REC] and [SDK]


def test_engine_call_id_is_kept() -> None:
    _, events = assemble(scripts()["function_call"])
    assert events[-1]["response"]["output"][0]["call_id"] == "call_abc"


def test_web_search_call_progress_events() -> None:
    _, events = assemble(scripts()["web_search"])
    assert types(events)[2:7] == [
        "response.output_item.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.output_item.done",
    ]
    assert events[2]["item"] == {
        "id": "ws_0000",
        "type": "web_search_call",
        "status": "in_progress",
    }
    assert events[6]["item"]["action"] == {"type": "search", "query": "news"}
    assert events[7]["output_index"] == 1


def test_cut_off_ends_incomplete_with_the_open_item_incomplete_and_last() -> None:
    _, events = assemble(scripts()["cut_off"], {**BODY, "max_output_tokens": 16})
    terminal = events[-1]
    assert terminal["type"] == "response.incomplete"
    response = terminal["response"]
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response["output"][-1]["status"] == "incomplete"
    assert response["completed_at"] is None
    assert response["usage"]["output_tokens"] == 16


def test_content_filter_reason() -> None:
    _, events = assemble(scripts()["content_filter"])
    assert events[-1]["response"]["incomplete_details"] == {"reason": "content_filter"}


def test_failure_emits_nested_error_then_failed() -> None:
    _, events = assemble(scripts()["failure_midstream"])
    error, failed = events[-2], events[-1]
    assert error == {
        "type": "error",
        "sequence_number": error["sequence_number"],
        "error": {
            "type": "server_error",
            "code": "server_error",
            "message": "the engine broke",
            "param": None,
        },
    }
    assert failed["type"] == "response.failed"
    assert failed["response"]["error"] == {"code": "server_error", "message": "the engine broke"}
    assert failed["response"]["output"] == []  # the open message never finished
    assert failed["response"]["usage"] is None


def test_final_error_keeps_usage() -> None:
    _, events = assemble(scripts()["failure_final"])
    assert types(events)[-2:] == ["error", "response.failed"]
    assert events[-1]["response"]["usage"]["input_tokens"] == 5


@pytest.mark.parametrize(
    "steps",
    [
        [ToolCallDelta(0, "{}")],  # no name
        [ToolCallDelta(0, "{", name="a"), TextDelta("x"), ToolCallDelta(0, "}")],  # resumed
        [HostedToolCall("teleport_call")],
    ],
)
def test_engine_contract_violations_fail_the_response(steps: list[Step]) -> None:
    _, events = assemble(steps)
    check_stream(events)
    assert types(events)[-2:] == ["error", "response.failed"]


def test_chunk_after_final_is_rejected() -> None:
    asm, _ = assemble(scripts()["text"])
    with pytest.raises(EngineError):
        asm.feed(TextDelta("late"))


def test_background_lifecycle_is_queued_first() -> None:
    body = {**BODY, "background": True}
    request = GenerationRequest(model="m", messages=[], body=body)
    asm = ResponseAssembler(request, response_id="resp_1", created_at=1, new_id=counting_ids())
    start = asm.start()
    assert types(start) == ["response.created", "response.queued"]
    assert [e["response"]["status"] for e in start] == ["queued", "queued"]
    assert start[0]["response"]["background"] is True
    assert types(asm.begin()) == ["response.in_progress"]
    assert asm.begin() == []


def test_cancel_drops_open_items_and_emits_nothing() -> None:
    asm, _ = assemble([TextDelta("a")])
    response = asm.cancel()
    assert response["status"] == "cancelled" and response["output"] == []
    assert asm.fail("late") == []


def test_obfuscation_is_deterministic_and_padded() -> None:
    assert obfuscation("resp_1", 4, "blue") == obfuscation("resp_1", 4, "blue")
    assert obfuscation("resp_1", 4, "blue") != obfuscation("resp_1", 5, "blue")
    assert len(obfuscation("r", 1, "")) == 16
    assert len(obfuscation("r", 1, "x" * 40)) < 16
    assert obfuscation("r", 1, "abc").isalnum()


@pytest.mark.parametrize("delta", ["", "blue", " word", "é✓", "x" * 40])
def test_obfuscation_is_the_one_shot_hash(delta: str) -> None:
    # The assembler hashes the response id once and copies the state per delta; the golden
    # snapshots pin the bytes, this pins the formula they were made with.
    digest = hashlib.blake2b(f"resp_1\x00{7}\x00{delta}".encode(), digest_size=17).digest()
    size = 16 - len(delta) if len(delta) < 16 else digest[0] % 16
    alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    assert obfuscation("resp_1", 7, delta) == "".join(alnum[b % 62] for b in digest[1 : 1 + size])


def test_include_obfuscation_false_omits_it() -> None:
    body = {**BODY, "stream_options": {"include_obfuscation": False}}
    _, events = assemble(scripts()["text"], body)
    assert all("obfuscation" not in e for e in events)


def test_lifecycle_snapshots_are_not_mutated_later() -> None:
    _, events = assemble(scripts()["text"])
    assert events[0]["response"]["status"] == "in_progress"
    assert events[0]["response"]["output"] == []


def test_usage_is_clamped_to_consistent_values() -> None:
    _, events = assemble([TextDelta("x"), Final("stop", 3, 2, cached_tokens=9, reasoning_tokens=7)])
    usage = events[-1]["response"]["usage"]
    assert usage["input_tokens_details"]["cached_tokens"] == 3
    assert usage["output_tokens_details"]["reasoning_tokens"] == 2
    assert usage["total_tokens"] == 5


def test_reasoning_then_text_then_tool_call_indices() -> None:
    steps = [
        ReasoningDelta("r"),
        TextDelta("t"),
        ToolCallDelta(0, "{}", name="get_weather"),
        Final("tool_calls", 1, 3),
    ]
    _, events = assemble(steps)
    check_stream(events)
    output = events[-1]["response"]["output"]
    assert [o["type"] for o in output] == ["reasoning", "message", "function_call"]
    assert len({o["id"] for o in output}) == 3  # KB02


def _as_runs(steps: Sequence[Step], size: int) -> list[Step]:
    """``steps`` with each stretch of TextDelta chunks regrouped into TextRun chunks of ``size``."""
    out: list[Step] = []
    texts: list[str] = []
    for step in [*steps, None]:
        if isinstance(step, TextDelta):
            texts.append(step.text)
            continue
        out += [TextRun(texts[i : i + size]) for i in range(0, len(texts), size)]
        texts = []
        if step is not None:
            out.append(step)
    return out


@pytest.mark.parametrize("size", [1, 2, 5])
@pytest.mark.parametrize("obfuscate", [True, False])
@pytest.mark.parametrize(
    "steps",
    [
        [*(TextDelta(t) for t in ("Hel", "lo", ",", " world", ".")), Final("stop", 3, 5)],
        [ReasoningDelta("hmm"), *(TextDelta(t) for t in "abcdefg"), Final("length", 3, 8)],
        [
            TextDelta("a"),
            ToolCallDelta(0, "{}", name="get_weather"),
            *(TextDelta(t) for t in "bc"),
            Final("tool_calls", 3, 4),
        ],
    ],
)
def test_text_runs_give_the_events_of_their_deltas(
    steps: list[Step], size: int, obfuscate: bool
) -> None:
    body = {**BODY, "stream_options": {"include_obfuscation": obfuscate}}
    _, expected = assemble(steps, body)
    _, events = assemble(_as_runs(steps, size), body)
    assert events == expected
    assert assemble([TextRun([]), *steps], body)[1] == expected  # an empty run: no events
