"""The suite's HTTP client: 429s are waited out (not verdicts); the judge sees every answer."""

from __future__ import annotations

from suite_support import mock_app, serve

from conformance.stream import SSEStreamValidator
from conformance.suite.http import TargetClient, TargetHung
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
