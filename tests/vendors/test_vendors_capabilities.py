"""The vendor matrix's capability probes (benchmarks/vendors/capabilities.py): the mock, which
serves every surface, probes as implemented; a server that serves none of them probes as not
implemented with its statuses as evidence; the verdicts land additively in the merged index and
the summary; the baseline comparison looks at verdicts only where the baseline has them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from benchmarks.vendors.capabilities import (
    CAPABILITIES,
    PROFILE_OF,
    _Client,
    probe_all,
    probe_custom_tools,
    summarize,
)
from benchmarks.vendors.catalog import MOCK_PROFILES
from benchmarks.vendors.compare import compare
from benchmarks.vendors.run import add_capabilities
from benchmarks.vendors.summary import capability_table, render_summary
from mock_server.testing import LoopbackMock
from reference_impl.server import ServerThread


@pytest.fixture(scope="module")
def mock_caps() -> Iterator[dict[str, dict[str, Any]]]:
    with LoopbackMock() as mock:
        yield probe_all(mock.base_url, "mock", timeout=10)


def test_the_mock_implements_every_probed_capability(
    mock_caps: dict[str, dict[str, Any]],
) -> None:
    assert list(mock_caps) == list(CAPABILITIES)
    assert summarize(mock_caps) == dict.fromkeys(CAPABILITIES, "implemented"), {
        k: v["finding"] for k, v in mock_caps.items() if v["verdict"] != "implemented"
    }
    # and the mock claims every profile a probe found (catalog.MOCK_PROFILES)
    assert {PROFILE_OF[c] for c in CAPABILITIES} <= set(MOCK_PROFILES)
    ws = mock_caps["websocket"]["evidence"][0]
    assert ws["status"] == 101 and "response.completed" in ws["note"]
    first = mock_caps["conversations"]["evidence"][0]
    assert first["request"] == "POST /conversations" and first["status"] == 200
    assert '"object":"conversation"' in first["first_bytes"].replace(" ", "")


def _plain_server() -> Starlette:
    """A Responses server of the old kind: POST /v1/responses answers a text response, ignoring
    include, tools and context_management; nothing else is routed (404, no WebSocket)."""

    async def create(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse(
            {
                "id": "resp_1",
                "object": "response",
                "status": "completed",
                "model": body.get("model"),
                "output": [
                    {
                        "type": "reasoning",
                        "id": "rs_1",
                        "summary": [],
                    },
                    {
                        "type": "message",
                        "id": "msg_1",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": "OK", "annotations": []}],
                    },
                ],
            }
        )

    return Starlette(routes=[Route("/v1/responses", create, methods=["POST"])])


def test_a_server_without_the_newer_surfaces_probes_as_not_implemented() -> None:
    with ServerThread(_plain_server()) as server:
        caps = probe_all(server.base_url + "/v1", "m", timeout=5)
    verdicts = summarize(caps)
    assert verdicts == dict.fromkeys(CAPABILITIES, "not_implemented"), verdicts
    assert caps["conversations"]["evidence"][0]["status"] == 404
    compact = caps["compaction"]["evidence"][0]
    assert (compact["request"], compact["status"]) == ("POST /responses/compact", 404)
    assert "no compaction item" in caps["compaction"]["finding"]  # context_management ignored
    assert "without encrypted_content" in caps["stateless_reasoning"]["finding"]
    ws = caps["websocket"]["evidence"][0]
    assert ws["status"] == 403 and caps["websocket"]["finding"] == "upgrade refused: HTTP 403"
    assert "accepted, not called" in caps["custom_tools"]["finding"]
    assert "accepted, not run" in caps["hosted:mcp"]["finding"]


def _grammar_sampling_server() -> Starlette:
    """SGLang `plain` as measured: a forced tool is a grammar over the model's tokens, and a
    scripted model sampled under it sometimes closes the call (a custom_tool_call) and sometimes
    runs out of tokens; greedy, it always runs out (an incomplete message holding the open call)."""
    sampled = iter(range(1_000))

    async def create(request: Request) -> JSONResponse:
        body = await request.json()
        greedy = body.get("temperature") == 0
        call = not greedy and next(sampled) % 2 == 0
        item: dict[str, Any] = (
            {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1",
             "name": "probe_echo", "input": "{{ messages"}
            if call
            else {"type": "message", "id": "msg_1", "role": "assistant", "status": "incomplete",
                  "content": [{"type": "output_text", "text": '[{"name":"probe_echo"',
                               "annotations": []}]}
        )  # fmt: skip
        return JSONResponse(
            {
                "id": "resp_1",
                "object": "response",
                "created_at": 1,
                "status": "completed" if call else "incomplete",
                "incomplete_details": None if call else {"reason": "max_output_tokens"},
                "model": body.get("model"),
                "output": [item],
            }
        )

    return Starlette(routes=[Route("/v1/responses", create, methods=["POST"])])


def test_the_custom_tool_probe_asks_greedily_so_a_sampled_grammar_gives_one_verdict() -> None:
    with ServerThread(_grammar_sampling_server()) as server:
        client = _Client(server.base_url + "/v1", None, timeout=5)
        try:
            results = [probe_custom_tools(client, "m") for _ in range(4)]
        finally:
            client.close()
    assert {r.verdict for r in results} == {"not_implemented"}
    assert results[0].finding.endswith(
        "output ['message'], status incomplete (max_output_tokens)"
    ), results[0].finding


def test_nothing_listening_is_an_error_free_not_implemented_finding() -> None:
    with ServerThread(_plain_server()) as server:
        url = server.base_url
    caps = probe_all(url + "/v1", "m", timeout=2)  # the server has stopped: no answer at all
    assert set(summarize(caps).values()) == {"not_implemented"}
    assert caps["conversations"]["evidence"][0]["status"] is None


def test_capabilities_are_added_to_the_merged_index_and_rendered(
    tmp_path: Path, mock_caps: dict[str, dict[str, Any]]
) -> None:
    index = {"targets": {"mock": {"status": "ran", "checks": {}}}, "checks": {}}
    path = tmp_path / "index.json"
    path.write_text(json.dumps(index))
    add_capabilities(path, {"mock": {"capabilities": mock_caps}, "other": {}})
    merged = json.loads(path.read_text())
    assert merged["targets"]["mock"]["checks"] == {}  # the suite's part unchanged
    assert summarize(merged["targets"]["mock"]["capabilities"]) == summarize(mock_caps)
    run = {"targets": {"mock": {"profiles": ["core", "conversations"], "vendor": "ours"}}}
    table = "\n".join(capability_table(merged, run))
    assert "| `mock` | yes, claimed |" in table  # conversations: claimed
    assert "yes, **not claimed**" in table  # compaction: found but not claimed here
    text = render_summary(merged, run)
    assert "## Capabilities (probed)" in text and "`POST /conversations` → 200" in text


def test_compare_looks_at_probe_verdicts_only_where_the_baseline_has_them() -> None:
    def target(verdict: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"status": "ran", "checks": {"a": {"outcome": "pass"}}}
        if verdict is not None:
            out["capabilities"] = {"websocket": {"verdict": verdict, "evidence": []}}
        return out

    same = {"targets": {"t": target("not_implemented")}}
    moved = {"targets": {"t": target("implemented")}}
    assert compare(same, same) == []
    assert compare(same, moved) == ["t: capability websocket not_implemented → implemented"]
    assert compare({"targets": {"t": target(None)}}, moved) == []  # an older baseline
    assert compare(same, {"targets": {"t": target(None)}}) == []  # a --no-probe run


def _stream_only_server() -> Starlette:
    """Like open-responses-server: a non-streamed create answers 200 ``null``; streamed, the
    Response comes in the terminal event."""

    async def create(request: Request) -> Response:
        body = await request.json()
        if not body.get("stream"):
            return Response("null", media_type="application/json")
        final = {"id": "resp_1", "object": "response", "status": "completed", "output": []}
        events = [
            {"type": "response.created", "response": {**final, "status": "in_progress"}},
            {"type": "response.completed", "response": final},
        ]
        text = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
        return Response(text, media_type="text/event-stream")

    return Starlette(routes=[Route("/responses", create, methods=["POST"])])


def test_a_stream_only_create_is_asked_again_with_stream_true() -> None:
    with ServerThread(_stream_only_server()) as server:
        caps = probe_all(server.base_url, "m", timeout=5)
    evidence = caps["hosted:web_search"]["evidence"]
    assert [(e["request"], e["status"]) for e in evidence] == [
        ("POST /responses", 200),
        ("POST /responses (stream: true)", 200),
    ]
    assert evidence[0]["first_bytes"] == "null"
    assert "accepted, not run" in caps["hosted:web_search"]["finding"]  # read from the stream
    assert caps["stateless_reasoning"]["verdict"] == "not_applicable"  # no reasoning item
