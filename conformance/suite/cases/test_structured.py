"""Structured output: `text.format` json_schema (strict) gets output text that parses as JSON valid
for the schema, streamed and not (SPEC §3 Request)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ...catalog import live as L
from .. import answers as A
from ..probe import Probe
from .support import schema_errors

pytestmark = pytest.mark.profiles("structured")

CITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "country": {"type": "string"},
        "population_millions": {"type": "number"},
        "landmarks": {"type": "array", "items": {"type": "string"}},
        "continent": {
            "type": "string",
            "enum": ["Africa", "Antarctica", "Asia", "Europe", "North America", "Oceania",
                     "South America"],
        },
    },
    "required": ["city", "country", "population_millions", "landmarks", "continent"],
    "additionalProperties": False,
}  # fmt: skip


@pytest.mark.checks(L.STRUCTURED_JSON_SCHEMA.id)
@pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])
def test_json_schema(probe: Probe, stream: bool) -> None:
    fmt = {"type": "json_schema", "name": "city_facts", "schema": CITY_SCHEMA, "strict": True}
    body = probe.body(input="Give facts about Paris.", text={"format": fmt})
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    text = A.output_text(response)
    try:
        value: Any = json.loads(text)
        errors = schema_errors(value, CITY_SCHEMA)
    except ValueError as exc:
        errors = [f"not JSON: {exc}"]
    probe.check(
        L.STRUCTURED_JSON_SCHEMA, response.get("status") == "completed" and not errors,
        probe.last, expected="status completed; output text valid for the city_facts schema",
        actual=f"status {response.get('status')!r}; {'; '.join(errors) or 'valid'}: {text[:200]!r}",
    )  # fmt: skip
