"""Fault plans: the syntax, and the faults as the real ``openai`` SDK meets them over loopback."""

from __future__ import annotations

import math

import httpx2
import openai
import pytest
from mock_support import sse_events

from mock_server.app import MockSettings
from mock_server.faults import Fault, FaultPlan, FaultSyntaxError
from mock_server.testing import LoopbackMock

KEY = b"request-fingerprint"


def test_syntax() -> None:
    plan = FaultPlan.parse("429@1,2; 500=2@3-4 ; error=5@5+; drop; slow=0.5~0.25")
    kinds = [(f.kind, f.status, f.arg) for f in plan.faults]
    assert kinds == [
        ("status", 429, None),
        ("status", 500, 2.0),
        ("error", 0, 5.0),
        ("drop", 0, None),
        ("slow", 0, 0.5),
    ]
    assert plan.faults[0].spans == ((1, 1), (2, 2))
    assert plan.faults[1].spans == ((3, 4),)
    assert plan.faults[2].spans == ((5, math.inf),)
    assert plan.faults[4].probability == 0.25
    assert FaultPlan.parse("none") == FaultPlan.parse("") == FaultPlan()
    bad_spans = ("429@0", "429@0-2", "429@0+", "429@3-1", "500@1,0")  # never fire: refused
    for bad in ("x", "429@", "429@0-", "200", "error=abc", "slow~2", "429@1;;bogus", *bad_spans):
        with pytest.raises(FaultSyntaxError):
            FaultPlan.parse(bad)


def test_injection_by_attempt() -> None:
    plan = FaultPlan.parse("429@1,2;error=4@3")
    assert [plan.injection(n, KEY).status for n in (1, 2, 3, 4)] == [429, 429, None, None]
    assert plan.injection(3, KEY).error_after == 4
    assert plan.injection(4, KEY).error_after is None
    assert plan.injection(1, KEY).retry_after == 0.001
    assert FaultPlan.parse("503=7").injection(9, KEY).retry_after == 7


def test_probability_is_seeded_by_request_and_attempt() -> None:
    fault = FaultPlan.parse("500~0.5").faults[0]
    assert isinstance(fault, Fault)
    hits = [fault.applies(n, KEY) for n in range(1, 201)]
    assert hits == [fault.applies(n, KEY) for n in range(1, 201)]
    assert 60 < sum(hits) < 140
    assert hits != [fault.applies(n, b"other request") for n in range(1, 201)]


def test_429_twice_is_retried_by_the_sdk(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=2) as client:
        response = client.responses.create(
            model="mock-text", input="hi", extra_headers={"x-mock-fault": "429@1,2"}
        )
        assert response.status == "completed"
        with client.responses.stream(
            model="mock-reasoning", input="hi", extra_headers={"x-mock-fault": "500@1;503@2"}
        ) as stream:
            assert stream.get_final_response().status == "completed"
    attempts = [(r.attempt, r.injection.status) for r in responses_mock.requests]
    assert attempts == [(1, 429), (2, 429), (3, None), (1, 500), (2, 503), (3, None)]


def test_429_three_times_surfaces_as_rate_limit_error(responses_mock: LoopbackMock) -> None:
    with (
        responses_mock.client(max_retries=2) as client,
        pytest.raises(openai.RateLimitError) as info,
    ):
        client.responses.create(model="mock", input="hi", extra_headers={"x-mock-fault": "429@1-3"})
    error = info.value
    assert error.status_code == 429
    assert error.code == "rate_limit_exceeded"
    assert error.response.headers["retry-after-ms"] == "1"
    assert error.response.headers["retry-after"] == "1"
    assert len(responses_mock.requests) == 3


def test_server_wide_plan_and_header_override() -> None:
    with (
        LoopbackMock(MockSettings(faults=FaultPlan.parse("429@1"))) as mock,
        mock.client(max_retries=0) as client,
    ):
        with pytest.raises(openai.RateLimitError):
            client.responses.create(model="mock", input="hi")
        assert client.responses.create(model="mock", input="hi").status == "completed"  # attempt 2
        # The header replaces the server's plan for that request.
        ok = client.responses.create(
            model="mock", input="new", extra_headers={"x-mock-fault": "none"}
        )
        assert ok.status == "completed"


def test_mid_stream_error_fault(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=0) as client:
        events = []
        with pytest.raises(openai.APIError, match="injected a mid-stream error"):
            for event in client.responses.create(
                model="mock-text",
                input="hi",
                stream=True,
                extra_headers={"x-mock-fault": "error=3"},
            ):
                events.append(event.type)
        assert events.count("response.output_text.delta") == 3
    raw = httpx2.post(
        responses_mock.base_url + "/responses",
        json={"model": "mock-text", "input": "hi", "stream": True},
        headers={"x-mock-fault": "error=3"},
    )
    types = [e["type"] for e in sse_events(raw.content)]
    assert types[-2:] == ["error", "response.failed"]


def test_dropped_connection(responses_mock: LoopbackMock) -> None:
    received = b""
    with (
        pytest.raises(httpx2.RemoteProtocolError),
        httpx2.stream(
            "POST",
            responses_mock.base_url + "/responses",
            json={"model": "mock-text", "input": "hi", "stream": True},
            headers={"x-mock-fault": "drop=6"},
        ) as response,
    ):
        for chunk in response.iter_raw():
            received += chunk
    assert [e["type"] for e in sse_events(received)][-1] == "response.output_text.delta"
    assert len(sse_events(received)) == 6
    with (
        responses_mock.client(max_retries=0) as client,
        pytest.raises(openai.APIConnectionError),
        client.responses.stream(
            model="mock-text", input="x", extra_headers={"x-mock-fault": "drop=6"}
        ) as s,
    ):
        for _ in s:
            pass


def test_slow_start_then_retry(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=1, timeout=0.3) as client:
        response = client.responses.create(
            model="mock", input="hi", extra_headers={"x-mock-fault": "slow=0.6@1"}
        )
    assert response.status == "completed"
    assert [r.attempt for r in responses_mock.requests] == [1, 2]


def test_seeded_faults_repeat_across_fresh_servers() -> None:
    outcomes = []
    for _ in range(2):
        settings = MockSettings(seed=4, faults=FaultPlan.parse("500~0.5"))
        with LoopbackMock(settings) as mock, mock.client(max_retries=0) as client:
            run = []
            for i in range(12):
                try:
                    client.responses.create(model="mock", input=f"q{i % 3}")
                    run.append("ok")
                except openai.InternalServerError:
                    run.append("500")
            outcomes.append(run)
    assert outcomes[0] == outcomes[1]
    assert "ok" in outcomes[0] and "500" in outcomes[0]
