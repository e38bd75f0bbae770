"""Capability probes: which of the newer Responses surfaces a target implements, with evidence.

A probe is a handful of plain requests to a started target — the least a client of that surface
sends — and what came back (HTTP status and the first bytes of the body, or the WebSocket
handshake's status and first frame). It is evidence for the matrix, not a judgement: the suite
judges a profile only where the target claims it; a probe says whether a claim *could* be made.
"Not implemented" is a finding about the vendor, not a failure of the run.

Verdicts: ``implemented`` (every step answered as that surface's clients need), ``partial``
(some steps did: the evidence says which), ``not_implemented`` (refused, or accepted and ignored),
``not_applicable`` (the model cannot show it: no reasoning item to carry encrypted content),
``error`` (the probe could not talk to the target at all).

Nothing here imports the judged code; requests go over loopback to the target's base URL. The
hosted MCP probe names a loopback URL nobody listens on (port 9), so a vendor that really
connects to MCP servers reaches nothing outside the machine.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.sync.client import connect

from conformance.suite.hosted_requests import HOSTED as SUITE_HOSTED
from conformance.suite.ws import ws_url

__all__ = [
    "CAPABILITIES",
    "PROFILE_OF",
    "Evidence",
    "ProbeResult",
    "probe_all",
    "summarize",
]

FIRST_BYTES = 240
WS_FRAMES = 64  # frames read at most before giving up on a terminal event
MAX_STREAM_CHARS = 4_000_000  # of a streamed create read back (the scripted answers are short)
TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed", "error"})
MCP_LOOPBACK = "http://127.0.0.1:9/mcp"  # the discard port: nothing listens, nothing leaves

# capability → the suite profile a target would claim for it
PROFILE_OF: dict[str, str] = {
    "conversations": "conversations",
    "compaction": "compaction",
    "stateless_reasoning": "stateless-reasoning",
    "websocket": "websocket",
    "custom_tools": "custom-tools",
    "hosted:web_search": "hosted:web_search",
    "hosted:file_search": "hosted:file_search",
    "hosted:code_interpreter": "hosted:code_interpreter",
    "hosted:image_generation": "hosted:image_generation",
    "hosted:mcp": "hosted:mcp",
    "hosted:tool_search": "hosted:tool_search",
    "hosted:shell": "hosted:shell",
    "hosted:apply_patch": "hosted:apply_patch",
    "hosted:computer_use_preview": "hosted:computer_use_preview",
}
CAPABILITIES = tuple(PROFILE_OF)
_DEFERRED = {
    "type": "function", "name": "get_weather", "defer_loading": True,
    "description": "Get the current weather at a location.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"], "additionalProperties": False},
}  # fmt: skip

# hosted capability → (tool, tool_choice, item type, prompt): the suite's own requests for the
# profiles it has cases for (conformance/suite/hosted_requests.py), non-streamed, MCP on loopback
HOSTED: dict[str, tuple[dict[str, Any], dict[str, Any], str, str]] = {
    **{
        name: ({k: v for k, v in req.tool.items() if k != "partial_images"}, *req[1:])
        for name, req in SUITE_HOSTED.items()
        if name != "hosted:mcp"
    },
    "hosted:mcp": (
        {"type": "mcp", "server_label": "probe", "server_url": MCP_LOOPBACK,
         "require_approval": "never"},
        {"type": "mcp", "server_label": "probe"}, "mcp_call",
        "Use the probe server's tools to answer: what is 2 + 2?",
    ),
    "hosted:tool_search": (
        {"type": "tool_search"}, {}, "tool_search_call",
        "What is the weather in Paris right now? Use the get_weather tool.",
    ),
    # built-in tools the client runs: the call is what the server must produce
    "hosted:shell": (
        {"type": "shell"}, {"type": "shell"}, "shell_call",
        "List the files in the current directory with a shell command.",
    ),
    "hosted:apply_patch": (
        {"type": "apply_patch"}, {"type": "apply_patch"}, "apply_patch_call",
        "Create a file notes.md that says hello, by applying a patch.",
    ),
    "hosted:computer_use_preview": (
        {"type": "computer_use_preview", "display_width": 1024, "display_height": 768,
         "environment": "browser"},
        {"type": "computer_use_preview"}, "computer_call", "Take a screenshot of the browser.",
    ),
}  # fmt: skip


@dataclass(slots=True)
class Evidence:
    """One exchange: what was asked and the first bytes of what came back."""

    request: str  # "POST /responses/compact" (path relative to the base URL)
    status: int | None  # HTTP status (the handshake's for WebSocket); None: no answer
    first_bytes: str
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "request": self.request,
            "status": self.status,
            "first_bytes": self.first_bytes,
        }
        if self.note:
            out["note"] = self.note
        return out


@dataclass(slots=True)
class ProbeResult:
    capability: str
    verdict: str  # implemented | partial | not_implemented | not_applicable | error
    finding: str  # one sentence: what the evidence shows
    evidence: list[Evidence] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "profile": PROFILE_OF[self.capability],
            "verdict": self.verdict,
            "finding": self.finding,
            "evidence": [e.as_dict() for e in self.evidence],
        }


def _first(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= FIRST_BYTES else text[: FIRST_BYTES - 1] + "…"


class _Client:
    """The probe's HTTP side: JSON in, (status, parsed body) out, every exchange kept."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = httpx2.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)
        self.secret = api_key or ""

    def close(self) -> None:
        self.http.close()

    def send(
        self, method: str, path: str, body: Mapping[str, Any] | None, trail: list[Evidence]
    ) -> tuple[int | None, Any]:
        label = f"{method} {path}"
        try:
            response = self.http.request(method, path.lstrip("/"), json=body)
        except httpx2.HTTPError as exc:
            trail.append(Evidence(label, None, "", f"no answer: {type(exc).__name__}: {exc}"))
            return None, None
        text = response.text
        if self.secret:
            text = text.replace(self.secret, "[redacted]")
        trail.append(Evidence(label, response.status_code, _first(text)))
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, None

    def create(self, body: Mapping[str, Any], trail: list[Evidence]) -> tuple[int | None, Any]:
        """``POST /responses``; a server that answers a non-streamed create with something that
        is not a Response (open-responses-server: 200 ``null``, it only streams) is asked again
        with ``stream: true``, and the final Response is read from the stream's terminal event."""
        status, parsed = self.send("POST", "/responses", body, trail)
        if status != 200 or (isinstance(parsed, dict) and parsed.get("object") == "response"):
            return status, parsed
        label = "POST /responses (stream: true)"
        try:
            response = self.http.request("POST", "responses", json={**body, "stream": True})
        except httpx2.HTTPError as exc:
            trail.append(Evidence(label, None, "", f"no answer: {type(exc).__name__}: {exc}"))
            return None, None
        text = response.text[:MAX_STREAM_CHARS]
        trail.append(Evidence(label, response.status_code, _first(text)))
        final: Any = None
        for line in text.splitlines():
            if not line.startswith("data:"):
                continue
            try:
                event = json.loads(line[5:])
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") in TERMINAL:
                final = event.get("response")
        return response.status_code, final


def _items(body: Any, kind: str | None = None) -> list[dict[str, Any]]:
    output = body.get("output") if isinstance(body, dict) else None
    if not isinstance(output, list):
        return []
    return [i for i in output if isinstance(i, dict) and (kind is None or i.get("type") == kind)]


def _ok(status: int | None, body: Any, obj: str) -> bool:
    return status == 200 and isinstance(body, dict) and body.get("object") == obj


def _cut(body: Mapping[str, Any]) -> str:
    """The suffix ", status incomplete (reason)" where the Response was cut short, else ""."""
    if body.get("status") != "incomplete":
        return ""
    details = body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return f", status incomplete ({reason or 'no reason given'})"


def _refusal(status: int | None) -> str:
    return "no answer in time" if status is None else f"HTTP {status}"


def probe_conversations(client: _Client, model: str) -> ProbeResult:
    trail: list[Evidence] = []
    item = {"type": "message", "role": "user", "content": "Probe item."}
    status, body = client.send("POST", "/conversations", {"items": [item]}, trail)
    if not _ok(status, body, "conversation") or not isinstance(body.get("id"), str):
        return ProbeResult(
            "conversations", "not_implemented",
            f"POST /conversations: {_refusal(status)}, no conversation object", trail,
        )  # fmt: skip
    cid = body["id"]
    status, items = client.send("GET", f"/conversations/{cid}/items", None, trail)
    listed = _ok(status, items, "list")
    status, turn = client.create(
        {"model": model, "input": "Reply only with OK.", "conversation": cid, "store": True},
        trail,
    )  # fmt: skip
    echoed = turn.get("conversation") if isinstance(turn, dict) else None
    applied = status == 200 and isinstance(echoed, dict) and echoed.get("id") == cid
    client.send("DELETE", f"/conversations/{cid}", None, trail)
    if listed and applied:
        return ProbeResult(
            "conversations", "implemented",
            "conversation created, its items listed, `conversation` on create echoed", trail,
        )  # fmt: skip
    return ProbeResult(
        "conversations", "partial",
        f"conversation created; items listed: {listed}; `conversation` on create honoured: "
        f"{applied}", trail,
    )  # fmt: skip


def probe_compaction(client: _Client, model: str) -> ProbeResult:
    trail: list[Evidence] = []
    history = [
        {"role": "user", "content": "Remember the word OSPREY. Reply only with OK."},
        {"role": "assistant", "content": "OK"},
    ]
    status, body = client.send(
        "POST", "/responses/compact", {"model": model, "input": history}, trail
    )
    compacted = _ok(status, body, "response.compaction") and bool(_items(body, "compaction"))
    continued = False
    if compacted:
        status, nxt = client.create(
            {"model": model, "store": False,
             "input": [*_items(body), {"role": "user", "content": "Reply only with OK."}]},
            trail,
        )  # fmt: skip
        continued = _ok(status, nxt, "response")
    status, managed = client.create(
        {"model": model, "input": "Reply only with OK.",
         "context_management": [{"type": "compaction", "compact_threshold": 1}]},
        trail,
    )  # fmt: skip
    on_create = _ok(status, managed, "response") and bool(_items(managed, "compaction"))
    steps = (
        f"compact: {'yes' if compacted else _refusal(trail[0].status)}; continued from it: "
        f"{continued}; context_management on create: "
        + ("compaction item" if on_create else f"{_refusal(status)}, no compaction item")
    )
    if compacted and continued and on_create:
        return ProbeResult("compaction", "implemented", steps, trail)
    if compacted or on_create:
        return ProbeResult("compaction", "partial", steps, trail)
    return ProbeResult("compaction", "not_implemented", steps, trail)


def probe_stateless_reasoning(client: _Client, model: str) -> ProbeResult:
    trail: list[Evidence] = []
    ask = {"role": "user", "content": "Reply only with OK."}
    request = {
        "model": model, "store": False, "reasoning": {"effort": "low"},
        "include": ["reasoning.encrypted_content"],
    }  # fmt: skip
    status, body = client.create({**request, "input": [ask]}, trail)
    if not _ok(status, body, "response"):
        return ProbeResult(
            "stateless_reasoning", "not_implemented",
            f"store: false with include reasoning.encrypted_content: {_refusal(status)}", trail,
        )  # fmt: skip
    reasoning = _items(body, "reasoning")
    if not reasoning:
        return ProbeResult(
            "stateless_reasoning", "not_applicable",
            "HTTP 200 without a reasoning item (the model did not reason)", trail,
        )  # fmt: skip
    blobs = [r.get("encrypted_content") for r in reasoning]
    if not all(isinstance(b, str) and b for b in blobs):
        return ProbeResult(
            "stateless_reasoning", "not_implemented",
            "include asked for it, the reasoning item came without encrypted_content", trail,
        )  # fmt: skip
    status, nxt = client.create({**request, "input": [ask, *_items(body), ask]}, trail)
    if _ok(status, nxt, "response"):
        return ProbeResult(
            "stateless_reasoning", "implemented",
            "encrypted_content returned under store: false and accepted back as input", trail,
        )  # fmt: skip
    return ProbeResult(
        "stateless_reasoning", "partial",
        f"encrypted_content returned; sent back: {_refusal(status)}", trail,
    )  # fmt: skip


def probe_websocket(client: _Client, model: str, base_url: str, timeout: float) -> ProbeResult:
    url = ws_url(base_url)
    label = "GET /responses (WebSocket upgrade)"
    headers = dict(client.http.headers)
    auth = {"authorization": headers["authorization"]} if "authorization" in headers else None
    try:
        socket = connect(url, additional_headers=auth, open_timeout=timeout, max_size=2**24)
    except InvalidStatus as exc:
        body = exc.response.body or b""
        shown = _first(body.decode("utf-8", "replace"))
        status = exc.response.status_code
        return ProbeResult(
            "websocket", "not_implemented", f"upgrade refused: HTTP {status}",
            [Evidence(label, status, shown)],
        )  # fmt: skip
    except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
        return ProbeResult(
            "websocket", "not_implemented", f"no WebSocket: {type(exc).__name__}",
            [Evidence(label, None, "", f"{type(exc).__name__}: {exc}"[:FIRST_BYTES])],
        )  # fmt: skip
    seen: list[str] = []
    first = ""
    note = ""
    with socket:
        create = {"type": "response.create", "model": model, "input": "Reply only with OK."}
        socket.send(json.dumps(create))
        deadline = time.monotonic() + timeout
        try:
            for _ in range(WS_FRAMES):
                frame = socket.recv(timeout=max(0.1, deadline - time.monotonic()))
                text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
                first = first or _first(text)
                try:
                    kind = json.loads(text).get("type")
                except (ValueError, AttributeError):
                    kind = "(not JSON)"
                seen.append(str(kind))
                if kind in TERMINAL:
                    break
        except TimeoutError:
            note = "no terminal event in time"
        except ConnectionClosed as exc:
            note = f"closed by the server (code {exc.rcvd.code if exc.rcvd else None})"
    kinds = list(dict.fromkeys(seen))
    evidence = Evidence(label, 101, first, note or f"event types: {', '.join(kinds)}")
    if "response.completed" in seen:
        return ProbeResult(
            "websocket", "implemented",
            "upgraded; response.create answered with the stream up to response.completed",
            [evidence],
        )  # fmt: skip
    return ProbeResult(
        "websocket", "partial", f"upgraded, but no response.completed ({note or kinds})",
        [evidence],
    )  # fmt: skip


def probe_custom_tools(client: _Client, model: str) -> ProbeResult:
    trail: list[Evidence] = []
    tool = {"type": "custom", "name": "probe_echo", "description": "Echoes its text input."}
    # Asked greedily: a server that forces the call with a grammar leaves the tokens to the
    # model, and a scripted or random-weight model sampled under that grammar closes the call in
    # some runs and runs out of tokens in others (SGLang `plain` did both, one launch seed apart).
    # At temperature 0 the same server and model give the same verdict every run.
    status, body = client.create(
        {"model": model, "input": "Call probe_echo with the text hello.", "tools": [tool],
         "tool_choice": {"type": "custom", "name": "probe_echo"}, "temperature": 0},
        trail,
    )  # fmt: skip
    if _ok(status, body, "response") and _items(body, "custom_tool_call"):
        return ProbeResult(
            "custom_tools", "implemented", "a forced custom tool was called (custom_tool_call)",
            trail,
        )  # fmt: skip
    if _ok(status, body, "response"):
        return ProbeResult(
            "custom_tools", "not_implemented",
            "HTTP 200 but no custom_tool_call (the custom tool was accepted, not called): "
            f"output {[i.get('type') for i in _items(body)]}{_cut(body)}", trail,
        )  # fmt: skip
    return ProbeResult(
        "custom_tools", "not_implemented",
        f"a forced custom tool: {_refusal(status)}, no response", trail,
    )  # fmt: skip


def probe_hosted(client: _Client, model: str, capability: str) -> ProbeResult:
    tool, choice, kind, prompt = HOSTED[capability]
    trail: list[Evidence] = []
    request: dict[str, Any] = {"model": model, "input": prompt, "tools": [tool]}
    if capability == "hosted:tool_search":
        request["tools"] = [_DEFERRED, tool]
    if choice:
        request["tool_choice"] = choice
    status, body = client.create(request, trail)
    calls = _items(body, kind)
    if _ok(status, body, "response") and calls:
        done = all(c.get("status") in (None, "completed") for c in calls)
        return ProbeResult(
            capability, "implemented" if done else "partial",
            f"{kind} in output, status {[c.get('status') for c in calls]}", trail,
        )  # fmt: skip
    if _ok(status, body, "response"):
        return ProbeResult(
            capability, "not_implemented",
            f"HTTP 200 but no {kind} (the tool was accepted, not run): output "
            f"{[i.get('type') for i in _items(body)]}", trail,
        )  # fmt: skip
    return ProbeResult(
        capability, "not_implemented", f"the forced tool: {_refusal(status)}, no response", trail
    )


def probe_all(
    base_url: str, model: str, *, api_key: str | None = None, timeout: float = 30.0
) -> dict[str, dict[str, Any]]:
    """Every capability of :data:`CAPABILITIES` probed on one target; capability → result."""
    client = _Client(base_url, api_key, timeout)
    results: dict[str, ProbeResult] = {}
    try:
        probes: dict[str, Callable[[], ProbeResult]] = {
            "conversations": lambda: probe_conversations(client, model),
            "compaction": lambda: probe_compaction(client, model),
            "stateless_reasoning": lambda: probe_stateless_reasoning(client, model),
            "websocket": lambda: probe_websocket(client, model, base_url, timeout),
            "custom_tools": lambda: probe_custom_tools(client, model),
        }
        for capability in CAPABILITIES:
            try:
                if capability in probes:
                    results[capability] = probes[capability]()
                else:
                    results[capability] = probe_hosted(client, model, capability)
            except Exception as exc:  # a probe must not end the run: it is evidence only
                results[capability] = ProbeResult(
                    capability, "error", f"the probe broke: {type(exc).__name__}: {exc}"[:300]
                )
    finally:
        client.close()
    return {name: result.as_dict() for name, result in results.items()}


def summarize(capabilities: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """capability → verdict, what the baseline comparison looks at (the evidence has ids)."""
    return {name: str(result.get("verdict", "")) for name, result in capabilities.items()}
