"""Every input item type of OpenAI's schema is accepted in `input`, checked for shape (an
OpenAI-shaped 400 for a malformed one), stored and listed by `input_items`, and turned into engine
turns as far as an engine can use it.

The types come from the SDK's `ResponseInputItemParam` union (and, where the OpenAPI file of this
workplace is present, its `Item` / `InputItem` unions): a type the schema adds fails
test_every_type_of_the_schema_has_a_sample until it is handled."""

from __future__ import annotations

import copy
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from openai.types.responses import ResponseItemList, response_input_item_param

from mock_server.app import MockServer, MockSettings
from mock_server.testing import IN_PROCESS_URL, InProcessMock
from reference_impl.request.item_shapes import ITEM_SHAPES, NOT_LISTED

OPENAPI = Path("/work/shared/spec/openai-openapi.yaml")

# One valid item per type, with what an outputs item answers sent before it where needed.
SAMPLES: dict[str, dict[str, Any]] = {
    "message": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    "file_search_call": {"type": "file_search_call", "id": "fs_1", "queries": ["q"], "status": "completed", "results": None},
    "computer_call": {"type": "computer_call", "id": "cu_1", "call_id": "call_cu", "action": {"type": "screenshot"}, "pending_safety_checks": [], "status": "completed"},
    "computer_call_output": {"type": "computer_call_output", "call_id": "call_cu", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}},
    "web_search_call": {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
    "function_call": {"type": "function_call", "call_id": "call_fn", "name": "f", "arguments": "{}", "namespace": "ns"},
    "function_call_output": {"type": "function_call_output", "call_id": "call_fn", "output": "42"},
    "tool_search_call": {"type": "tool_search_call", "arguments": {"query": "weather"}, "call_id": "call_ts", "execution": "client"},
    "tool_search_output": {"type": "tool_search_output", "call_id": "call_ts", "execution": "client", "tools": [{"type": "function", "name": "w", "parameters": {"type": "object"}}]},
    "additional_tools": {"type": "additional_tools", "role": "developer", "tools": [{"type": "function", "name": "w2", "parameters": {"type": "object"}}]},
    "configuration_update": {"type": "configuration_update", "reasoning": {"effort": "low"}},
    "reasoning": {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking"}]},
    "compaction": None,  # its round trip: test_refimpl_compaction.py (a blob this server made)
    "image_generation_call": {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "AAAA"},
    "code_interpreter_call": {"type": "code_interpreter_call", "id": "ci_1", "status": "completed", "code": "1+1", "container_id": "cntr_1", "outputs": [{"type": "logs", "logs": "2"}]},
    "local_shell_call": {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_ls", "status": "completed", "action": {"type": "exec", "command": ["ls"], "env": {}}},
    "local_shell_call_output": {"type": "local_shell_call_output", "id": "call_ls", "output": "a.txt"},
    "shell_call": {"type": "shell_call", "call_id": "call_sh", "action": {"commands": ["ls"]}, "status": "completed"},
    "shell_call_output": {"type": "shell_call_output", "call_id": "call_sh", "output": [{"stdout": "a.txt", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]},
    "apply_patch_call": {"type": "apply_patch_call", "call_id": "call_ap", "status": "completed", "operation": {"type": "create_file", "path": "a.txt", "diff": "+hi"}},
    "apply_patch_call_output": {"type": "apply_patch_call_output", "call_id": "call_ap", "status": "completed", "output": "done"},
    "mcp_list_tools": {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki", "tools": [{"name": "ask", "input_schema": {}}]},
    "mcp_approval_request": {"type": "mcp_approval_request", "id": "mcpr_req1", "server_label": "deepwiki", "name": "ask", "arguments": "{}"},
    "mcp_approval_response": {"type": "mcp_approval_response", "approval_request_id": "mcpr_req1", "approve": True},
    "mcp_call": {"type": "mcp_call", "id": "mcp_1", "server_label": "deepwiki", "name": "ask", "arguments": "{}", "output": "an answer"},
    "custom_tool_call": {"type": "custom_tool_call", "call_id": "call_ct", "name": "grep", "input": "TODO"},
    "custom_tool_call_output": {"type": "custom_tool_call_output", "call_id": "call_ct", "output": "3 lines"},
    "compaction_trigger": {"type": "compaction_trigger"},
    "item_reference": None,  # resolved against stored items: test_refimpl_app.py
    "program": {"type": "program", "id": "prg_1", "call_id": "call_pg", "code": "print(1)", "fingerprint": "fp"},
    "program_output": {"type": "program_output", "id": "prgo_1", "call_id": "call_pg", "result": "1", "status": "completed"},
}  # fmt: skip


def sdk_types() -> set[str]:
    types = set()
    for member in typing.get_args(response_input_item_param.ResponseInputItemParam):
        hint = typing.get_type_hints(member, include_extras=True)["type"]
        while typing.get_origin(hint) in (typing.Required, typing.NotRequired, typing.Union):
            hint = next(a for a in typing.get_args(hint) if a is not type(None))
        types.update(typing.get_args(hint))
    return types


def openapi_types() -> set[str]:
    """The `type` enums of the members of the OpenAPI's InputItem / Item unions."""
    text = OPENAPI.read_text()
    schemas = re.split(r"\n    (?=[A-Za-z]+:\n)", text.split("\n  schemas:\n", 1)[1])
    by_name = {chunk.split(":", 1)[0]: chunk for chunk in schemas}
    members: list[str] = []
    for union in ("InputItem", "Item"):
        members += re.findall(r"\$ref: \"#/components/schemas/(\w+)\"", by_name[union])
    types = set()
    for name in members:
        found = re.search(
            r"\n        type:\n(?:.*\n)*?          enum:\n            - (\w+)", by_name[name]
        )
        if found:
            types.add(found.group(1))
    return types


def test_every_type_of_the_schema_has_a_sample_and_a_shape() -> None:
    assert sdk_types() - set(SAMPLES) == set(), "a new input item type: handle it"
    assert sdk_types() <= set(ITEM_SHAPES)


@pytest.mark.skipif(not OPENAPI.exists(), reason="the workplace's OpenAPI file is not here")
def test_every_type_of_the_openapi_unions_has_a_shape() -> None:
    found = openapi_types()
    assert len(found) > 20
    assert found - set(ITEM_SHAPES) == set()


@pytest.fixture
def mock() -> Iterator[InProcessMock]:
    handle = InProcessMock(MockSettings(seed=5, frozen_time=1_700_000_000))
    yield handle
    handle.close()


@pytest.fixture
def http(mock: InProcessMock) -> Iterator[httpx2.Client]:
    with httpx2.Client(transport=mock.transport, base_url=IN_PROCESS_URL) as client:
        yield client


def history() -> list[dict[str, Any]]:
    return [copy.deepcopy(v) for v in SAMPLES.values() if v is not None]


def test_every_type_at_once_is_accepted_stored_and_listed(http: httpx2.Client) -> None:
    items = history()
    created = http.post("/v1/responses", json={"model": "mock-text", "input": items})
    assert created.status_code == 200, created.text
    listed = http.get(f"/v1/responses/{created.json()['id']}/input_items?order=asc&limit=100")
    assert listed.status_code == 200
    page = ResponseItemList.model_validate(listed.json())
    listed_types = [i["type"] for i in items if i["type"] not in NOT_LISTED]
    assert [i.type for i in page.data] == listed_types
    data = listed.json()["data"]
    assert all(isinstance(i.get("id"), str) and i["id"] for i in data)
    by_type = {i["type"]: i for i in data}
    assert by_type["function_call"]["namespace"] == "ns"
    assert by_type["shell_call_output"]["output"] == SAMPLES["shell_call_output"]["output"]
    assert by_type["mcp_approval_request"]["id"] == "mcpr_req1"


def test_what_an_engine_can_use_becomes_turns(http: httpx2.Client, mock: InProcessMock) -> None:
    items = history()
    assert (
        http.post("/v1/responses", json={"model": "mock-text", "input": items}).status_code == 200
    )
    messages = mock.generations[-1].messages
    calls = {c["name"]: c for m in messages for c in m.tool_calls}
    assert {"f", "grep", "shell", "local_shell", "apply_patch", "computer", "ask"} <= set(calls)
    assert calls["grep"]["arguments"] == "TODO"
    tool_turns = {m.tool_call_id: m for m in messages if m.role == "tool"}
    assert tool_turns["call_ct"].content == "3 lines"
    assert (
        "a.txt" in tool_turns["call_sh"].content and "exit code 0" in tool_turns["call_sh"].content
    )
    assert tool_turns["call_ls"].content == "a.txt"
    assert tool_turns["call_ap"].content == "done"
    assert tool_turns["call_cu"].images == ("data:image/png;base64,AAAA",)
    assert tool_turns["mcp_1"].content == "an answer"
    assert any("thinking" in (m.reasoning or "") for m in messages)


def test_model_dumped_items_of_the_sdk_round_trip() -> None:
    # Parse each sample with the SDK's output model where one exists and send back model_dump().
    from openai.types.responses import ResponseInputItem
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ResponseInputItem)
    dumped = [adapter.validate_python(i).model_dump() for i in history()]
    assert any(None in d.values() for d in dumped)
    server = MockServer(MockSettings(frozen_time=1_700_000_000))
    transport = httpx2.ASGITransport(server.app)

    async def send() -> httpx2.Response:
        async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.post("/v1/responses", json={"model": "mock-text", "input": dumped})

    import anyio

    response = anyio.run(send)
    assert response.status_code == 200, response.text


def malformed() -> list[tuple[str, dict[str, Any], str, str]]:
    cases = []
    for kind, shape in ITEM_SHAPES.items():
        sample = SAMPLES.get(kind)
        if sample is None:
            continue
        for key in shape.required:
            if key in ("role", "content") and kind == "message":
                continue
            broken = {k: v for k, v in sample.items() if k != key}
            cases.append((kind, broken, key, "missing_required_parameter"))
            wrong = dict(sample, **{key: 12345})
            if shape.required[key] != "any":
                code = "invalid_value" if isinstance(shape.required[key], tuple) else "invalid_type"
                cases.append((kind, wrong, key, code))
    return cases


@pytest.mark.parametrize(
    ("kind", "item", "key", "code"), malformed(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_a_malformed_item_gets_an_openai_shaped_400(
    http: httpx2.Client, kind: str, item: dict[str, Any], key: str, code: str
) -> None:
    before = [i for i in history() if i["type"] != kind]
    response = http.post("/v1/responses", json={"model": "mock-text", "input": [*before, item]})
    assert response.status_code == 400, (kind, key, response.text)
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert (error["param"], error["code"]) == (f"input[{len(before)}].{key}", code), error


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        ("custom_tool_call_output", "custom tool call"),
        ("shell_call_output", "shell call"),
        ("apply_patch_call_output", "apply patch call"),
        ("computer_call_output", "computer call"),
    ],
)
def test_an_output_without_its_call_is_openais_400(
    http: httpx2.Client, kind: str, what: str
) -> None:
    # [REC] errors/issue-18134-shell-store-false-error.json, the same words for each kind.
    item = dict(SAMPLES[kind], call_id="call_nowhere")
    response = http.post("/v1/responses", json={"model": "mock-text", "input": [item]})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "message": f"No tool call found for {what} output with call_id call_nowhere.",
        "type": "invalid_request_error",
        "param": "input",
        "code": None,
    }


# Codex 0.171 after a `create_goal` call (captured from `codex exec` against the mock): the call's
# output, then context for the model in a tool output's form, answering no call.
GOAL_CALL = {"type": "function_call", "call_id": "call_g", "name": "create_goal",
             "arguments": '{"objective":"ship the release"}'}  # fmt: skip
GOAL_OUTPUT = {"type": "function_call_output", "call_id": "call_g", "output": '{"goal":{}}'}
GOAL_CONTEXT = {"type": "function_call_output", "id": "fco_01a24946-ba44-7602-be05-b554d8869783",
                "name": "goal_objective", "namespace": "agent", "output": "ship the release"}  # fmt: skip


def test_a_named_output_without_a_call_id_is_context_and_accepted(
    http: httpx2.Client, mock: InProcessMock
) -> None:
    items = [{"role": "user", "content": "Create a goal."}, GOAL_CALL, GOAL_OUTPUT, GOAL_CONTEXT]
    created = http.post("/v1/responses", json={"model": "mock-text", "input": items})
    assert created.status_code == 200, created.text
    listed = http.get(f"/v1/responses/{created.json()['id']}/input_items?order=asc")
    stored = listed.json()["data"][-1]
    assert {k: stored[k] for k in ("id", "type", "name", "namespace", "output")} == {
        k: GOAL_CONTEXT[k] for k in ("id", "type", "name", "namespace", "output")
    }
    assert "call_id" not in stored
    tool_turns = [m for m in mock.generations[-1].messages if m.role == "tool"]
    assert [t.content for t in tool_turns] == ['{"goal":{}}', "ship the release"]


@pytest.mark.parametrize(
    ("change", "param", "code"),
    [
        ({"name": None}, "input[0].call_id", "missing_required_parameter"),  # neither: no call
        ({"output": None}, "input[0].output", "missing_required_parameter"),
        ({"output": 3}, "input[0].output", "invalid_type"),
        ({"namespace": 3}, "input[0].namespace", "invalid_type"),
    ],
)
def test_a_named_output_still_needs_what_an_output_has(
    http: httpx2.Client, change: dict[str, Any], param: str, code: str
) -> None:
    item = {k: v for k, v in {**GOAL_CONTEXT, **change}.items() if v is not None}
    response = http.post("/v1/responses", json={"model": "mock-text", "input": [item]})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["param"], error["code"]) == (param, code), error
