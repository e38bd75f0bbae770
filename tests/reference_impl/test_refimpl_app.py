"""The ASGI app in-process (httpx2 ASGITransport): routes, framing, storage and every error shape."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from openai.types.responses import ResponseItemList
from refimpl_support import (
    FrozenIds,
    ScriptedEngine,
    check_stream,
    parse_sse,
    scripts,
    text_script,
)

from conformance.schema import SCHEMAS
from reference_impl.engine import EngineHints, Final, TextDelta, ToolCallDelta
from reference_impl.failures import FailureLog, failures
from reference_impl.service.app import create_app
from reference_impl.stores.memory import MemoryStore

pytestmark = pytest.mark.anyio

TOOLS = [
    {"type": "function", "name": "get_weather", "parameters": {"type": "object"}},
    {"type": "function", "name": "get_time", "parameters": {"type": "object"}},
]


def make_client(engine: ScriptedEngine, **options: Any) -> httpx2.AsyncClient:
    app = create_app(engine, **options)
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://test")


@pytest.fixture
async def client(engine: ScriptedEngine) -> AsyncIterator[httpx2.AsyncClient]:
    async with make_client(engine, ids=FrozenIds(), clock=lambda: 1_750_000_000.0) as c:
        yield c


def assert_error(
    response: httpx2.Response, status: int, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert isinstance(error["message"], str) and error["message"]
    assert error["code"] is None or isinstance(error["code"], str)  # KB21
    assert error["param"] == param
    if code is not None:
        assert error["code"] == code
    return dict(error)


@pytest.mark.parametrize("name", sorted(scripts()))
async def test_stream_is_framed_and_matches_the_non_stream_body(
    client: httpx2.AsyncClient, engine: ScriptedEngine, name: str
) -> None:
    body = {"model": "test-model", "input": "hi", "tools": TOOLS}
    engine.push(scripts()[name], scripts()[name])
    streamed = await client.post("/v1/responses", json={**body, "stream": True})
    assert streamed.status_code == 200
    assert streamed.headers["content-type"].startswith("text/event-stream")
    assert b"\nid:" not in streamed.content and not streamed.content.startswith(b"id:")
    events, names, done = parse_sse(streamed.content)
    assert done  # `data: [DONE]` (SPEC §1 Framing)
    assert names == [e["type"] for e in events]
    check_stream(events)
    plain = await client.post("/v1/responses", json=body)
    terminal = events[-1]["response"]
    if terminal["status"] == "failed":
        assert_error(plain, 500, None, "server_error")
        return
    assert plain.status_code == 200
    assert plain.json() == terminal  # non-stream == the terminal event's response
    retrieved = await client.get(f"/v1/responses/{terminal['id']}")
    assert retrieved.json() == terminal


async def test_store_false_is_streamed_but_not_retrievable(client: httpx2.AsyncClient) -> None:
    created = await client.post("/v1/responses", json={"model": "m", "input": "x", "store": False})
    assert created.json()["store"] is False
    response_id = created.json()["id"]
    assert_error(await client.get(f"/v1/responses/{response_id}"), 404)  # KB26


async def test_retrieve_delete_and_not_found_text(client: httpx2.AsyncClient) -> None:
    response_id = (await client.post("/v1/responses", json={"model": "m", "input": "x"})).json()[
        "id"
    ]
    deleted = await client.delete(f"/v1/responses/{response_id}")
    assert deleted.json() == {"id": response_id, "object": "response", "deleted": True}
    error = assert_error(await client.get(f"/v1/responses/{response_id}"), 404)
    assert error["message"] == f"Response with id '{response_id}' not found."
    assert_error(await client.delete(f"/v1/responses/{response_id}"), 404)
    assert_error(await client.post("/v1/responses/resp_nope/cancel"), 404)
    assert_error(await client.get("/v1/responses/resp_nope/input_items"), 404)


async def test_cancel_of_a_foreground_response_is_a_clear_400(client: httpx2.AsyncClient) -> None:
    response_id = (await client.post("/v1/responses", json={"model": "m", "input": "x"})).json()[
        "id"
    ]
    error = assert_error(await client.post(f"/v1/responses/{response_id}/cancel"), 400)
    assert "background" in error["message"]


async def test_input_items_pagination(client: httpx2.AsyncClient) -> None:
    items = [{"role": "user", "content": f"m{i}"} for i in range(5)]
    created = await client.post(
        "/v1/responses", json={"model": "m", "input": items, "instructions": "sys"}
    )
    url = f"/v1/responses/{created.json()['id']}/input_items"
    page = (await client.get(url)).json()
    assert page["object"] == "list" and page["has_more"] is False
    texts = [item["content"][0]["text"] for item in page["data"]]
    assert texts == ["m4", "m3", "m2", "m1", "m0"]  # default order desc; no instructions item
    assert all(item["id"].startswith("msg_") for item in page["data"])
    assert page["first_id"] == page["data"][0]["id"] and page["last_id"] == page["data"][-1]["id"]
    first = (await client.get(url, params={"order": "asc", "limit": 2})).json()
    assert [i["content"][0]["text"] for i in first["data"]] == ["m0", "m1"]
    assert first["has_more"] is True
    rest = (await client.get(url, params={"order": "asc", "after": first["last_id"]})).json()
    assert [i["content"][0]["text"] for i in rest["data"]] == ["m2", "m3", "m4"]
    assert_error(await client.get(url, params={"limit": 0}), 400, "limit")
    assert_error(await client.get(url, params={"limit": 101}), 400, "limit")
    assert_error(await client.get(url, params={"order": "up"}), 400, "order")
    assert_error(await client.get(url, params={"after": "msg_unknown"}), 400, "after")


async def test_input_items_empty_page_has_string_ids(client: httpx2.AsyncClient) -> None:
    # [OAPI] ResponseItemList and the SDK's model require first_id / last_id as strings.
    created = await client.post("/v1/responses", json={"model": "m", "input": "only"})
    url = f"/v1/responses/{created.json()['id']}/input_items"
    only = (await client.get(url)).json()["data"][0]["id"]
    empty = (await client.get(url, params={"after": only})).json()
    assert empty == {"object": "list", "data": [], "first_id": "", "last_id": "", "has_more": False}
    assert SCHEMAS.validate("ResponseItemList", empty) == []
    ResponseItemList.model_validate(empty)
    no_input = await client.post("/v1/responses", json={"model": "m"})
    listed = (await client.get(f"/v1/responses/{no_input.json()['id']}/input_items")).json()
    assert (listed["data"], listed["first_id"], listed["last_id"]) == ([], "", "")


async def test_input_tokens_and_models(client: httpx2.AsyncClient) -> None:
    counted = await client.post(
        "/v1/responses/input_tokens", json={"model": "m", "input": "one two three"}
    )
    assert counted.json() == {"object": "response.input_tokens", "input_tokens": 4}
    assert_error(
        await client.post("/v1/responses/input_tokens", json={"input": "x", "stream": True}),
        400,
        "stream",
        "unknown_parameter",
    )
    models = (await client.get("/v1/models")).json()
    assert models["object"] == "list" and models["data"][0]["id"] == "test-model"
    assert (await client.get("/v1/models/test-model")).json()["object"] == "model"
    assert_error(await client.get("/v1/models/nope"), 404, "model", "model_not_found")


BAD_BODIES: list[tuple[Any, str | None, str | None]] = [
    ([1, 2], None, "invalid_request_body"),
    ({"input": "x"}, "model", "missing_required_parameter"),
    ({"model": 3, "input": "x"}, "model", "invalid_type"),
    ({"model": "m", "input": 3}, "input", "invalid_type"),
    ({"model": "m", "input": "x", "bogus": 1}, "bogus", "unknown_parameter"),
    ({"model": "m", "input": "x", "max_output_tokens": 15}, "max_output_tokens", "integer_below_min_value"),
    ({"model": "m", "input": "x", "max_output_tokens": "9"}, "max_output_tokens", "invalid_type"),
    ({"model": "m", "input": "x", "temperature": 3}, "temperature", "decimal_above_max_value"),
    ({"model": "m", "input": "x", "top_p": True}, "top_p", "invalid_type"),
    ({"model": "m", "input": "x", "top_logprobs": 21}, "top_logprobs", "integer_above_max_value"),
    ({"model": "m", "input": "x", "top_logprobs": -1}, "top_logprobs", "integer_below_min_value"),
    ({"model": "m", "input": "x", "stream": "yes"}, "stream", "invalid_type"),
    ({"model": "m", "input": "x", "metadata": {f"k{i}": "v" for i in range(17)}}, "metadata", "object_above_max_properties"),
    ({"model": "m", "input": "x", "metadata": {"k" * 65: "v"}}, "metadata", "string_above_max_length"),
    ({"model": "m", "input": "x", "metadata": {"k": "v" * 513}}, "metadata.k", "string_above_max_length"),
    ({"model": "m", "input": "x", "metadata": {"k": 1}}, "metadata.k", "invalid_type"),
    ({"model": "m", "input": "x", "truncation": "sometimes"}, "truncation", "invalid_value"),
    ({"model": "m", "input": "x", "reasoning": {"effort": "maximal"}}, "reasoning.effort", "invalid_value"),
    ({"model": "m", "input": "x", "text": {"format": {"type": "yaml"}}}, "text.format.type", "invalid_value"),
    ({"model": "m", "input": "x", "text": {"format": {"type": "json_schema", "name": "x"}}}, "text.format.schema", "missing_required_parameter"),
    ({"model": "m", "input": "x", "text": {"format": {"type": "json_schema", "name": "x", "schema": {"type": "object", "properties": 5}}}}, "text.format.schema", "invalid_json_schema"),
    ({"model": "m", "input": "x", "text": {"format": {"type": "json_schema", "name": "x", "schema": {"properties": {"a": {"$ref": "#/$defs/A"}}}}}}, "text.format.schema", "invalid_json_schema"),
    ({"model": "m", "input": "x", "tools": [{"type": "function", "name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "strin"}}}}]}, "tools[0].parameters", "invalid_function_parameters"),
    ({"model": "m", "input": "x", "tools": [{"type": "function", "name": "f", "parameters": {"type": "string", "pattern": "("}}]}, "tools[0].parameters", "invalid_function_parameters"),
    ({"model": "m", "input": "x", "tools": {}}, "tools", "invalid_type"),
    ({"model": "m", "input": "x", "tools": [{"type": "function"}]}, "tools[0].name", "missing_required_parameter"),
    ({"model": "m", "input": "x", "tools": [{"type": "function", "name": "a b"}]}, "tools[0].name", "invalid_value"),
    ({"model": "m", "input": "x", "tool_choice": "sometimes"}, "tool_choice", "invalid_value"),
    ({"model": "m", "input": "x", "tool_choice": {"type": "function", "name": "undeclared"}}, "tool_choice", "invalid_value"),
    ({"model": "m", "input": "x", "background": True, "store": False}, "background", "invalid_value"),
    ({"model": "m", "input": [{"role": "robot", "content": "x"}]}, "input[0].role", "invalid_value"),
    ({"model": "m", "input": [{"type": "teleport"}]}, "input[0].type", "invalid_value"),
    ({"model": "m", "input": ["x"]}, "input[0]", "invalid_type"),
    ({"model": "m", "input": [{"role": "user", "content": 5}]}, "input[0].content", "invalid_type"),
    ({"model": "m", "input": [{"role": "user", "content": [{"type": "input_video"}]}]}, "input[0].content[0].type", "invalid_value"),
    ({"model": "m", "input": [{"role": "user", "content": [{"type": "input_text"}]}]}, "input[0].content[0].text", "missing_required_parameter"),
    ({"model": "m", "input": [{"type": "function_call", "call_id": "c", "name": "f"}]}, "input[0].arguments", "missing_required_parameter"),
    ({"model": "m", "input": [{"type": "function_call_output", "call_id": "c", "output": 1}]}, "input[0].output", "invalid_type"),
    ({"model": "m", "input": [{"type": "reasoning", "summary": "x"}]}, "input[0].summary", "invalid_type"),
    ({"model": "m", "input": "x", "previous_response_id": "resp_missing"}, "previous_response_id", "previous_response_not_found"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "param", "code"), BAD_BODIES)
async def test_bad_request_bodies_get_openai_shaped_400s(
    client: httpx2.AsyncClient, body: Any, param: str | None, code: str | None
) -> None:
    assert_error(await client.post("/v1/responses", json=body), 400, param, code)


async def test_a_schema_with_a_dangling_reference_is_refused_as_openai_does(
    client: httpx2.AsyncClient,
) -> None:
    # [REC] errors/issue-6454-nested-definitions-error.json, the same message for the same fault.
    schema = {
        "type": "object",
        "properties": {
            "elements": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"shared": {"$ref": "#/$defs/Shared"}},
                },
            }
        },
    }
    body = {"model": "m", "input": "x"}
    body["text"] = {"format": {"type": "json_schema", "name": "response", "schema": schema}}
    error = assert_error(
        await client.post("/v1/responses", json=body),
        400,
        "text.format.schema",
        "invalid_json_schema",
    )
    assert error["message"] == (
        "Invalid schema for response_format 'response': In context=('properties', 'elements', "
        "'items', 'properties', 'shared'), reference to component '#/$defs/Shared' which was not "
        "found in the schema."
    )
    schema["$defs"] = {"Shared": {"type": "string"}}
    assert (await client.post("/v1/responses", json=body)).status_code == 200


async def test_function_call_output_needs_its_call(
    client: httpx2.AsyncClient, engine: ScriptedEngine
) -> None:
    # OpenAI's 400, word for word (continuedev/continue#10092, microsoft/vscode#320060).
    orphan = {"type": "function_call_output", "call_id": "call_nowhere", "output": "sunny"}
    for path in ("/v1/responses", "/v1/responses/input_tokens"):
        error = assert_error(
            await client.post(path, json={"model": "m", "input": [orphan]}), 400, "input"
        )
        assert error == {
            "message": "No tool call found for function call output with call_id call_nowhere.",
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
    call = {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}
    stateless = await client.post("/v1/responses", json={"model": "m", "input": [call, output]})
    assert stateless.status_code == 200, stateless.text
    # The call may come from the previous_response_id chain (here: the prior response's output).
    engine.push(
        [ToolCallDelta(0, "{}", name="get_weather", call_id="call_2"), Final("tool_calls", 1, 1)]
    )
    first = (
        await client.post("/v1/responses", json={"model": "m", "input": "x", "tools": TOOLS})
    ).json()
    chained = {"model": "m", "previous_response_id": first["id"]}
    ok = await client.post(
        "/v1/responses", json={**chained, "input": [{**output, "call_id": "call_2"}]}
    )
    assert ok.status_code == 200, ok.text
    bad = await client.post("/v1/responses", json={**chained, "input": [orphan]})
    assert_error(bad, 400, "input")
    # A later turn over the chain (which now holds the call and its output) still works.
    later = {"model": "m", "previous_response_id": ok.json()["id"], "input": "thanks"}
    assert (await client.post("/v1/responses", json=later)).status_code == 200


async def test_item_reference_inputs_resolve_to_stored_output_items(
    client: httpx2.AsyncClient, engine: ScriptedEngine
) -> None:
    # The Vercel AI SDK sends earlier assistant messages and reasoning items back as
    # {"type": "item_reference", "id": ...} whenever `store` is on (tests/clients/vercel).
    first = (await client.post("/v1/responses", json={"model": "m", "input": "hi"})).json()
    message = first["output"][0]
    later = {
        "model": "m",
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "item_reference", "id": message["id"]},
            {"id": message["id"]},  # the type is optional in ItemReferenceParam [OAPI]
            {"role": "user", "content": "and?"},
        ],
    }
    ok = await client.post("/v1/responses", json=later)
    assert ok.status_code == 200, ok.text
    assistant = [m for m in engine.requests[-1].messages if m.role == "assistant"]
    assert [m.content for m in assistant] == ["ok", "ok"]
    items = (await client.get(f"/v1/responses/{ok.json()['id']}/input_items")).json()["data"]
    assert [i["id"] for i in items if i["type"] == "message" and i["role"] == "assistant"] == [
        message["id"],
        message["id"],
    ]
    unknown = {"model": "m", "input": [{"type": "item_reference", "id": "msg_nowhere"}]}
    assert_error(await client.post("/v1/responses", json=unknown), 400, "input[0].id")
    missing = {"model": "m", "input": [{"type": "item_reference"}]}
    assert_error(await client.post("/v1/responses", json=missing), 400, "input[0].id")


async def test_malformed_json_and_routes(client: httpx2.AsyncClient) -> None:
    assert_error(await client.post("/v1/responses", content=b"{not json"), 400)
    assert_error(await client.post("/v1/responses", content=b""), 400)
    assert_error(await client.get("/v1/nothing-here"), 404, None, "unknown_url")
    assert_error(await client.put("/v1/responses"), 405, None, "method_not_allowed")
    assert_error(await client.get("/v1/responses/resp_x", params={"stream": "true"}), 404)


async def test_oversized_body_is_413(engine: ScriptedEngine) -> None:
    async with make_client(engine, max_body_bytes=100) as small:
        big = {"model": "m", "input": "x" * 200}
        assert_error(await small.post("/v1/responses", json=big), 413, None, "request_too_large")

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted while read
            for _ in range(3):
                yield b" " * 60

        error = await small.post("/v1/responses", content=chunks())
        assert_error(error, 413, None, "request_too_large")


async def test_bearer_auth(engine: ScriptedEngine) -> None:
    async with make_client(engine, api_key="sk-secret") as c:
        body = {"model": "m", "input": "x"}
        assert_error(await c.post("/v1/responses", json=body), 401, None, "invalid_api_key")
        wrong = {"Authorization": "Bearer nope"}
        assert_error(
            await c.post("/v1/responses", json=body, headers=wrong), 401, None, "invalid_api_key"
        )
        assert_error(await c.get("/v1/models"), 401, None, "invalid_api_key")
        ok = await c.post("/v1/responses", json=body, headers={"Authorization": "Bearer sk-secret"})
        assert ok.status_code == 200


async def test_engine_crash_is_a_failed_response_not_a_traceback(engine: ScriptedEngine) -> None:
    class Boom(ScriptedEngine):
        async def count_input_tokens(self, request: Any) -> int:
            raise RuntimeError("secret internals")

    async with make_client(Boom(), ids=FrozenIds()) as c:
        error = assert_error(
            await c.post("/v1/responses/input_tokens", json={"input": "x"}),
            500,
            None,
            "server_error",
        )
        assert "secret" not in error["message"]


async def test_hints_reach_the_engine(engine: ScriptedEngine) -> None:
    hints: Callable[[Any], EngineHints] = lambda request: EngineHints(  # noqa: E731
        headers={"x-scenario": request.headers.get("x-scenario")}
    )
    async with make_client(engine, hints=hints) as c:
        await c.post(
            "/v1/responses", json={"model": "m", "input": "x"}, headers={"x-scenario": "s1"}
        )
    assert engine.requests[-1].hints == EngineHints(headers={"x-scenario": "s1"})


async def test_rate_limit_failure_maps_to_429(engine: ScriptedEngine) -> None:
    engine.push([Final("error", 1, 0, error_code="rate_limit_exceeded", error_message="slow down")])
    async with make_client(engine) as c:
        error = assert_error(
            await c.post("/v1/responses", json={"model": "m", "input": "x"}),
            429,
            None,
            "rate_limit_exceeded",
        )
        assert error["message"] == "slow down"


async def test_default_store_is_bounded(engine: ScriptedEngine) -> None:
    store = MemoryStore(max_responses=2)
    async with make_client(engine, store=store) as c:
        ids = []
        for _ in range(3):
            engine.push(text_script("a"))
            ids.append(
                (await c.post("/v1/responses", json={"model": "m", "input": "x"})).json()["id"]
            )
        assert_error(await c.get(f"/v1/responses/{ids[0]}"), 404)
        assert (await c.get(f"/v1/responses/{ids[2]}")).status_code == 200


async def test_stream_respects_include_obfuscation(
    client: httpx2.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.push([TextDelta("a"), Final("stop", 1, 1)])
    body = {
        "model": "m",
        "input": "x",
        "stream": True,
        "stream_options": {"include_obfuscation": False},
    }
    events, _, _ = parse_sse((await client.post("/v1/responses", json=body)).content)
    assert all("obfuscation" not in e for e in events)


class BrokenEngine(ScriptedEngine):
    """Fails in the ways a real backend does: at call time, mid-stream, or by just stopping."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how

    def generate(self, request: Any) -> AsyncIterator[Any]:
        if self.how == "at_call":
            raise RuntimeError("backend unreachable")
        return self._broken()

    async def _broken(self) -> AsyncIterator[Any]:
        yield TextDelta("partial")
        if self.how == "mid_stream":
            raise RuntimeError("CUDA error: secret internals")
        # "no_final": the iterator just ends


@pytest.mark.parametrize("how", ["at_call", "mid_stream", "no_final"])
async def test_broken_engines_end_the_stream_with_error_and_failed(how: str) -> None:
    async with make_client(BrokenEngine(how)) as c:
        streamed = await c.post("/v1/responses", json={"model": "m", "input": "x", "stream": True})
        events, _, done = parse_sse(streamed.content)
        check_stream(events)
        assert done and [e["type"] for e in events[-2:]] == ["error", "response.failed"]
        assert "secret" not in events[-2]["error"]["message"]  # no internals leak
        plain = await c.post("/v1/responses", json={"model": "m", "input": "x"})
        assert_error(plain, 500, None, "server_error")


async def test_an_engine_failing_every_request_logs_one_traceback_then_one_line_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An engine that cannot work (here: a module it imports lazily is missing) fails every
    request the same way: the first failure's traceback is logged, each repeat is one line."""

    class Unimportable(ScriptedEngine):
        def generate(self, request: Any) -> AsyncIterator[Any]:
            raise ModuleNotFoundError("No module named 'sgl_kernel'")

    failures.forget()
    caplog.set_level(logging.ERROR, logger="reference_impl")
    async with make_client(Unimportable()) as c:
        for stream in (False, True, False, True, False):
            body = {"model": "m", "input": "x", "stream": stream}
            answer = await c.post("/v1/responses", json=body)
            if not stream:
                assert_error(answer, 500, None, "server_error")
    records = [r for r in caplog.records if "sgl_kernel" in r.getMessage() or r.exc_info]
    assert len(records) == 5
    assert [r.exc_info is not None for r in records] == [True, False, False, False, False]
    assert "the same failure 5 times" in records[-1].getMessage()
    assert all("\n" not in r.getMessage() for r in records[1:])


def test_the_failure_table_is_bounded_and_tells_failures_apart() -> None:
    log = logging.getLogger("test.failures")
    table = FailureLog(max_signatures=3)
    lines: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = lines.append  # type: ignore[method-assign]
    log.addHandler(handler)
    try:
        for i in [0, 0, 1, 2, 3, 0]:  # 0 seen twice, then pushed out by 1, 2, 3
            try:
                raise ValueError(f"failure {i}")
            except ValueError:
                table.exception(log, "request %d", i)
    finally:
        log.removeHandler(handler)
    assert [r.exc_info is not None for r in lines] == [True, False, True, True, True, True]
    assert len(table._seen) == 3
