"""Gateways that break a real client, one per defect class of issue #33: the mock behind a small
ASGI layer that refuses what a client sends (as CLIProxyAPI, vibeproxy, OmniRoute did), loses a
streamed parent (Azure, LM Studio) or answers a compaction turn with a message (codex-lb,
kiro2cc-proxy). The client profiles (docs/spec.md §9) must name each under the check of the
client that sends the request (conformance/sections/s9_clients.py names the server of each
check; tests/suite/test_live_examples.py runs them)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from asgi_body import drain, json_answer
from broken_servers import Broken
from suite_support import ASGIApp, Receive, Rewriter, Scope, Send, mock_app

from conformance.examples.live import LIVE_SERVERS
from mock_server.middleware import replayed

# (method, path, body) -> (status, answer) to refuse with, or None to pass the request on
Refusal = Callable[[str, str, Any], tuple[int, Any] | None]
Events = list[dict[str, Any] | None]


class Refuser:
    """Refuses some HTTP requests before they reach ``app``; passes every other one on."""

    def __init__(self, app: ASGIApp, refuse: Refusal) -> None:
        self.app = app
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        data = await drain(receive)
        try:
            body = json.loads(data) if data else None
        except ValueError:
            body = None
        refused = self.refuse(scope["method"], scope["path"], body)
        if refused is not None:
            await json_answer(send, *refused)
            return
        await self.app(scope, replayed(data, receive), send)


class WebSocketRefuser:
    """Refuses every WebSocket upgrade (403) in front of ``app``; HTTP passes on: a server that
    does not serve WebSocket mode, which openai-python's ``connect``, openai-node's ``ResponsesWS``
    and Codex's WebSocket transport use."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})  # before accept: HTTP 403
            return
        await self.app(scope, receive, send)


def refuses_websocket() -> ASGIApp:
    return WebSocketRefuser(mock_app())


def _openai_error(message: str, param: str, code: str = "unknown_parameter") -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param,
                      "code": code}}  # fmt: skip


def _items(body: Any) -> list[tuple[str, dict[str, Any]]]:
    """(path, item) of each input item (``input`` of a create, ``items`` of a conversation)."""
    out = []
    if isinstance(body, dict):
        for key in ("input", "items"):
            if isinstance(body.get(key), list):
                out += [
                    (f"{key}[{i}]", it) for i, it in enumerate(body[key]) if isinstance(it, dict)
                ]
    return out


# --- refused parameters -----------------------------------------------------------------------

CLIENT_PARAMETERS = ("prompt_cache_retention", "prompt_cache_key", "safety_identifier",
                     "client_metadata", "truncation", "service_tier")  # fmt: skip


def refuses_client_parameters() -> ASGIApp:
    """A gateway that knows none of the parameters Codex, the Agents SDK and the SDKs send on
    every request: `400 {"detail": "Unsupported parameter: X"}` (CLIProxyAPI #897, #1028, #2466;
    vibeproxy #311; OmniRoute #3317)."""

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        if not isinstance(body, dict):
            return None
        for key in CLIENT_PARAMETERS:
            if body.get(key) is not None:
                return 400, {"detail": f"Unsupported parameter: {key}"}
        if isinstance(body.get("text"), dict) and "verbosity" in body["text"]:
            return 400, {"detail": "Unsupported parameter: text.verbosity"}
        return None

    return Refuser(mock_app(), refuse)


def refuses_reasoning_parameter() -> ASGIApp:
    """A gateway in front of a model without reasoning: `Unsupported parameter: reasoning`."""

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        if isinstance(body, dict) and body.get("reasoning") is not None:
            return 400, {"detail": "Unsupported parameter: reasoning"}
        return None

    return Refuser(mock_app(), refuse)


def refuses_streaming() -> ASGIApp:
    """A gateway that serves no streamed request (its message names nothing of the request)."""

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        if isinstance(body, dict) and body.get("stream") is True:
            return 400, _openai_error("Streaming is not supported by this deployment.", "")
        return None

    return Refuser(mock_app(), refuse)


# --- refused input items and tools --------------------------------------------------------------


def refuses_input_item_status() -> ASGIApp:
    """`status` on a replayed item refused (`Unknown parameter: 'input[1].status'`)."""

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        for where, item in _items(body):
            if "status" in item:
                return 400, _openai_error(f"Unknown parameter: '{where}.status'.",
                                          f"{where}.status")  # fmt: skip
        return None

    return Refuser(mock_app(), refuse)


def refuses_item_reference() -> ASGIApp:
    """`item_reference` input items refused (a server that stores no items)."""

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        for where, item in _items(body):
            if item.get("type") == "item_reference":
                return 400, _openai_error(
                    "Invalid value: 'item_reference'. Supported values are: 'message', "
                    "'function_call', 'function_call_output' and 'reasoning'.",
                    f"{where}.type", "invalid_value",
                )  # fmt: skip
        return None

    return Refuser(mock_app(), refuse)


def _tools_refusal(match: Callable[[dict[str, Any]], str | None]) -> ASGIApp:
    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        tools = body.get("tools") if isinstance(body, dict) else None
        for i, tool in enumerate(tools if isinstance(tools, list) else []):
            field = match(tool) if isinstance(tool, dict) else None
            if field is not None:
                return 400, _openai_error(f"Unknown parameter: 'tools[{i}].{field}'.",
                                          f"tools[{i}].{field}")  # fmt: skip
        return None

    return Refuser(mock_app(), refuse)


def refuses_strict_tools() -> ASGIApp:
    """A function tool declared with `strict` refused."""
    return _tools_refusal(lambda tool: "strict" if "strict" in tool else None)


def refuses_namespace_tools() -> ASGIApp:
    """`namespace` tools (Codex's deferred tool groups) refused."""
    return _tools_refusal(lambda tool: "type" if tool.get("type") == "namespace" else None)


# --- phase: passed on from the upstream, refused on the way back --------------------------------


def _phase_on_messages(items: list[Any]) -> None:
    for item in items:
        if isinstance(item, dict) and item.get("type") == "message":
            item.setdefault("phase", "final_answer")


def refuses_phase() -> ASGIApp:
    """The upstream's `phase` on output messages reaches the client; the gateway's validator
    refuses it on the assistant message the client replays (`Unknown parameter:
    'input[3].phase'`), or adds to a conversation (the Agents SDK's session: `items[0].phase`)."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and isinstance(body.get("output"), list):
            _phase_on_messages(body["output"])
        return status, body

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is None:
                continue
            if isinstance(e.get("item"), dict):
                _phase_on_messages([e["item"]])
            if isinstance(e.get("response"), dict):
                _phase_on_messages(e["response"].get("output") or [])
        return events

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        for where, item in _items(body):
            if item.get("role") == "assistant" and "phase" in item:
                return 400, _openai_error(f"Unknown parameter: '{where}.phase'.",
                                          f"{where}.phase")  # fmt: skip
        return None

    return Refuser(Rewriter(mock_app(), on_json=on_json, on_sse=on_sse), refuse)


# --- a streamed parent lost, a compaction turn answered with a message ---------------------------


def loses_streamed_parent(lag: float = 1.0) -> ASGIApp:
    """A response that was streamed is not found by a chain for ``lag`` seconds after its
    stream ended (replication lag: Azure via dotnet/extensions #7704, LM Studio #1188); a
    non-streamed parent chains at once."""
    ended: dict[str, float] = {}

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is not None and e.get("type") == "response.completed":
                ended[e["response"]["id"]] = time.monotonic()
        return events

    def refuse(method: str, path: str, body: Any) -> tuple[int, Any] | None:
        parent = body.get("previous_response_id") if isinstance(body, dict) else None
        if parent in ended and time.monotonic() - ended[parent] < lag:
            return 400, _openai_error(
                f"Previous response with id '{parent}' not found.",
                "previous_response_id",
                "previous_response_not_found",
            )
        return None  # fmt: skip

    return Refuser(Rewriter(mock_app(), on_sse=on_sse), refuse)


def _as_message(item: dict[str, Any], *, opened: bool = False) -> dict[str, Any]:
    """The message a gateway makes of a compaction item (as `output_item.added` opens it
    when ``opened``)."""
    content = (
        []
        if opened
        else [
            {
                "type": "output_text",
                "text": "Summary of the conversation.",
                "annotations": [],
                "logprobs": [],
            }
        ]
    )
    return {"id": item.get("id", "msg_compacted"), "type": "message", "role": "assistant",
            "status": "in_progress" if opened else "completed", "content": content}  # fmt: skip


def compaction_turn_as_message() -> ASGIApp:
    """A compaction turn answered with a `message` where the `compaction` item was (codex-lb
    #998, kiro2cc-proxy #38): Codex stops, "expected exactly one compaction output item"."""

    def swap(items: list[Any]) -> list[Any]:
        return [_as_message(i) if isinstance(i, dict) and i.get("type") == "compaction" else i
                for i in items]  # fmt: skip

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is None:
                continue
            if isinstance(e.get("item"), dict) and e["item"].get("type") == "compaction":
                opened = e.get("type") == "response.output_item.added"
                e["item"] = _as_message(e["item"], opened=opened)
            if isinstance(e.get("response"), dict) and isinstance(
                e["response"].get("output"), list
            ):
                e["response"]["output"] = swap(e["response"]["output"])
        return events

    return Rewriter(mock_app(), on_sse=on_sse)


# --- what the Vercel provider's parser needs ----------------------------------------------------


def output_text_without_annotations() -> ASGIApp:
    """Non-streamed messages whose `output_text` parts carry no `annotations` (the Vercel
    provider's response schema requires the array)."""

    def on_json(method: str, path: str, status: int, body: Any) -> tuple[int, Any]:
        if isinstance(body, dict) and isinstance(body.get("output"), list):
            for item in body["output"]:
                for part in item.get("content") or [] if isinstance(item, dict) else []:
                    if isinstance(part, dict) and part.get("type") == "output_text":
                        part.pop("annotations", None)
        return status, body

    return Rewriter(mock_app(), on_json=on_json)


def function_call_done_without_status() -> ASGIApp:
    """Streamed function calls whose `output_item.done` has no `status`, which the Vercel
    provider's chunk schema requires (`in_progress`, `completed` or `incomplete`): the call is
    dropped as an unknown chunk. (A done call `in_progress` parses: the real client runs it.)"""

    def stay(item: Any) -> None:
        if isinstance(item, dict) and item.get("type") == "function_call":
            item.pop("status", None)

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is None:
                continue
            if e.get("type") == "response.output_item.done":
                stay(e.get("item"))
        return events

    return Rewriter(mock_app(), on_sse=on_sse)


def streams_end_incomplete() -> ASGIApp:
    """Streams that end in `response.incomplete` (the server's own output limit) where OpenAI
    completes: the Agents SDK raises on it, and so do openai-python's `responses.stream`
    (`get_final_response()`) and Codex ("Incomplete response returned"); the Vercel AI SDK's
    finish reason is `length`, and it does not run the tool the turn called."""

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is not None and e.get("type") == "response.completed":
                e["type"] = "response.incomplete"
                e["response"]["status"] = "incomplete"
                e["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
        return events

    return Rewriter(mock_app(), on_sse=on_sse)


def text_delta_without_content_index() -> ASGIApp:
    """Streamed `response.output_text.delta` events without `content_index` (LiteLLM's
    reasoning events carry none): openai-node's `responses.stream` accumulator throws "missing
    content at index undefined" (internal/responses/response-accumulator.mjs, getContent), and
    openai-python's indexes the part with it (`output.content[event.content_index]`, a
    TypeError). It fails every client check whose failing example it is (LIVE_SERVERS: each
    client's accumulator check names it). Kept out of CLIENT_LIVE, which the real-client
    agreement (test_client_agreement.py) runs too: in its run of 2026-12-07 openai-node's and
    openai-python's stream flows failed on it while the Agents SDK, Vercel AI SDK and Codex
    passed, and only openai-node's profile had a check for it then; it joins CLIENT_LIVE when
    that agreement is run again with the accumulator checks there are."""

    def on_sse(method: str, path: str, events: Events) -> Events:
        for e in events:
            if e is not None and e.get("type") == "response.output_text.delta":
                e.pop("content_index", None)
        return events

    return Rewriter(mock_app(), on_sse=on_sse)


# Every client profile, and no WebSocket flow: each server shows its defect over HTTP.
_ALL_CLIENTS = ("core,client:codex,client:agents-sdk,client:vercel-ai,client:openai-python,"
                "client:openai-node,client:langchain")  # fmt: skip


def _ids(*pairs: str) -> frozenset[str]:
    return frozenset(f"live.client.{p}" for p in pairs)


def _examples_of(server: str) -> frozenset[str]:
    """The checks whose failing example is ``server`` (conformance/examples/live.py)."""
    found = frozenset(cid for cid, name in LIVE_SERVERS.items() if name == server)
    assert found, f"no check names {server} as its failing example"
    return found


_SHAPE = frozenset({"error.shape"})  # a `{"detail": ...}` body is not OpenAI's error shape

CLIENT_LIVE: dict[str, Broken] = {
    "refuses_client_parameters": Broken(
        refuses_client_parameters, "clients", _ALL_CLIENTS,
        _ids("codex.parameters", "agents_sdk.parameters", "vercel_ai.parameters",
             "openai_python.parameters", "openai_node.parameters") | _SHAPE),
    "refuses_reasoning_parameter": Broken(
        refuses_reasoning_parameter, "clients", _ALL_CLIENTS,
        _ids("codex.parameters", "agents_sdk.parameters", "vercel_ai.parameters",
             "openai_python.parameters", "openai_node.parameters", "langchain.parameters")
        | _SHAPE),
    "refuses_streaming": Broken(
        refuses_streaming, "clients", _ALL_CLIENTS,
        _ids("codex.requests", "agents_sdk.requests", "vercel_ai.requests",
             "openai_python.requests", "openai_node.requests", "langchain.requests")),
    "refuses_input_item_status": Broken(
        refuses_input_item_status, "clients", _ALL_CLIENTS,
        _ids("codex.input_items", "agents_sdk.input_items", "openai_python.input_items",
             "openai_node.input_items", "langchain.input_items")),
    "refuses_item_reference": Broken(
        refuses_item_reference, "clients", _ALL_CLIENTS, _ids("vercel_ai.input_items")),
    "refuses_strict_tools": Broken(
        refuses_strict_tools, "clients", _ALL_CLIENTS,
        _ids("codex.tools", "agents_sdk.tools", "vercel_ai.tools", "openai_python.tools",
             "openai_node.tools", "langchain.tools")),
    "refuses_namespace_tools": Broken(
        refuses_namespace_tools, "clients", _ALL_CLIENTS, _ids("codex.tools")),
    "refuses_phase": Broken(
        refuses_phase, "clients", _ALL_CLIENTS, _ids("codex.input_items", "agents_sdk.input_items")),
    "loses_streamed_parent": Broken(
        loses_streamed_parent, "clients", _ALL_CLIENTS,
        _ids("openai_python.chain_after_stream", "openai_node.chain_after_stream")),
    "output_text_without_annotations": Broken(
        output_text_without_annotations, "clients", _ALL_CLIENTS,
        _ids("vercel_ai.response_parses") | {"response.schema.required"}),
    "function_call_done_without_status": Broken(
        function_call_done_without_status, "clients", _ALL_CLIENTS,
        _ids("vercel_ai.stream_parses") | {"stream.output.equals_items"}),
    "streams_end_incomplete": Broken(
        streams_end_incomplete, "clients", _ALL_CLIENTS,
        _ids("agents_sdk.stream_completed", "openai_python.stream_completed",
             "codex.stream_completed", "vercel_ai.stream_completed")),
    "compaction_turn_as_message": Broken(
        compaction_turn_as_message, "clients", _ALL_CLIENTS, _ids("codex.compaction_one_item")),
}  # fmt: skip


# Gateways that break a client's stream accumulator, kept out of CLIENT_LIVE (see each one's
# docstring): tests/suite/test_client_profiles.py runs them apart. Each fails the accumulator
# checks whose failing example it is, however many clients' modules name it.
ACCUMULATOR_LIVE: dict[str, Broken] = {
    "text_delta_without_content_index": Broken(
        text_delta_without_content_index, "clients", _ALL_CLIENTS,
        # the judge, too, cannot place the deltas: their text is not the done text's
        _examples_of("text_delta_without_content_index")
        | {"event.schema.required", "stream.text.deltas_equal_done"}),
}  # fmt: skip
