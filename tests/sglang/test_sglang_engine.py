"""The in-process SGLang engine through the reference app: exact scripted output, judged streams,
usage from SGLang's meta_info, and aborts — a client disconnect and a cancel stop the SGLang request."""

from __future__ import annotations

import time
from typing import Any

import pytest

pytest.importorskip("sglang", reason="SGLang is not installed (tox -e sglang installs it)")

import httpx2
from scripted_models import PLAIN_ANSWER, PLAIN_REASONING, STORY
from sglang_support import Stack

from conformance.sse.framing import SSEStreamValidator

PROFILES = ("core", "stateful", "reasoning")


def _client(stack: Stack) -> httpx2.Client:
    return httpx2.Client(base_url=stack.inprocess.base_url, timeout=60)


def _texts(response: dict[str, Any]) -> tuple[str, str]:
    reasoning = message = ""
    for item in response["output"]:
        if item["type"] == "reasoning":
            reasoning += "".join(p["text"] for p in item.get("content") or ())
        elif item["type"] == "message":
            message += "".join(p["text"] for p in item["content"])
    return reasoning, message


def test_exact_scripted_answer_with_reasoning_and_usage(stack: Stack) -> None:
    with _client(stack) as client:
        response = client.post("/v1/responses", json={"model": "m", "input": "Say hi"}).json()
    reasoning, message = _texts(response)
    # SGLang's qwen3 reasoning parser split the model's `<think>…</think>` from the answer.
    assert reasoning.strip() == PLAIN_REASONING
    assert message.strip() == PLAIN_ANSWER
    usage = response["usage"]
    assert response["status"] == "completed"
    assert usage["output_tokens"] == 40  # the script's tokens + EOS, as SGLang counted them
    assert 0 < usage["output_tokens_details"]["reasoning_tokens"] < usage["output_tokens"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_stream_is_judged_clean(stack: Stack) -> None:
    validator = SSEStreamValidator(profiles=PROFILES, keep_events=True)
    with (
        _client(stack) as client,
        client.stream(
            "POST", "/v1/responses", json={"model": "m", "input": "Say hi", "stream": True}
        ) as response,
    ):
        for chunk in response.iter_bytes():
            validator.feed(chunk)
    validator.close()
    assert [v.check.id for v in validator.violations] == []
    types = [e["type"] for e in validator.events if isinstance(e, dict)]
    assert "response.reasoning_text.delta" in types and "response.output_text.delta" in types
    assert types[-1] == "response.completed"


def test_count_input_tokens_matches_usage(stack: Stack) -> None:
    body = {"model": "m", "input": "Say hi"}
    with _client(stack) as client:
        counted = client.post("/v1/responses/input_tokens", json=body).json()["input_tokens"]
        used = client.post("/v1/responses", json=body).json()["usage"]["input_tokens"]
    assert counted == used


def test_max_output_tokens_is_exact_and_incomplete(stack: Stack) -> None:
    body = {"model": "m", "input": "Tell me a story", "max_output_tokens": 16}
    with _client(stack) as client:
        response = client.post("/v1/responses", json=body).json()
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response["usage"]["output_tokens"] == 16  # SGLang native stops at N-2 (notes)
    assert STORY.split()[0] in _texts(response)[1]


def _wait_gone(stack: Stack, rid: str, timeout: float = 10.0) -> bool:
    """True once SGLang's tokenizer manager forgot ``rid`` (the scheduler confirmed the abort)."""
    manager = stack.inprocess.backend.inner.engine.tokenizer_manager
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if rid not in manager.rid_to_state:
            return True
        time.sleep(0.05)
    return False


def test_client_disconnect_aborts_the_sglang_request(stack: Stack) -> None:
    spy = stack.inprocess.backend
    body = {"model": "m", "input": "Tell me a story", "stream": True, "max_output_tokens": 3000}
    deltas = 0
    with _client(stack) as client, client.stream("POST", "/v1/responses", json=body) as response:
        for line in response.iter_lines():
            if line.startswith("event: response.output_text.delta"):
                deltas += 1
                if deltas == 5:
                    rid = spy.started[-1]
                    assert (
                        rid in stack.inprocess.backend.inner.engine.tokenizer_manager.rid_to_state
                    )
                    break  # leaving the block closes the connection mid-stream
    deadline = time.monotonic() + 10
    while rid not in spy.aborted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rid in spy.aborted
    assert _wait_gone(stack, rid), "SGLang kept generating after the client went away"


def test_cancel_aborts_the_sglang_request(stack: Stack) -> None:
    spy = stack.inprocess.backend
    body = {"model": "m", "input": "Tell me a story", "background": True, "max_output_tokens": 3000}
    before = len(spy.started)
    with _client(stack) as client:
        created = client.post("/v1/responses", json=body).json()
        deadline = time.monotonic() + 30
        while len(spy.started) == before and time.monotonic() < deadline:
            time.sleep(0.02)  # the background task has not reached SGLang yet
        assert len(spy.started) == before + 1
        rid = spy.started[-1]
        assert rid not in spy.aborted
        cancelled = client.post(f"/v1/responses/{created['id']}/cancel").json()
        assert cancelled["status"] == "cancelled"
    assert rid in spy.aborted
    assert _wait_gone(stack, rid), "SGLang kept generating after the cancel"
