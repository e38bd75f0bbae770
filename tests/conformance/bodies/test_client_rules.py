"""Rules that clients enforce, each with a failing example built from real
traffic and its passing near miss (docs/spec.md §7.7, §7.8 cite the client code).

Bodies are judged with :func:`validate_response_body`, streams with :class:`StreamValidator`; every
example asserts the exact set of failing check IDs, so a rule cannot pass by a neighbour firing.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance import StreamValidator, failing, validate_response_body
from conformance.offline.recorded import check_bytes

DATA = Path(__file__).parents[2] / "data"
CORPUS1 = DATA / "openai-recorded"
CORPUS2 = DATA / "openai-recorded-2"
LOGPROBS_STREAM = (
    CORPUS2
    / "streams"
    / "pai.test_openai.test_openai_instructions_with_responses_logprobs_streaming.0.sse"
)


def load(path: Path) -> Any:
    return copy.deepcopy(json.loads(path.read_text()))


def sse_events(path: Path) -> list[dict[str, Any]]:
    """The JSON events of a raw SSE recording, in order."""
    events = []
    for block in path.read_text().replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data and data[0] != "[DONE]":
            events.append(json.loads("\n".join(data)))
    return events


def jsonl_events(name: str) -> list[dict[str, Any]]:
    lines = (CORPUS1 / "streams" / f"{name}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line]


def body_ids(body: dict[str, Any], **kwargs: Any) -> set[str]:
    return {v.check_id for v in failing(validate_response_body(body, **kwargs), strict=True)}


def stream_ids(events: list[dict[str, Any]], **kwargs: Any) -> set[str]:
    validator = StreamValidator(**kwargs)
    for event in events:
        validator.feed(event)
    validator.close()
    return {v.check_id for v in failing(validator.violations, strict=True)}


def terminal_body(events: list[dict[str, Any]]) -> dict[str, Any]:
    response: dict[str, Any] = copy.deepcopy(events[-1]["response"])
    return response


# --- response.item.status_completed (C2) ---------------------------------------------------------


def test_completed_function_call_passes() -> None:
    body = load(CORPUS1 / "bodies" / "azure-tool-call.1.json")
    assert body["status"] == "completed" and body["output"][-1]["type"] == "function_call"
    assert body_ids(body) == set()


@pytest.mark.parametrize("status", ["in_progress", "searching"])
def test_function_call_left_open_in_a_completed_response_fails(status: str) -> None:
    body = load(CORPUS1 / "bodies" / "azure-tool-call.1.json")
    body["output"][-1]["status"] = status
    assert body_ids(body) == {"response.item.status_completed"}


def test_message_left_open_in_a_completed_response_fails() -> None:
    body = load(CORPUS1 / "bodies" / "azure-text.1.json")
    message = next(o for o in body["output"] if o["type"] == "message")
    message["status"] = "in_progress"
    assert body_ids(body) == {"response.item.status_completed"}


def test_program_issued_call_may_stay_in_progress() -> None:
    # [REC] programmatic-tool-calling.2: the call a program issued stays `in_progress`.
    body = load(CORPUS1 / "bodies" / "programmatic-tool-calling.2.json")
    call = next(o for o in body["output"] if o["type"] == "function_call")
    assert call["status"] == "in_progress" and call["caller"]["type"] == "program"
    assert body_ids(body) == set()
    del call["caller"]  # the same call, issued by the model: it must be finished
    assert "response.item.status_completed" in body_ids(body)


def test_hosted_tool_items_keep_their_own_status() -> None:
    # [REC] azure-web-search-preview-tool.1: a `web_search_call` still `searching` in the
    # completed response; OpenAI sends it so, and no client acts on it.
    body = load(CORPUS1 / "bodies" / "azure-web-search-preview-tool.1.json")
    assert any(o.get("status") == "searching" for o in body["output"])
    assert body_ids(body) == set()


def test_stream_terminal_with_an_open_call_fails() -> None:
    events = jsonl_events("azure-tool-call.1")
    assert stream_ids(events) == set()
    for event in events:
        if event["type"] == "response.output_item.done":
            event["item"]["status"] = "in_progress"
        if event["type"] == "response.completed":
            event["response"]["output"][-1]["status"] = "in_progress"
    assert stream_ids(events) == {"response.item.status_completed"}


# --- response.logprobs.nonpositive, response.logprobs.top_count (C3) -----------------------


def test_recorded_logprobs_pass() -> None:
    events = sse_events(LOGPROBS_STREAM)
    body = terminal_body(events)
    entries = body["output"][0]["content"][0]["logprobs"]
    assert entries and all(e["logprob"] <= 0 for e in entries)  # 0.0 and -0.0 are recorded
    assert body_ids(body) == set()


def test_positive_logprob_fails_and_zero_passes() -> None:
    body = terminal_body(sse_events(LOGPROBS_STREAM))
    entries = body["output"][0]["content"][0]["logprobs"]
    entries[1]["logprob"] = 0.0
    assert body_ids(body) == set()
    entries[1]["logprob"] = 0.25
    assert body_ids(body) == {"response.logprobs.nonpositive"}


def test_positive_alternative_logprob_fails() -> None:
    body = terminal_body(sse_events(LOGPROBS_STREAM))
    body["top_logprobs"] = 1
    entry = body["output"][0]["content"][0]["logprobs"][0]
    entry["top_logprobs"] = [{"token": "A", "logprob": -0.5, "bytes": [65]}]
    assert body_ids(body) == set()
    entry["top_logprobs"][0]["logprob"] = 3.0
    assert body_ids(body) == {"response.logprobs.nonpositive"}


def test_more_alternatives_than_top_logprobs_fails() -> None:
    body = terminal_body(sse_events(LOGPROBS_STREAM))
    entry = body["output"][0]["content"][0]["logprobs"][0]
    alternatives = [{"token": t, "logprob": -1.0, "bytes": [ord(t)]} for t in "AB"]
    body["top_logprobs"] = 2
    entry["top_logprobs"] = alternatives
    assert body_ids(body) == set()
    body["top_logprobs"] = 1
    assert body_ids(body) == {"response.logprobs.top_count"}
    body["top_logprobs"] = None  # the response does not say: nothing to compare with
    assert body_ids(body) == set()


def test_logprob_findings_are_bounded_per_list() -> None:
    body = terminal_body(sse_events(LOGPROBS_STREAM))
    part = body["output"][0]["content"][0]
    part["logprobs"] = [{"token": "x", "logprob": 1.0, "bytes": [120], "top_logprobs": []}] * 5000
    found = [
        v for v in validate_response_body(body) if v.check_id == "response.logprobs.nonpositive"
    ]
    assert len(found) == 1 and "5000" in found[0].message


def test_recorded_logprob_stream_passes_strict() -> None:
    verdict = check_bytes(LOGPROBS_STREAM.read_bytes(), name=LOGPROBS_STREAM.name)
    assert failing(verdict.violations, strict=True) == []
