"""WebSocket mode's connection state on the mock (reference_impl.service.ws_state): a `store: false`
response continued on its own socket, evicted by a failed continuation, unknown to a new
connection; `generate: false` prepared to chain from. Every session is judged frame by frame."""

from __future__ import annotations

from typing import Any

import httpx
from test_mock_websocket import Session

from mock_server.testing import LoopbackMock


def _answer(s: Session, lane: str | None = None, **body: Any) -> dict[str, Any]:
    """Create and read to its end: the terminal event, or the error that refused it."""
    s.create(lane, **body)
    return s.until_terminals(1)[-1]


def _code(event: dict[str, Any]) -> str | None:
    return event["error"]["code"] if event["type"] == "error" else None


def test_store_false_continues_on_the_same_socket(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    parent = _answer(s, input="My name is Ada.", store=False)["response"]
    alone = _answer(s, "other", input="What is my name?", store=False)["response"]
    # Continued from the cache: the parent's input and output come first (more input tokens).
    child = _answer(s, input="What is my name?", store=False, previous_response_id=parent["id"])
    assert child["type"] == "response.completed", child
    assert child["response"]["previous_response_id"] == parent["id"]
    assert child["response"]["usage"]["input_tokens"] > alone["usage"]["input_tokens"]
    assert s.verdict() == []


def test_a_store_false_id_is_unknown_on_a_new_connection(responses_mock: LoopbackMock) -> None:
    first = Session(responses_mock)
    parent = _answer(first, input="My name is Ada.", store=False)["response"]["id"]
    assert first.verdict() == []
    second = Session(responses_mock)
    refused = _answer(second, input="What is my name?", store=False, previous_response_id=parent)
    assert _code(refused) == "previous_response_not_found"
    assert refused["status"] == 400
    assert second.verdict() == []


def test_a_failed_continuation_evicts_its_parent(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    parent = _answer(s, input="My name is Ada.", store=False)["response"]["id"]
    bad = _answer(s, input="x", store=False, previous_response_id=parent, temperature="hot")
    assert _code(bad) == "invalid_type"
    again = _answer(s, input="What is my name?", store=False, previous_response_id=parent)
    assert _code(again) == "previous_response_not_found"
    assert s.verdict() == []


def test_a_failed_fork_keeps_the_source_lanes_parent(responses_mock: LoopbackMock) -> None:
    """[SDK] README: "an errored cross-lane fork preserves the shared parent for the source
    lane"."""
    s = Session(responses_mock)
    parent = _answer(s, "a", input="My name is Ada.", store=False)["response"]["id"]
    bad = _answer(s, "b", input="x", store=False, previous_response_id=parent, top_p="high")
    assert _code(bad) == "invalid_type"
    child = _answer(s, "a", input="And now?", store=False, previous_response_id=parent)
    assert child["type"] == "response.completed", child
    assert s.verdict() == []


def test_a_lane_keeps_only_its_most_recent_response(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    older = _answer(s, input="one", store=False)["response"]["id"]
    newer = _answer(s, input="two", store=False)["response"]["id"]
    gone = _answer(s, input="three", store=False, previous_response_id=older)
    assert _code(gone) == "previous_response_not_found"
    kept = _answer(s, input="three", store=False, previous_response_id=newer)
    assert kept["type"] == "response.completed"
    assert s.verdict() == []


def test_generate_false_prepares_a_response_to_chain_from(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    s.create(input="You are terse. My name is Ada.", store=False, generate=False)
    events = s.until_terminals(1)
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.completed",
    ]
    prepared = events[-1]["response"]
    assert prepared["status"] == "completed" and prepared["output"] == []
    usage = prepared["usage"]
    assert usage["output_tokens"] == 0 and usage["input_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"]
    child = _answer(s, input="What is my name?", store=False, previous_response_id=prepared["id"])
    assert child["type"] == "response.completed", child
    assert child["response"]["output"], "the continuation generates"
    assert s.verdict() == []


def test_generate_false_with_store_is_stored_like_any_response(
    responses_mock: LoopbackMock,
) -> None:
    s = Session(responses_mock)
    prepared = _answer(s, input="hello", generate=False)["response"]
    assert s.verdict() == []
    got = httpx.get(f"{responses_mock.base_url}/responses/{prepared['id']}").json()
    assert got["id"] == prepared["id"] and got["output"] == []


def test_generate_must_be_a_boolean(responses_mock: LoopbackMock) -> None:
    s = Session(responses_mock)
    refused = _answer(s, input="hello", generate="no")
    assert refused["error"]["param"] == "generate"
    assert _code(refused) == "invalid_type"
    assert s.verdict() == []


def test_generate_is_websocket_only(responses_mock: LoopbackMock) -> None:
    answer = httpx.post(
        f"{responses_mock.base_url}/responses",
        json={"model": "mock", "input": "hello", "generate": False},
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == "generate"


def test_a_prepared_response_continued_with_no_new_input(responses_mock: LoopbackMock) -> None:
    """Codex sends the turn that follows its prewarm with only the input the prewarm lacked, which
    may be none (codex-rs prepare_websocket_request: allow_empty_delta): the prepared input is
    the turn's."""
    s = Session(responses_mock)
    said = [{"type": "message", "role": "user", "content": "hi there"}]
    prepared = _answer(s, input=said, store=False, generate=False)["response"]
    child = _answer(s, input=[], store=False, previous_response_id=prepared["id"])
    assert child["type"] == "response.completed", child
    text = child["response"]["output"][0]["content"][0]["text"]
    assert "hi there" in text  # the mock's answer quotes the last user message
    assert s.verdict() == []
