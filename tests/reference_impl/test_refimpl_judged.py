"""Every stream, body and error the protocol layer produces, judged by the conformance suite.

The judge (``conformance/``) and the judged share no code (tests/conformance/test_import_contract.py); only this test imports both.
No MUST or SHOULD violation is allowed, in every profile (``--strict`` with ``openresponses``), but
the OpenAI event types Open Responses does not define (below).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from refimpl_support import FrozenIds, ScriptedEngine, scripts
from test_refimpl_app import BAD_BODIES, TOOLS

from conformance.bodies.objects import validate_error_body, validate_response_body
from conformance.catalog.registry import Level, Violation
from conformance.schema import SCHEMAS
from conformance.sse.framing import SSEStreamValidator
from conformance.validator import PROFILES
from conformance.validator.tables import OPENRESPONSES_EVENTS
from reference_impl.service.app import create_app

pytestmark = pytest.mark.anyio


# The reference speaks OpenAI's dialect: raw reasoning as `response.reasoning_text.*` and
# hosted-tool progress events, which Open Responses names otherwise or not at all
# (docs/spec.md §7.10): under the `openresponses` profile those OpenAI types, and nothing else, fail.
OPENAI_DIALECT = SCHEMAS.event_types() - OPENRESPONSES_EVENTS


def serious(violations: list[Violation]) -> list[str]:
    return [
        v.format()
        for v in violations
        if v.level in (Level.MUST, Level.SHOULD)
        and not (v.check_id == "event.type.openresponses" and v.actual in OPENAI_DIALECT)
    ]


def judge_stream(data: bytes, **options: Any) -> list[str]:
    validator = SSEStreamValidator(profiles=PROFILES, **options)
    # Feed in awkward chunks: the judge must not care, and neither may we.
    for start in range(0, len(data), 97):
        validator.feed(data[start : start + 97])
    validator.close()
    return serious(validator.violations)


@pytest.fixture
async def client(engine: ScriptedEngine) -> AsyncIterator[httpx2.AsyncClient]:
    app = create_app(engine, ids=FrozenIds(), clock=lambda: 1_750_000_000.0)
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://test") as c:
        yield c


@pytest.mark.parametrize("name", sorted(scripts()))
@pytest.mark.parametrize("background", [False, True])
async def test_streams_pass_the_judge(
    client: httpx2.AsyncClient, engine: ScriptedEngine, name: str, background: bool
) -> None:
    engine.push(scripts()[name], scripts()[name])
    body: dict[str, Any] = {"model": "m", "input": "hi", "tools": TOOLS, "max_output_tokens": 64}
    if background:
        body["background"] = True
    streamed = await client.post("/v1/responses", json={**body, "stream": True})
    assert judge_stream(streamed.content, max_output_tokens=64) == []
    if background:
        # Resumed after the first three events (created, queued, in_progress; SPEC §2.12).
        response_id = streamed.content.split(b'"id":"', 1)[1].split(b'"', 1)[0].decode()
        resumed = await client.get(f"/v1/responses/{response_id}?stream=true&starting_after=2")
        assert judge_stream(resumed.content, resume_after=2) == []
        final = (await client.get(f"/v1/responses/{response_id}")).json()
        assert serious(validate_response_body(final, profiles=PROFILES)) == []
        return
    plain = await client.post("/v1/responses", json=body)
    if plain.status_code == 200:
        assert serious(validate_response_body(plain.json(), profiles=PROFILES)) == []
    else:
        assert serious(validate_error_body(plain.json())) == []


@pytest.mark.parametrize(("body", "param", "code"), BAD_BODIES)
async def test_error_bodies_pass_the_judge(
    client: httpx2.AsyncClient, body: Any, param: str | None, code: str | None
) -> None:
    response = await client.post("/v1/responses", json=body)
    assert response.status_code == 400
    assert serious(validate_error_body(response.json())) == []


async def test_other_error_bodies_pass_the_judge(client: httpx2.AsyncClient) -> None:
    for response in [
        await client.get("/v1/responses/resp_missing"),
        await client.get("/v1/unknown"),
        await client.put("/v1/responses"),
        await client.post("/v1/responses", content=b"{"),
    ]:
        assert response.status_code >= 400
        assert serious(validate_error_body(response.json())) == []
