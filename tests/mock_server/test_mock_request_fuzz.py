"""Bad input gets a 4xx in OpenAI's error shape, never a 500 or a traceback (the project's contract).

Valid request bodies of every kind the mock serves get values of the wrong JSON type at random
places — an object where a schema's `properties` belongs, a number as an input item, null as a
tool name — and go through the whole app (validation, the engine, the SSE or JSON response). It
found malformed JSON Schemas reaching the mock's value generator (`properties: 1e30` → 500);
OpenAI refuses them with 400 `invalid_json_schema` / `invalid_function_parameters`, and so do we.
"""

from __future__ import annotations

import json
import random
from typing import Any

import httpx2
import pytest
from wrong_types import confuse

from conformance.bodies.objects import validate_error_body
from mock_server.testing import InProcessMock

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
BODIES: tuple[dict[str, Any], ...] = (
    {"model": "m", "input": "hi"},
    {
        "model": "m",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "instructions": "be brief",
        "max_output_tokens": 50,
    },
    {"model": "m", "input": "weather?", "tools": [WEATHER], "tool_choice": "auto"},
    {
        "model": "m",
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        ],
    },
    {
        "model": "m",
        "input": "hi",
        "reasoning": {"effort": "low", "summary": "auto"},
        "stream": True,
    },
    {
        "model": "m",
        "input": "hi",
        "text": {
            "format": {
                "type": "json_schema",
                "name": "x",
                "schema": {"type": "object", "properties": {"a": {"type": "string"}}},
            }
        },
    },
    {
        "model": "m",
        "input": "hi",
        "metadata": {"k": "v"},
        "store": False,
        "temperature": 0.5,
        "top_p": 1,
        "parallel_tool_calls": True,
        "include": ["reasoning.encrypted_content"],
    },
)


@pytest.mark.parametrize("seed", [0, 1])
def test_wrongly_typed_request_bodies_get_openai_shaped_4xx(seed: int) -> None:
    rng = random.Random(seed)
    mock = InProcessMock()
    refused = 0
    with httpx2.Client(transport=mock.transport, base_url=mock.url, timeout=10) as client:
        for _ in range(400):
            body = confuse(rng.choice(BODIES), rng, rng.randint(1, 2))
            response = client.post("/v1/responses", content=json.dumps(body))
            assert response.status_code < 500, (body, response.text[:300])
            if response.status_code >= 400:
                refused += 1
                assert not validate_error_body(response.json()), (body, response.text[:300])
    assert refused > 100  # most wrong types are refused: the test judged, not just survived
    mock.close()
