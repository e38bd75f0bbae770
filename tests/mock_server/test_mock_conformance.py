"""Every scenario, streamed and not, judged by the conformance validator in --strict terms
(no MUST and no SHOULD violation), over loopback HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import orjson
import pytest
from mock_support import scenario_request

from conformance.bodies.objects import validate_error_body, validate_response_body
from conformance.schema import SCHEMAS
from conformance.sse.framing import SSEStreamValidator
from conformance.validator import PROFILES
from conformance.validator.tables import OPENRESPONSES_EVENTS
from mock_server.app import FROZEN_TIME, MockSettings
from mock_server.engine import Chunking
from mock_server.scenarios import SCENARIOS
from mock_server.testing import LoopbackMock

ALL_PROFILES = sorted(PROFILES)


@pytest.fixture(scope="module", params=["1", "1-5"], ids=["1-token-deltas", "1-to-5-token-deltas"])
def http(request: pytest.FixtureRequest) -> Iterator[tuple[LoopbackMock, httpx2.Client]]:
    settings = MockSettings(
        seed=11, frozen_time=FROZEN_TIME, chunking=Chunking.parse(request.param)
    )
    with LoopbackMock(settings) as mock, httpx2.Client(base_url=mock.base_url, timeout=30) as c:
        yield mock, c


# The mock speaks OpenAI's dialect: raw reasoning as `response.reasoning_text.*` and hosted-tool
# progress events, which Open Responses names otherwise or not at all (docs/spec.md §7.10). Under
# the `openresponses` profile those OpenAI event types, and nothing else, fail.
OPENAI_DIALECT = SCHEMAS.event_types() - OPENRESPONSES_EVENTS


def _openai_dialect(v: Any) -> bool:
    return bool(v.check_id == "event.type.openresponses" and v.actual in OPENAI_DIALECT)


def _strict(violations: list) -> list[str]:  # type: ignore[type-arg]
    return [
        v.format()
        for v in violations
        if v.level.name in ("MUST", "SHOULD") and not _openai_dialect(v)
    ]


@pytest.mark.parametrize("chunk", ["1", "1-5"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stream_passes_the_judge(
    scenario: str, chunk: str, http: tuple[LoopbackMock, httpx2.Client]
) -> None:
    _mock, client = http
    body = {**scenario_request(scenario), "stream": True}
    validator = SSEStreamValidator(
        profiles=ALL_PROFILES, max_output_tokens=body.get("max_output_tokens")
    )
    violations = []
    with client.stream("POST", "/responses", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for raw in response.iter_raw():
            violations += validator.feed(raw)
    violations += validator.close()
    assert not _strict(violations)
    expected_end = {"failure": "failed", "max-output-tokens": "incomplete"}.get(
        scenario, "completed"
    )
    assert validator.validator.terminal_type == f"response.{expected_end}"


@pytest.mark.parametrize("max_output_tokens", [None, 20])
def test_hidden_reasoning_passes_the_judge(
    max_output_tokens: int | None, http: tuple[LoopbackMock, httpx2.Client]
) -> None:
    # reasoning.effort without reasoning.summary: a reasoning item with `summary: []` (auto mode).
    _mock, client = http
    body: dict[str, Any] = {"model": "mock", "input": "Why?", "reasoning": {"effort": "medium"}}
    if max_output_tokens is not None:
        body["max_output_tokens"] = max_output_tokens  # cut inside the reasoning
    validator = SSEStreamValidator(profiles=ALL_PROFILES, max_output_tokens=max_output_tokens)
    violations = []
    with client.stream("POST", "/responses", json={**body, "stream": True}) as response:
        for raw in response.iter_raw():
            violations += validator.feed(raw)
    violations += validator.close()
    assert not _strict(violations)
    plain = client.post("/responses", json=body).json()
    judged = validate_response_body(
        plain, profiles=ALL_PROFILES, max_output_tokens=max_output_tokens
    )
    assert not _strict(judged)
    assert plain["output"][0] == {
        "id": plain["output"][0]["id"],
        "type": "reasoning",
        "summary": [],
    }
    reasoning_tokens = plain["usage"]["output_tokens_details"]["reasoning_tokens"]
    if max_output_tokens is None:
        assert plain["status"] == "completed" and reasoning_tokens >= 64
        assert plain["output"][1]["type"] == "message"
    else:
        assert plain["status"] == "incomplete" and len(plain["output"]) == 1
        assert reasoning_tokens == plain["usage"]["output_tokens"] == max_output_tokens


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s != "failure"])
def test_body_passes_the_judge(scenario: str, http: tuple[LoopbackMock, httpx2.Client]) -> None:
    _mock, client = http
    body = scenario_request(scenario)
    response = client.post("/responses", json=body)
    assert response.status_code == 200
    violations = validate_response_body(
        orjson.loads(response.content),
        profiles=ALL_PROFILES,
        max_output_tokens=body.get("max_output_tokens"),
    )
    assert not _strict(violations)


@pytest.mark.parametrize(
    ("request_kw", "status"),
    [
        ({"json": scenario_request("failure")}, 500),
        ({"json": {"model": "mock"}, "headers": {"x-mock-fault": "429"}}, 429),
        ({"json": {"model": "mock"}, "headers": {"x-mock-fault": "503"}}, 503),
        ({"json": {"model": "mock"}, "headers": {"x-mock-fault": "bogus"}}, 400),
        ({"json": {"model": "mock"}, "headers": {"x-mock-scenario": "bogus"}}, 400),
    ],
)
def test_error_bodies_pass_the_judge(
    request_kw: dict,
    status: int,
    http: tuple[LoopbackMock, httpx2.Client],  # type: ignore[type-arg]
) -> None:
    _mock, client = http
    response = client.post("/responses", **request_kw)
    assert response.status_code == status
    body = orjson.loads(response.content)
    assert not _strict(validate_error_body(body))
    assert isinstance(body["error"]["code"], str | None)


def test_openai_dialect_is_what_fails_open_responses(
    http: tuple[LoopbackMock, httpx2.Client],
) -> None:
    # The exemption above covers exactly OpenAI's raw-reasoning events in that scenario.
    _mock, client = http
    body = {**scenario_request("raw-reasoning"), "stream": True}
    validator = SSEStreamValidator(profiles=("core", "openresponses"))
    with client.stream("POST", "/responses", json=body) as response:
        for raw in response.iter_raw():
            validator.feed(raw)
    validator.close()
    failing = {(v.check_id, v.actual) for v in validator.violations if v.level.name == "MUST"}
    assert failing == {
        ("event.type.openresponses", "response.reasoning_text.delta"),
        ("event.type.openresponses", "response.reasoning_text.done"),
    }
