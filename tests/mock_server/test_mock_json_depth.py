"""The nesting bound (reference_impl/json_limits.py, docs/limits.md) on every JSON the mock reads:
HTTP bodies on each endpoint, WebSocket frames, agent scripts, cassettes; and OpenAI's strict-schema
limits (reference_impl/request/strict_limits.py). Before the bound a body 255 levels deep was a 500
(``orjson.dumps`` in mock_server/ids.py), a WebSocket frame as deep dropped the socket, and a
strict schema 100 objects deep was a 500 (``RecursionError`` in ``jsonschema``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import websockets.sync.client as wsc

from cassettes import CassetteError
from mock_server.agent_script import ScriptError, parse
from mock_server.replay import ReplaySettings, replay_exchanges
from mock_server.testing import LoopbackMock
from reference_impl.json_limits import MAX_JSON_DEPTH, JSONTooDeep, check_depth, json_depth
from reference_impl.request.strict_limits import strict_limit_problem


def nested(depth: int, leaf: Any = "x") -> Any:
    """A value ``depth`` levels deep, alternating objects and arrays."""
    value = leaf
    for n in range(depth):
        value = {"k": value} if n % 2 else [value]
    return value


def true_depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(true_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(true_depth, value), default=0)
    return 0


# --- the lexical check alone ----------------------------------------------------------------------


def test_json_depth_matches_the_parsed_depth_with_brackets_and_escapes_inside_strings() -> None:
    rng = random.Random(7)
    texts = ['x"]\\', "q[{", "\\", '"', "}]", 1, None]

    def gen(d: int) -> Any:
        if d == 0:
            return rng.choice(texts)
        if rng.random() < 0.5:
            return [rng.choice(texts), gen(d - 1), "a]\\"]
        return {'k"[\\': gen(d - 1), "{": rng.choice(texts)}

    for _ in range(300):
        value = gen(rng.randint(0, 80))
        raw = orjson.dumps(value)
        assert json_depth(raw) == true_depth(value)
        assert json_depth(raw.decode()) == true_depth(value)


def test_check_depth_accepts_the_limit_and_refuses_one_more() -> None:
    check_depth(orjson.dumps(nested(MAX_JSON_DEPTH)))
    with pytest.raises(JSONTooDeep, match=f"limit is {MAX_JSON_DEPTH}"):
        check_depth(orjson.dumps(nested(MAX_JSON_DEPTH + 1)))


@pytest.mark.parametrize(
    "text",
    [
        b'"' + b'\\"' * 200_000,  # every quote escaped: one string to the end, not n scans
        b'"' + b"\\" * 400_000,
        b"[" + b'"\\"' * 200_000,
        b"[]" * 500_000,
    ],
)
def test_unterminated_and_adversarial_strings_are_scanned_once(text: bytes) -> None:
    # A quadratic scan of these took minutes; a linear one, milliseconds (no clock asserted).
    assert json_depth(text) <= 1


# --- HTTP: every endpoint -------------------------------------------------------------------------


def _bodies(depth: int) -> list[tuple[str, dict[str, Any]]]:
    deep = nested(depth - 2)  # inside {"field": [ ... ]} or similar: the body nests `depth`
    schema: Any = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return [
        ("/responses", {"model": "mock", "input": [deep]}),
        ("/responses", {"model": "mock", "input": "hi", "metadata": {"a": deep}}),
        ("/responses", {"model": "mock", "input": "hi", "reasoning": {"effort": deep}}),
        (
            "/responses",
            {
                "model": "mock",
                "input": "hi",
                "text": {"format": {"type": "json_schema", "name": "n", "schema": schema}},
            },
        ),
        (
            "/responses",
            {
                "model": "mock",
                "input": "hi",
                "tools": [{"type": "function", "name": "f", "parameters": schema}],
            },
        ),
        ("/responses/compact", {"model": "mock", "input": [deep]}),
        ("/responses/input_tokens", {"model": "mock", "input": [deep]}),
        ("/conversations", {"items": [deep]}),
    ]


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 255, 1_000, 5_000])
def test_a_body_past_the_limit_is_a_400_naming_it_on_every_endpoint(
    responses_mock: LoopbackMock, depth: int
) -> None:
    with httpx.Client(base_url=responses_mock.base_url, timeout=30) as client:
        for path, body in _bodies(depth):
            got = client.post(path, content=_raw(body))
            assert got.status_code == 400, (path, got.text[:300])
            error = got.json()["error"]
            assert error["type"] == "invalid_request_error"
            assert error["code"] == "json_too_deep"
            assert f"the limit is {MAX_JSON_DEPTH}" in error["message"]


def _raw(body: dict[str, Any]) -> bytes:
    # orjson cannot write past 254 levels: the standard library can, given the stack.
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        return json.dumps(body).encode()
    finally:
        sys.setrecursionlimit(old)


def test_a_body_at_the_limit_is_not_refused_for_its_depth(responses_mock: LoopbackMock) -> None:
    with httpx.Client(base_url=responses_mock.base_url, timeout=30) as client:
        got = client.post(
            "/responses",
            json={
                "model": "mock",
                "input": "hi",
                "metadata": {"a": "b"},
                "prompt_cache_key": None,
                "user": None,
                "text": {
                    "format": {
                        "type": "json_schema",
                        "name": "n",
                        "schema": _items(MAX_JSON_DEPTH - 4),
                    }
                },
            },
        )
        assert got.status_code == 200, got.text[:300]


def _items(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth - 1):
        schema = {"type": "array", "items": schema}
    return schema


# --- WebSocket ------------------------------------------------------------------------------------


def test_a_deep_websocket_frame_gets_an_error_event_and_the_socket_stays(
    responses_mock: LoopbackMock,
) -> None:
    url = responses_mock.base_url.replace("http://", "ws://") + "/responses"
    with wsc.connect(url, max_size=None) as ws:
        for depth in (MAX_JSON_DEPTH + 1, 300, 2_000):
            event = {"type": "response.create", "model": "mock", "input": [nested(depth - 2)]}
            ws.send(_raw(event).decode())
            got = json.loads(ws.recv(timeout=10))
            assert got["type"] == "error", got
            assert got["error"]["code"] == "json_too_deep"
            assert f"the limit is {MAX_JSON_DEPTH}" in got["error"]["message"]
        ws.send(json.dumps({"type": "response.create", "model": "mock", "input": "hi"}))
        while (event := json.loads(ws.recv(timeout=10)))["type"] != "response.completed":
            assert event["type"] != "error", event


# --- scripts and cassettes ------------------------------------------------------------------------


def test_a_deep_agent_script_is_a_script_error_naming_the_limit() -> None:
    with pytest.raises(ScriptError, match=f"limit is {MAX_JSON_DEPTH}"):
        parse(_raw({"steps": [nested(2_000)]}))


def test_a_cassette_with_a_deep_request_body_is_refused_at_load(tmp_path: Path) -> None:
    from cassettes import encode_exchange
    from cassettes.model import Exchange

    body = _raw({"input": [nested(500)]})
    deep = Exchange(seq=1, method="POST", target="/v1/responses", request_body=body, status=200)
    folder = tmp_path / "cassette"
    folder.mkdir()
    (folder / "000001-POST-responses.jsonl").write_text(encode_exchange(deep))
    with pytest.raises(CassetteError, match=f"limit is {MAX_JSON_DEPTH}"):
        replay_exchanges(ReplaySettings(cassette=str(folder)))


# --- strict schemas -------------------------------------------------------------------------------


def _objects(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {
            "type": "object",
            "properties": {"a": schema},
            "required": ["a"],
            "additionalProperties": False,
        }
    return schema


def _strict_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"format": {"type": "json_schema", "name": "out", "strict": True, "schema": schema}}


def _wide(count: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string"} for i in range(count)},
        "required": [f"p{i}" for i in range(count)],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (_objects(11), "11 levels of nesting exceeds limit of 10."),
        (_wide(5_001), "5001 object properties exceeds limit of 5000."),
        (
            {
                "type": "object",
                "properties": {"e": {"enum": list(range(1_001))}},
                "required": ["e"],
                "additionalProperties": False,
            },
            "1001 enum values",
        ),
        (
            {
                "type": "object",
                "properties": {"e": {"enum": [f"{i:060d}" for i in range(300)]}},
                "required": ["e"],
                "additionalProperties": False,
            },
            "300 string values",
        ),
        (
            {
                "type": "object",
                "properties": {f"{i:0200d}": {"type": "string"} for i in range(601)},
                "required": [],
                "additionalProperties": False,
            },
            "limit of 120000",
        ),
    ],
)
def test_a_strict_schema_past_a_documented_limit_is_a_400(
    responses_mock: LoopbackMock, schema: dict[str, Any], words: str
) -> None:
    with httpx.Client(base_url=responses_mock.base_url, timeout=30) as client:
        got = client.post(
            "/responses", json={"model": "mock", "input": "hi", "text": _strict_format(schema)}
        )
        assert got.status_code == 400, got.text[:300]
        error = got.json()["error"]
        assert (error["param"], error["code"]) == ("text.format.schema", "invalid_json_schema")
        assert error["message"].startswith("Invalid schema for response_format 'out': ")
        assert words in error["message"]
        tool = {"type": "function", "name": "f", "strict": True, "parameters": schema}
        got = client.post("/responses", json={"model": "mock", "input": "hi", "tools": [tool]})
        assert got.status_code == 400, got.text[:300]
        error = got.json()["error"]
        assert (error["param"], error["code"]) == (
            "tools[0].parameters",
            "invalid_function_parameters",
        )
        assert words in error["message"]


def test_strict_schemas_within_the_limits_and_non_strict_ones_past_them_are_served(
    responses_mock: LoopbackMock,
) -> None:
    with httpx.Client(base_url=responses_mock.base_url, timeout=30) as client:
        for body in (
            {"text": _strict_format(_objects(10))},
            {"text": _strict_format(_wide(200))},
            {"text": {"format": {**_strict_format(_objects(11))["format"], "strict": False}}},
            {
                "tools": [
                    {"type": "function", "name": "f", "strict": False, "parameters": _objects(11)}
                ]
            },
        ):
            got = client.post("/responses", json={"model": "mock", "input": "hi", **body})
            assert got.status_code == 200, got.text[:300]


def test_the_strict_walk_is_iterative_and_definitions_count_from_their_own_root() -> None:
    assert strict_limit_problem(_objects(5_000)) == "11 levels of nesting exceeds limit of 10."
    with_defs = {**_objects(3), "$defs": {"d": _objects(10)}}
    assert strict_limit_problem(with_defs) == ""
    assert "11 levels" in strict_limit_problem({**_objects(1), "$defs": {"d": _objects(11)}})


@pytest.mark.parametrize("mode", ["strict", "fallback"])
def test_a_replayed_request_past_the_limit_is_the_same_400(tmp_path: Path, mode: str) -> None:
    from cassettes import encode_exchange
    from cassettes.model import Chunk, Exchange
    from mock_server.app import MockSettings

    folder = tmp_path / "cassette"
    folder.mkdir()
    shallow = Exchange(
        seq=1, method="POST", target="/v1/responses", request_body=b'{"input": "hi"}',
        status=200, chunks=[Chunk(0.0, b"{}")],
    )  # fmt: skip
    (folder / "000001-POST-responses.jsonl").write_text(encode_exchange(shallow))
    replay = ReplaySettings(cassette=str(folder), mode=mode, timing=0.0)  # type: ignore[arg-type]
    with LoopbackMock(MockSettings(replay=replay)) as mock:
        body = _raw({"model": "mock", "input": [nested(3_000)]})
        got = httpx.post(mock.base_url + "/responses", content=body, timeout=30)
    assert got.status_code == 400, got.text[:300]
    assert got.json()["error"]["code"] == "json_too_deep"


def test_check_schema_never_lets_a_recursion_error_out() -> None:
    # Past the body's bound a schema cannot arrive over HTTP; called directly, a schema deeper
    # than jsonschema's walk can take is a 400, not a RecursionError (a 500).
    from reference_impl.errors import APIError
    from reference_impl.request.tool_validation import check_schema

    with pytest.raises(APIError) as caught:
        check_schema(
            _items(400), "function 'f'", "tools[0].parameters", "invalid_function_parameters"
        )
    assert caught.value.status == 400
    check_schema(_items(MAX_JSON_DEPTH), "function 'f'", "tools[0].parameters", "x")  # walks fine
