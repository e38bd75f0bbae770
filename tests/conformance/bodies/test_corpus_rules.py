"""The rules real traffic refined (docs/spec.md §7.2–§7.5): each refinement lets the recorded
OpenAI behaviour through and still fails its nearest defect — shown on the recording itself and on
the recording edited into the defect.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance import failing, validate_response_body

CORPUS2 = Path(__file__).parents[2] / "data" / "openai-recorded-2" / "bodies"

REFUSAL = "mirascope.e2e-output.test_refusal.azure-openai_responses_gpt_4o_mini.sync.0.h-fd3a6222"
CUT_IN_REASONING = "mirascope.e2e-output.test_max_tokens.openai_gpt_5_mini.async.0.h-a6823120"
PARALLEL_UNMETERED = "pai.test_openai_responses.test_openai_responses_model_retry.0"
PRO_MODE = (
    "pai.test_openai_reasoning_ground_truth.test_reasoning_flags_match_the_api_gpt-5.6-sol.3"
    ".h-7f802e90"
)
API_SOURCE = "pai.test_openai_responses.test_openai_responses_model_web_search_tool_stream.1"


def body(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS2 / f"{name}.json").read_text())
    return copy.deepcopy(data)


def ids(response: dict[str, Any], **kwargs: Any) -> set[str]:
    return {v.check_id for v in failing(validate_response_body(response, **kwargs), strict=True)}


def zero_usage(response: dict[str, Any], *, keep_input: bool = False) -> dict[str, Any]:
    usage = response["usage"]
    usage["output_tokens"] = 0
    usage["output_tokens_details"]["reasoning_tokens"] = 0
    if not keep_input:
        usage["input_tokens"] = 0
        usage["input_tokens_details"]["cached_tokens"] = 0
    usage["total_tokens"] = usage["input_tokens"]
    return response


# --- usage.output_nonzero (D1) -------------------------------------------------------------------


def test_content_filter_refusal_with_zero_usage_passes() -> None:
    refusal = body(REFUSAL)
    assert refusal["incomplete_details"] == {"reason": "content_filter"}
    assert refusal["usage"]["total_tokens"] == 0 and refusal["output"][0]["content"][0]["text"]
    assert ids(refusal) == set()


@pytest.mark.parametrize("reason", [None, "max_output_tokens"])
def test_message_text_with_zero_usage_fails_outside_a_content_filter(reason: str | None) -> None:
    # KB11 (sglang PR #25302): usage all zero although the model wrote text.
    refusal = body(REFUSAL)
    if reason is None:
        refusal["status"], refusal["incomplete_details"] = "completed", None
        refusal["output"][0]["status"] = "completed"
    else:
        # a max_output_tokens cut with usage all zero withheld the accounting (docs/spec.md
        # §7.2, issue #32: held-back OpenAI traffic); output 0 beside counted input is the miss
        refusal["incomplete_details"] = {"reason": reason}
        assert ids(refusal) == set()
        refusal["usage"]["input_tokens"] = refusal["usage"]["total_tokens"] = 12
    assert ids(refusal) == {"usage.output_nonzero"}


def test_reasoning_cut_off_by_max_output_tokens_with_output_zero_passes() -> None:
    cut = body(CUT_IN_REASONING)
    assert cut["incomplete_details"] == {"reason": "max_output_tokens"}
    assert [o["type"] for o in cut["output"]] == ["reasoning"]
    assert cut["usage"]["output_tokens"] == 0 and cut["usage"]["input_tokens"] > 0
    assert ids(cut) == set()


def test_reasoning_with_output_zero_fails_when_not_cut_off() -> None:
    done = body(CUT_IN_REASONING)
    done["status"], done["incomplete_details"] = "completed", None
    assert ids(done) == {"usage.output_nonzero"}


def test_unmetered_parallel_function_calls_pass() -> None:
    calls = body(PARALLEL_UNMETERED)
    assert [o["type"] for o in calls["output"]] == ["function_call", "function_call"]
    assert calls["usage"]["total_tokens"] == 0 and calls["parallel_tool_calls"] is True
    assert ids(calls) == set()


def test_one_function_call_with_zero_usage_fails() -> None:
    one = body(PARALLEL_UNMETERED)
    del one["output"][1]
    assert ids(one) == {"usage.output_nonzero"}


def test_parallel_calls_with_input_counted_and_output_zero_fail() -> None:
    counted = body(PARALLEL_UNMETERED)
    counted["usage"].update(input_tokens=40, total_tokens=40)
    assert ids(counted) == {"usage.output_nonzero"}


def test_parallel_calls_beside_a_message_with_zero_usage_fail() -> None:
    mixed = body(PARALLEL_UNMETERED)
    mixed["output"].append(
        {
            "id": "msg_1",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
        }
    )
    assert ids(mixed) == {"usage.output_nonzero"}


# --- usage.max_output_tokens (D2) ----------------------------------------------------------------


def test_pro_mode_beyond_max_output_tokens_passes() -> None:
    pro = body(PRO_MODE)
    assert pro["reasoning"]["mode"] == "pro"
    assert pro["usage"]["output_tokens"] > pro["max_output_tokens"]
    assert ids(pro) == set()


@pytest.mark.parametrize("mode", ["standard", "absent"])
def test_standard_mode_beyond_max_output_tokens_fails(mode: str | None) -> None:
    standard = body(PRO_MODE)
    if mode == "absent":
        del standard["reasoning"]["mode"]
    else:
        standard["reasoning"]["mode"] = mode
    assert ids(standard) == {"usage.max_output_tokens"}


# --- the web search `api` source (D4) ------------------------------------------------------------


def _sources(response: dict[str, Any]) -> list[dict[str, Any]]:
    search = next(o for o in response["output"] if o["type"] == "web_search_call")
    sources: list[dict[str, Any]] = search["action"]["sources"]
    return sources


def test_web_search_api_source_passes() -> None:
    found = body(API_SOURCE)
    assert _sources(found) == [{"type": "api", "name": "oai-weather"}]
    assert ids(found) == set()


@pytest.mark.parametrize(
    ("source", "check_id"),
    [
        ({"type": "api"}, "response.schema.required"),  # an API source names its API
        ({"type": "api", "name": 7}, "response.schema.type"),
        ({"type": "url"}, "response.schema.required"),  # a page source still needs its url
    ],
)
def test_web_search_source_near_misses_fail(source: dict[str, Any], check_id: str) -> None:
    found = body(API_SOURCE)
    _sources(found)[0] = source
    assert check_id in ids(found)


def test_web_search_source_types_are_an_open_union() -> None:
    # Like item and part types, a source type the schema does not list is not a violation
    # (OpenAI added `api` without the schema saying so); the two it knows keep their fields.
    found = body(API_SOURCE)
    _sources(found)[0] = {"type": "book", "title": "x"}
    assert ids(found) == set()


# --- stream.item.added_state: an item cut before it began (D3) -----------------------------------

STREAMS2 = CORPUS2.parent / "streams"
FILTERED = (
    "mirascope.e2e-output.test_refusal.azure-openai_responses_gpt_4o_mini.async_stream.0.h-fd3a6222"
)


def _sse_events(name: str) -> list[dict[str, Any]]:
    text = (STREAMS2 / f"{name}.sse").read_text().replace("\r\n", "\n")
    out = []
    for block in text.split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data and data[0] != "[DONE]":
            out.append(json.loads("\n".join(data)))
    return out


def _stream_ids(events: list[dict[str, Any]]) -> set[str]:
    from conformance import StreamValidator

    validator = StreamValidator()
    for event in events:
        validator.feed(event)
    validator.close()
    return {v.check_id for v in failing(validator.violations, strict=True)}


def _set_status(events: list[dict[str, Any]], kind: str, status: str) -> None:
    for event in events:
        if event["type"] == kind:
            event["item"]["status"] = status


def test_message_opened_incomplete_by_a_content_filter_passes() -> None:
    events = _sse_events(FILTERED)
    added = next(e for e in events if e["type"] == "response.output_item.added")
    assert added["item"]["status"] == "incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": "content_filter"}
    assert _stream_ids(events) == set()


def test_message_opened_incomplete_that_completes_fails() -> None:
    events = _sse_events(FILTERED)
    _set_status(events, "response.output_item.done", "completed")
    events[-1]["response"]["output"][0]["status"] = "completed"
    assert _stream_ids(events) == {"stream.item.added_state"}


@pytest.mark.parametrize("status", ["completed", "searching"])
def test_message_opened_in_another_status_fails(status: str) -> None:
    events = _sse_events(FILTERED)
    _set_status(events, "response.output_item.added", status)
    assert _stream_ids(events) == {"stream.item.added_state"}
