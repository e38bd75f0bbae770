"""Helpers for the mock's tests: an independent token counter, SSE reading, scenario requests."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import orjson

from conformance.catalog.registry import Level
from conformance.validator import StreamValidator
from mock_server.testing import InProcessMock

_WORD = re.compile(r"\w")


def independent_count(text: str) -> int:
    """The tokenizer's documented rule (mock_server/tokenizer.py), re-implemented by hand:
    optional whitespace + a word run, optional whitespace + one other character, or trailing
    whitespace."""
    n, i = 0, 0
    while i < len(text):
        j = i
        while j < len(text) and text[j].isspace():
            j += 1
        if j == len(text):
            return n + 1
        if _WORD.match(text[j]):
            while j < len(text) and _WORD.match(text[j]):
                j += 1
        else:
            j += 1
        n, i = n + 1, j
    return n


def sse_events(raw: bytes) -> list[dict[str, Any]]:
    """The JSON events of an SSE body as the mock frames it (``event:``/``data:`` + blank line)."""
    events = []
    for frame in raw.split(b"\n\n"):
        for line in frame.split(b"\n"):
            if line.startswith(b"data: ") and line != b"data: [DONE]":
                events.append(orjson.loads(line[6:]))
    return events


WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_forecast",
    "description": "Forecast for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
        },
        "required": ["city", "days", "unit"],
        "additionalProperties": False,
    },
    "strict": True,
}
TIME_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_time",
    "description": None,
    "parameters": {
        "type": "object",
        "properties": {"tz": {"type": "string"}},
        "required": ["tz"],
        "additionalProperties": False,
    },
    "strict": True,
}
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "items": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
    },
    "required": ["title", "items"],
    "additionalProperties": False,
}


CITY_GRAMMAR_TOOL: dict[str, Any] = {
    "type": "custom",
    "name": "forecast_query",
    "description": "A forecast query: CITY, DAYS days.",
    "format": {
        "type": "grammar",
        "syntax": "lark",
        "definition": 'start: CITY ", " DAYS " days"\nCITY: /[A-Z][a-z]{2,9}/\nDAYS: /[1-7]/',
    },
}


def scenario_request(scenario: str) -> dict[str, Any]:
    """The request the golden tests send for ``scenario`` (chosen by model name)."""
    body: dict[str, Any] = {
        "model": f"mock-{scenario}",
        "input": "What is the weather in Paris today?",
        "instructions": "Answer briefly.",
    }
    if "function-call" in scenario:
        body["tools"] = [WEATHER_TOOL, TIME_TOOL]
    if scenario == "max-output-tokens":
        body["max_output_tokens"] = 20
    if scenario == "custom-tool-call":
        body["tools"] = [CITY_GRAMMAR_TOOL]
    if scenario == "structured-output":
        body["text"] = {
            "format": {
                "type": "json_schema",
                "name": "answer",
                "schema": ANSWER_SCHEMA,
                "strict": True,
            }
        }
    if scenario == "reasoning":
        body["reasoning"] = {"effort": "medium", "summary": "detailed"}
    return body


def post_mock(body: dict[str, Any]) -> httpx2.Response:
    """``POST /responses`` with ``body`` (model ``mock`` unless it names one) to an in-process mock;
    the response is read whole."""
    mock = InProcessMock()
    try:
        with httpx2.Client(transport=mock.transport, base_url=mock.base_url) as client:
            response = client.post("/responses", json={"model": "mock", **body})
            response.read()
            return response
    finally:
        mock.close()


def judged_stream(body: dict[str, Any], *, allow_info: bool = False) -> list[dict[str, Any]]:
    """The events of ``body`` streamed from an in-process mock, judged by the stream validator: no
    violation at all, or (``allow_info``) none above INFO — ``--strict``, MUST and SHOULD."""
    response = post_mock({**body, "stream": True})
    assert response.status_code == 200, response.text
    events = sse_events(response.content)
    validator = StreamValidator()
    found = [v for e in events for v in validator.feed(e)] + validator.close()
    failing = [v for v in found if not (allow_info and v.check.level is Level.INFO)]
    assert not failing, failing
    return events
