"""Hosted tools and client-executed built-in calls in the mock (mock_server/hosted.py): every
kind's stream judged strictly, its events in OpenAI's order, the include[] details, failure
variants, a valid PNG, max_tool_calls, the MCP approval round trip."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import pytest
from mock_support import judged_stream

from conformance.catalog.registry import Level
from conformance.validator import StreamValidator
from mock_server.testing import InProcessMock


def _stream(body: dict[str, Any]) -> list[dict[str, Any]]:
    events = judged_stream(body, allow_info=True)
    assert events[-1]["type"] == "response.completed"
    return events


def _types(events: list[dict[str, Any]], item_id: str) -> list[str]:
    return [
        e["type"].removeprefix("response.")
        for e in events
        if e.get("item_id") == item_id and not e["type"].endswith(".delta")
    ]


def _items(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return events[-1]["response"]["output"]


CASES: dict[str, tuple[dict[str, Any], str, list[str]]] = {
    "web_search": (
        {"tools": [{"type": "web_search"}], "tool_choice": {"type": "web_search_preview"},
         "include": ["web_search_call.action.sources"]},
        "web_search_call",
        ["web_search_call.in_progress", "web_search_call.searching", "web_search_call.completed"],
    ),
    "file_search": (
        {"tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}],
         "tool_choice": {"type": "file_search"}, "include": ["file_search_call.results"]},
        "file_search_call",
        ["file_search_call.in_progress", "file_search_call.searching",
         "file_search_call.completed"],
    ),
    "code_interpreter": (
        {"tools": [{"type": "code_interpreter", "container": {"type": "auto"}}],
         "tool_choice": {"type": "code_interpreter"}, "include": ["code_interpreter_call.outputs"]},
        "code_interpreter_call",
        ["code_interpreter_call.in_progress", "code_interpreter_call_code.done",
         "code_interpreter_call.interpreting", "code_interpreter_call.completed"],
    ),
    "image_generation": (
        {"tools": [{"type": "image_generation", "partial_images": 2}],
         "tool_choice": {"type": "image_generation"}},
        "image_generation_call",
        ["image_generation_call.in_progress", "image_generation_call.generating",
         "image_generation_call.partial_image", "image_generation_call.partial_image",
         "image_generation_call.completed"],
    ),
    "mcp": (
        {"tools": [{"type": "mcp", "server_label": "idx", "server_url": "https://mcp.invalid",
                    "require_approval": "never"}],
         "tool_choice": {"type": "mcp", "server_label": "idx"}},
        "mcp_call",
        ["mcp_call.in_progress", "mcp_call_arguments.done", "mcp_call.completed"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_hosted_tool_full_sequence(name: str) -> None:
    body, kind, sequence = CASES[name]
    events = _stream({"input": "Look up the Paris museums.", **body})
    calls = [i for i in _items(events) if i["type"] == kind]
    assert len(calls) == 1 and calls[0]["status"] == "completed"
    assert _types(events, calls[0]["id"]) == sequence
    assert _items(events)[-1]["type"] == "message"  # the answer follows the call


def test_web_search_sources_and_citations_inside_the_answer() -> None:
    body, _, _ = CASES["web_search"]
    events = _stream({"input": "Look up the Paris museums.", **body})
    call, message = _items(events)
    urls = [s["url"] for s in call["action"]["sources"]]
    part = message["content"][0]
    assert len(part["annotations"]) == len(urls) == 2
    for ann in part["annotations"]:
        assert ann["type"] == "url_citation" and ann["url"] in urls
        assert 0 <= ann["start_index"] < ann["end_index"] <= len(part["text"])
    added = [
        e["annotation"] for e in events if e["type"] == "response.output_text.annotation.added"
    ]
    assert added == part["annotations"]
    # without the include, no sources
    plain = _stream({"input": "Look up the Paris museums.", "tools": [{"type": "web_search"}]})
    assert "sources" not in _items(plain)[0]["action"]


def test_file_search_results_with_scores_only_when_included() -> None:
    body, _, _ = CASES["file_search"]
    events = _stream({"input": "Find notes about Paris.", **body})
    call, message = _items(events)
    assert call["queries"] and all(0 < r["score"] <= 1 for r in call["results"])
    ids = {r["file_id"] for r in call["results"]}
    anns = message["content"][0]["annotations"]
    assert anns and all(a["type"] == "file_citation" and a["file_id"] in ids for a in anns)
    assert all(a["index"] <= len(message["content"][0]["text"]) for a in anns)
    body = {k: v for k, v in body.items() if k != "include"}
    assert _items(_stream({"input": "Find notes about Paris.", **body}))[0]["results"] is None


def _png_ok(b64: str) -> tuple[int, int]:
    data = base64.b64decode(b64)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, idat = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.append(kind)
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND"
    width, height = struct.unpack(">II", data[16:24])
    assert len(zlib.decompress(idat)) == height * (1 + 3 * width)
    return width, height


def test_image_generation_partials_from_zero_and_a_valid_png() -> None:
    body, _, _ = CASES["image_generation"]
    events = _stream({"input": "Draw a lighthouse.", **body})
    partials = [e for e in events if e["type"] == "response.image_generation_call.partial_image"]
    assert [e["partial_image_index"] for e in partials] == [0, 1]
    for e in partials:
        _png_ok(e["partial_image_b64"])
    call = _items(events)[0]
    assert _png_ok(call["result"]) == (32, 32)


def test_code_interpreter_code_deltas_and_outputs() -> None:
    body, _, _ = CASES["code_interpreter"]
    events = _stream({"input": "Sum some squares.", **body})
    call = _items(events)[0]
    deltas = [
        e["delta"] for e in events if e["type"] == "response.code_interpreter_call_code.delta"
    ]
    assert len(deltas) > 1 and "".join(deltas) == call["code"]
    assert [o["type"] for o in call["outputs"]] == ["logs", "image"]
    _png_ok(call["outputs"][1]["url"].removeprefix("data:image/png;base64,"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_failure_variant(name: str) -> None:
    body, kind, _sequence = CASES[name]
    events = _stream({"input": "Look up the Paris museums.", **body,
                      "model": "mock-hosted-tool-failure"})  # fmt: skip
    (call,) = [i for i in _items(events) if i["type"] == kind]
    assert call["status"] == "failed"
    got = _types(events, call["id"])
    assert f"{kind}.completed" not in got
    if kind == "mcp_call":
        assert got[-1] == "mcp_call.failed" and call["error"]["type"] == "mcp_tool_execution_error"


def test_max_tool_calls_caps_hosted_calls() -> None:
    ask = "Search the web for the museums in Paris, in Rome and in Oslo."
    tools = [{"type": "web_search"}]
    many = [
        i for i in _items(_stream({"input": ask, "tools": tools})) if i["type"] == "web_search_call"
    ]
    assert len(many) == 3
    for limit in (1, 2):
        capped = _stream({"input": ask, "tools": tools, "max_tool_calls": limit})
        assert [i["type"] for i in _items(capped)].count("web_search_call") == limit
        assert capped[-1]["response"]["max_tool_calls"] == limit


@pytest.mark.parametrize(
    ("tool", "choice", "kind", "streamed"),
    [
        ({"type": "shell"}, {"type": "shell"}, "shell_call", "response.shell_call_command.delta"),
        ({"type": "apply_patch"}, {"type": "apply_patch"}, "apply_patch_call",
         "response.apply_patch_call_operation_diff.delta"),
        ({"type": "local_shell"}, "required", "local_shell_call", None),
        ({"type": "computer_use_preview", "display_width": 1024, "display_height": 768,
          "environment": "browser"}, {"type": "computer_use_preview"}, "computer_call", None),
    ],
)  # fmt: skip
def test_client_executed_calls_end_the_response(
    tool: dict[str, Any], choice: Any, kind: str, streamed: str | None
) -> None:
    events = _stream({"input": "List the files.", "tools": [tool], "tool_choice": choice})
    (call,) = _items(events)
    assert call["type"] == kind and call["call_id"].startswith("call_")
    if streamed:
        assert any(e["type"] == streamed for e in events)


def test_mcp_approval_request_then_response_resumes_the_call() -> None:
    tool = {"type": "mcp", "server_label": "idx", "server_url": "https://mcp.invalid"}
    first = _stream({"input": "Look up lighthouses.", "tools": [tool]})
    listed, request = _items(first)
    assert listed["type"] == "mcp_list_tools" and listed["tools"]
    assert request["type"] == "mcp_approval_request" and request["id"].startswith("mcpr_")
    history = [
        {"role": "user", "content": "Look up lighthouses."},
        listed,
        request,
        {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": True},
    ]
    second = _stream({"input": history, "tools": [tool]})  # mcp_* input items accepted
    call, answer = _items(second)
    assert call["type"] == "mcp_call" and call["approval_request_id"] == request["id"]
    assert call["arguments"] == request["arguments"] and answer["type"] == "message"
    history[-1] = {**history[-1], "approve": False}
    (declined,) = _items(_stream({"input": history, "tools": [tool]}))
    assert declined["type"] == "message"


ALL_BODIES = [
    *(dict(body) for body, _, _ in CASES.values()),
    *({**body, "model": "mock-hosted-tool-failure"} for body, _, _ in CASES.values()),
    {"tools": [{"type": "shell"}], "tool_choice": {"type": "shell"}},
    {"tools": [{"type": "apply_patch"}], "tool_choice": {"type": "apply_patch"}},
    {"tools": [{"type": "local_shell"}]},
    {"tools": [{"type": "mcp", "server_label": "idx", "server_url": "https://mcp.invalid"}]},
    {"tools": [{"type": "custom", "name": "runner"}], "tool_choice": "required",
     "include": ["message.output_text.logprobs"], "top_logprobs": 2},
]  # fmt: skip


@pytest.mark.parametrize(
    "body", ALL_BODIES, ids=lambda b: str(b.get("model", "")) + str(b["tools"][0]["type"])
)
def test_openai_sdk_stream_accumulator_consumes_every_tool_scenario(body: dict[str, Any]) -> None:
    """The openai SDK's `responses.stream` accumulator (its own event state machine) builds the
    same final response from the events as the mock's terminal event carries."""
    mock = InProcessMock()
    try:
        client = mock.client()
        request = {"model": "mock", "input": "Look up the Paris museums.", **body}
        with client.responses.stream(**request) as stream:
            kinds = {event.type for event in stream}
            final = stream.get_final_response()
        terminal = _stream(request)[-1]["response"]
    finally:
        mock.close()
    assert "response.completed" in kinds
    got = [_no_nulls(item.model_dump()) for item in final.output]
    want = [_no_nulls(item) for item in terminal["output"]]
    assert [i["type"] for i in got] == [i["type"] for i in want]
    for g, w in zip(got, want, strict=True):
        assert {k: g.get(k) for k in w if k != "id"} == {k: v for k, v in w.items() if k != "id"}


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def test_an_unreachable_mcp_server_fails_its_tool_listing() -> None:
    tool = {"type": "mcp", "server_label": "down", "server_url": "https://mcp.unreachable.invalid/mcp",
            "require_approval": "never"}  # fmt: skip
    events = _stream({"input": "Use the down server's tools.", "tools": [tool]})
    (listing,) = [i for i in _items(events) if i["type"] == "mcp_list_tools"]
    assert _types(events, listing["id"])[-1] == "mcp_list_tools.failed"
    assert listing["error"] and listing["tools"] == []
    assert not [i for i in _items(events) if i["type"] == "mcp_call"]
    assert [i["type"] for i in _items(events)][-1] == "message"


def test_a_failed_listing_without_an_error_is_caught() -> None:
    """stream.hosted.failed_status for mcp_list_tools, which has no status ([OAPI] MCPListTools):
    `.failed` must come with an `error` (the mock's stream is the near miss)."""
    tool = {"type": "mcp", "server_label": "down",
            "server_url": "https://mcp.unreachable.invalid/mcp", "require_approval": "never"}  # fmt: skip
    events = _stream({"input": "Use the down server's tools.", "tools": [tool]})
    for event in events:
        item = event.get("item") or {}
        if event["type"] == "response.output_item.done" and item.get("type") == "mcp_list_tools":
            item.pop("error")
    validator = StreamValidator()
    found = [v for e in events for v in validator.feed(e)] + validator.close()
    assert {v.check.id for v in found if v.check.level is Level.MUST} >= {
        "stream.hosted.failed_status"
    }
    assert [v.path for v in found if v.check.id == "stream.hosted.failed_status"] == ["item.error"]
