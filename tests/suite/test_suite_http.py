"""The suite's HTTP client: 429s are waited out (not verdicts); the judge sees every answer."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
from suite_support import mock_app, serve

from conformance.sse.framing import SSEStreamValidator
from conformance.suite.http import DEFAULT_MAX_BODY_BYTES, TargetClient, TargetHung
from mock_server.faults import FaultPlan


def test_rate_limits_are_waited_out() -> None:
    waits: list[float] = []
    with serve(mock_app(faults=FaultPlan.combine(["429=3@1,2"]))) as url:
        client = TargetClient(url, api_key=None, timeout=10, max_events=1000, sleep=waits.append)
        ex = client.call("POST", "/responses", json_body={"model": "mock", "input": "hi"})
        client.close()
    assert ex.status == 200 and ex.rate_limited == 2
    assert waits == [3.0, 3.0]  # Retry-After, capped at 5 s and at the deadline


def test_a_stream_goes_through_the_validator_and_the_event_cap() -> None:
    with serve(mock_app()) as url:
        client = TargetClient(url, api_key=None, timeout=10, max_events=5)
        validator = SSEStreamValidator(max_events=5, keep_events=True)
        body = {"model": "mock", "input": "hi", "stream": True}
        ex = client.stream("POST", "/responses", validator=validator, json_body=body)
        client.close()
    assert ex.status == 200 and ex.error is not None and "abandoned" in ex.error
    assert {v.check_id for v in validator.violations} >= {"sse.limit.event_count"}


def test_a_hung_target_is_given_up_after_three_timeouts() -> None:
    client = TargetClient("http://127.0.0.1:9/v1", api_key=None, timeout=1, max_events=10)
    client._timeouts_in_a_row = 3  # as after three requests that timed out
    try:
        client.call("GET", "/models")
    except TargetHung as exc:
        assert "did not answer the last 3 requests" in str(exc)
    else:
        raise AssertionError("a hung target was sent another request")
    finally:
        client.close()


# --- bounded bodies: what a target sends is capped before it is buffered ------------

MiB = 1024 * 1024


def _huge_error(status: int, size: int, answers: list[int]) -> Any:
    """An app answering ``status`` with ``size`` bytes of body, streamed 1 MiB at a time."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        answers.append(status)
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"0")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        chunk = b"x" * MiB
        for _ in range(size // MiB):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


@pytest.mark.parametrize("status", [429, 500])
def test_a_huge_error_body_is_capped_before_it_is_buffered(status: int) -> None:
    """A 429 (retried twice) or a 500 with a 256 MiB body: the client holds at most its cap.
    Before the cap on 429s the client read each one whole (a 1 GB 429 body: 2.1 GB RSS)."""
    answers: list[int] = []
    with serve(_huge_error(status, 256 * MiB, answers), quiet=True) as url:
        client = TargetClient(
            url, api_key=None, timeout=60, max_events=10, sleep=lambda _: None, max_body_bytes=MiB
        )
        tracemalloc.start()
        try:
            ex = client.call("POST", "/responses", json_body={"model": "mock", "input": "hi"})
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
            client.close()
    assert ex.status == status
    assert answers == [status] * (3 if status == 429 else 1)
    if status == 500:
        assert ex.error == f"body larger than {MiB} bytes"
    # The cap plus a few chunks in flight; unbounded: 256 MiB (× the copies of a join).
    assert peak < 16 * MiB, peak


def test_the_body_cap_is_an_option_with_the_documented_default() -> None:
    client = TargetClient("http://127.0.0.1:9/v1", api_key=None, timeout=1, max_events=10)
    assert client.max_body_bytes == DEFAULT_MAX_BODY_BYTES == 16 * MiB
    client.close()
