"""Deterministic fakes of the tools a Responses server runs itself (hosted tools), and of the
calls it asks the client to run (shell, local shell, apply_patch, computer), behind one interface.

Each fake turns (the request, the tool declaration, a query, a seeded RNG) into plan segments
(:class:`~mock_server.scenarios.Segment`): a ``hosted`` segment holding the whole call as an
engine :class:`~reference_impl.engine.HostedToolCall` (the assembler streams it in OpenAI's event
order), usually followed by the answer text and its annotations (citations). Shapes follow the
recordings (``shared/corpus/openai-recorded/streams``: openai-web-search-tool.1,
openai-file-search-tool.1, openai-code-interpreter-tool.1, openai-image-generation-tool.1,
openai-mcp-tool*.jsonl, openai-shell-tool.1, openai-apply-patch-tool.1,
openai-local-shell-tool.1); the ``include[]`` values that add detail are honoured
(``web_search_call.action.sources``, ``file_search_call.results``,
``code_interpreter_call.outputs``).

``fail=True`` is the failure variant: the call's item ends ``status: failed`` (kinds with a
``*.failed`` event — MCP — send it) and the answer says the tool failed.

MCP approvals: a server declared with ``require_approval`` other than ``"never"`` gets an
``mcp_approval_request`` and the response ends there; a later request whose input carries the
client's ``mcp_approval_response`` (``approve: true``) for it gets the ``mcp_call`` (with that
``approval_request_id``) and the answer; ``approve: false`` gets an answer without a call.
"""

from __future__ import annotations

import base64
import hashlib
import random
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from mock_server import prose
from mock_server.jsonschema_gen import generate
from mock_server.tokenizer import tokenize
from reference_impl.engine import GenerationRequest, HostedToolCall

__all__ = ["HOSTED_TOOLS", "Fake", "HostedTool", "declared_hosted", "png", "tool_type_of"]

# A segment as the scenarios module defines it; built through this factory to avoid an import
# cycle: (kind, text, call=None, annotation=None).
SegmentFactory = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Fake:
    """What a fake needs of one call."""

    request: GenerationRequest
    tool: Mapping[str, Any]
    query: str
    rng: random.Random
    fail: bool
    include: frozenset[str]
    segment: SegmentFactory
    index: int = 0  # which call of this tool in the response (0, 1, …)


class HostedTool(Protocol):
    def __call__(self, fake: Fake) -> list[Any]:
        """The segments of one call (and of the answer that follows it)."""
        ...


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid PNG of one colour (8-bit RGB, no filter), built with zlib."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height, 9))
        + chunk(b"IEND", b"")
    )


def _png_b64(rng: random.Random, size: int = 16) -> str:
    rgb = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    return base64.b64encode(png(size, size, rgb)).decode()


def _hex(fake: Fake, what: str, n: int = 24) -> str:
    seed = f"{what}\x00{fake.query}\x00{fake.index}\x00{fake.rng.random()}".encode()
    return hashlib.sha256(seed).hexdigest()[:n]


def _slug(text: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
    return "-".join(words[:5]) or "query"


def _pieces(text: str) -> list[str]:
    return tokenize(text) or [text]


def _answer_with_citations(
    fake: Fake, lead: str, citations: Sequence[Mapping[str, Any]], kind: str
) -> list[Any]:
    """The answer after a search: one sentence per citation, each cited (offsets of the sentence
    in the text, Unicode code points)."""
    text = lead
    annotations: list[dict[str, Any]] = []
    for cite in citations:
        sentence = prose.sentences(fake.rng, 12)
        text += " "
        start = len(text)
        text += sentence
        if kind == "url":
            annotations.append(
                {"type": "url_citation", "end_index": len(text), "start_index": start,
                 "title": cite["title"], "url": cite["url"]}
            )  # fmt: skip
        else:
            annotations.append(
                {"type": "file_citation", "file_id": cite["file_id"],
                 "filename": cite["filename"], "index": len(text)}
            )  # fmt: skip
    return [fake.segment("text", text)] + [
        fake.segment("annotation", "", annotation=a) for a in annotations
    ]


def web_search(fake: Fake) -> list[Any]:
    query = fake.query
    sources = [
        {"type": "url", "url": f"https://example.com/{_slug(query)}/{fake.index}-{i}",
         "title": f"{query.title()} — source {i + 1}"}
        for i in range(2)
    ]  # fmt: skip
    action: dict[str, Any] = {"type": "search", "query": query}
    if "web_search_call.action.sources" in fake.include:
        action["sources"] = [{"type": "url", "url": s["url"]} for s in sources]
    call = HostedToolCall(
        "web_search_call",
        action=action,
        fields={"action": action},
        status="failed" if fake.fail else "completed",
    )
    out = [fake.segment("hosted", query, call=call)]
    if fake.fail:
        return [*out, fake.segment("text", f'The web search for "{query}" failed.')]
    return out + _answer_with_citations(fake, f'Search results for "{query}":', sources, "url")


def file_search(fake: Fake) -> list[Any]:
    query = fake.query
    store = (fake.tool.get("vector_store_ids") or ["vs_mock"])[0]
    files = [
        {"file_id": f"file-{_hex(fake, f'file{i}', 22)}", "filename": f"notes-{i + 1}.md",
         "score": round(0.95 - 0.17 * i, 4), "text": prose.sentences(fake.rng, 16),
         "attributes": {"vector_store_id": str(store)}}
        for i in range(2)
    ]  # fmt: skip
    results = files if "file_search_call.results" in fake.include else None
    fields = {"queries": [query, f"{query} details"], "results": results}
    call = HostedToolCall(
        "file_search_call", fields=fields, status="failed" if fake.fail else "completed"
    )
    out = [fake.segment("hosted", query, call=call)]
    if fake.fail:
        return [*out, fake.segment("text", f'The file search for "{query}" failed.')]
    return out + _answer_with_citations(fake, f'The files say this about "{query}":', files, "file")


def code_interpreter(fake: Fake) -> list[Any]:
    n = 2 + fake.rng.randrange(8)
    code = f"values = [i * i for i in range({n})]\nprint(sum(values))\n"
    logs = f"{sum(i * i for i in range(n))}\n"
    container = fake.tool.get("container")
    container_id = container if isinstance(container, str) else f"cntr_{_hex(fake, 'cntr', 40)}"
    outputs: list[dict[str, Any]] | None = None
    if "code_interpreter_call.outputs" in fake.include:
        outputs = [{"type": "logs", "logs": "Traceback: ZeroDivisionError" if fake.fail else logs}]
        if not fake.fail:
            outputs.append({"type": "image", "url": "data:image/png;base64," + _png_b64(fake.rng)})
    fields = {"code": code, "container_id": container_id, "outputs": outputs}
    call = HostedToolCall(
        "code_interpreter_call", fields=fields, status="failed" if fake.fail else "completed",
        stream=_pieces(code),
    )  # fmt: skip
    answer = (
        "The code failed to run." if fake.fail else f"The sum of the squares is {logs.strip()}."
    )
    return [fake.segment("hosted", code, call=call), fake.segment("text", answer)]


def image_generation(fake: Fake) -> list[Any]:
    partials = fake.tool.get("partial_images")
    count = partials if type(partials) is int and 0 <= partials <= 3 else 0
    meta = {
        "background": "opaque",
        "output_format": "png",
        "quality": str(fake.tool.get("quality") or "low"),
        "size": "1024x1024",
    }
    fields: dict[str, Any] = {
        **meta,
        "result": None if fake.fail else _png_b64(fake.rng, 32),
        "revised_prompt": f"An image of {fake.query}.",
    }
    call = HostedToolCall(
        "image_generation_call", fields=fields, status="failed" if fake.fail else "completed",
        partial_images=() if fake.fail else [_png_b64(fake.rng, 8) for _ in range(count)],
    )  # fmt: skip
    out = [fake.segment("hosted", fake.query, call=call)]
    if fake.fail:
        return [*out, fake.segment("text", "The image could not be generated.")]
    return [*out, fake.segment("text", f"Here is the image of {fake.query}.")]


MCP_TOOL = {
    "name": "lookup",
    "description": "Look a term up in the server's index.",
    "input_schema": {
        "type": "object",
        "properties": {"term": {"type": "string"}},
        "required": ["term"],
        "additionalProperties": False,
    },
    "annotations": {"read_only": True},
}


def _mcp_arguments(fake: Fake) -> str:
    return orjson.dumps({"term": fake.query}).decode()


def mcp_needs_approval(tool: Mapping[str, Any]) -> bool:
    """[OAPI] MCPTool.require_approval: ``"never"`` (or ``{"never": …}`` naming the tool) skips
    the approval; anything else, the default included, asks for it."""
    rule = tool.get("require_approval", "always")
    if rule == "never":
        return False
    if isinstance(rule, Mapping):
        never = rule.get("never")
        names = never.get("tool_names") if isinstance(never, Mapping) else None
        return not (isinstance(names, list) and MCP_TOOL["name"] in names)
    return True


def mcp_unreachable(tool: Mapping[str, Any]) -> bool:
    """A server whose ``server_url`` host is ``unreachable.invalid`` or under it (RFC 2606's
    ``.invalid``: a name that never resolves) cannot be reached, so its tools cannot be listed —
    the mock's way to ask for the failing ``mcp_list_tools`` (other ``.invalid`` hosts, which
    tests use as placeholders, are served as reachable)."""
    url = str(tool.get("server_url") or "")
    host = url.partition("://")[2].partition("/")[0].partition(":")[0].lower()
    return host == "unreachable.invalid" or host.endswith(".unreachable.invalid")


def mcp_list_tools(fake: Fake) -> list[Any]:
    """The server's tool list; ``fail``: the listing fails (``response.mcp_list_tools.failed``,
    the item's ``error`` says why, [OAPI] ``MCPListTools.error``) and the answer says so — no
    call follows."""
    label = str(fake.tool.get("server_label") or "mcp")
    fields: dict[str, Any] = {"server_label": label, "tools": [] if fake.fail else [MCP_TOOL]}
    if fake.fail:
        fields["error"] = f"Error retrieving tool list from MCP server: '{label}'."
    call = HostedToolCall(
        "mcp_list_tools", fields=fields, status="failed" if fake.fail else "completed"
    )
    out = [fake.segment("hosted", label, call=call)]
    if fake.fail:
        out.append(fake.segment("text", f"The {label} server could not be reached: no tools."))
    return out


def mcp_approval_request(fake: Fake) -> list[Any]:
    label = str(fake.tool.get("server_label") or "mcp")
    fields = {"arguments": _mcp_arguments(fake), "name": MCP_TOOL["name"], "server_label": label}
    call = HostedToolCall("mcp_approval_request", fields=fields)
    return [fake.segment("hosted", fields["arguments"], call=call)]


def mcp_call(fake: Fake, approval_request_id: str | None = None) -> list[Any]:
    label = str(fake.tool.get("server_label") or "mcp")
    arguments = _mcp_arguments(fake)
    fields = {
        "approval_request_id": approval_request_id,
        "arguments": arguments,
        # [OAPI] MCPToolCallError: MCPToolExecutionError
        "error": {
            "type": "mcp_tool_execution_error",
            "content": [{"type": "text", "text": "The MCP server returned an error."}],
        }
        if fake.fail
        else None,
        "name": MCP_TOOL["name"],
        "output": None if fake.fail else f"{fake.query}: {prose.sentences(fake.rng, 10)}",
        "server_label": label,
    }
    call = HostedToolCall(
        "mcp_call", fields=fields, status="failed" if fake.fail else "completed",
        stream=_pieces(arguments),
    )  # fmt: skip
    answer = (
        f"The {label} server failed to look up {fake.query}."
        if fake.fail
        else f"The {label} server says: {fields['output']}"
    )
    return [fake.segment("hosted", arguments, call=call), fake.segment("text", answer)]


def _call_id(fake: Fake) -> str:
    return "call_" + _hex(fake, "call", 24)


def shell(fake: Fake) -> list[Any]:
    command = "ls -la"
    fields = {"action": {"commands": [command], "max_output_length": None, "timeout_ms": None},
              "call_id": _call_id(fake)}  # fmt: skip
    call = HostedToolCall("shell_call", fields=fields, stream=_pieces(command))
    return [fake.segment("client_call", command, call=call)]


def local_shell(fake: Fake) -> list[Any]:
    fields = {"action": {"type": "exec", "command": ["ls", "-la"], "env": {}},
              "call_id": _call_id(fake)}  # fmt: skip
    call = HostedToolCall("local_shell_call", fields=fields)
    return [fake.segment("client_call", "ls -la", call=call)]


def apply_patch(fake: Fake) -> list[Any]:
    diff = f"+# Notes\n+\n+- {fake.query}\n"
    fields = {"call_id": _call_id(fake),
              "operation": {"type": "create_file", "diff": diff, "path": "notes.md"}}  # fmt: skip
    call = HostedToolCall("apply_patch_call", fields=fields, stream=_pieces(diff))
    return [fake.segment("client_call", diff, call=call)]


def computer(fake: Fake) -> list[Any]:
    fields = {"call_id": _call_id(fake), "action": {"type": "screenshot"},
              "pending_safety_checks": []}  # fmt: skip
    call = HostedToolCall("computer_call", fields=fields)
    return [fake.segment("client_call", "screenshot", call=call)]


def tool_search_server(fake: Fake, loads: Sequence[Mapping[str, Any]]) -> list[Any]:
    """A server-executed tool search that loads ``loads`` (the declarations of the deferred tools
    the model is about to call): a ``tool_search_call`` whose ``arguments`` name their ``paths``,
    then the ``tool_search_output`` carrying them, both with ``call_id: null`` and ``execution:
    "server"`` ([REC] openai-tool-search.1). A namespace's path is its name."""
    paths = [str(t.get("name")) for t in loads]
    search = HostedToolCall(
        "tool_search_call",
        fields={"arguments": {"paths": paths}, "call_id": None, "execution": "server"},
    )
    output = HostedToolCall(
        "tool_search_output",
        fields={"call_id": None, "execution": "server", "tools": [dict(t) for t in loads]},
    )
    text = " ".join(paths)
    return [fake.segment("hosted", text, call=search), fake.segment("hosted", text, call=output)]


def tool_search_client(fake: Fake) -> list[Any]:
    """A client-executed tool search: a ``tool_search_call`` with a ``call_id`` and ``execution:
    "client"``, its ``arguments`` valid for the tool's ``parameters`` when it declares them, else
    the goal in the user's words ([REC] openai-client-tool-search.1: ``{"goal": …}``). The
    response ends with it; the client answers with a ``tool_search_output``."""
    parameters = fake.tool.get("parameters")
    if isinstance(parameters, Mapping) and parameters.get("properties"):
        arguments: Any = generate(parameters, fake.rng)
    else:
        arguments = {"goal": f"Find a tool to {fake.query}" if fake.query else "Find a tool"}
    fields = {"arguments": arguments, "call_id": _call_id(fake), "execution": "client"}
    call = HostedToolCall("tool_search_call", fields=fields)
    return [fake.segment("client_call", str(arguments), call=call)]


# Request tool type → its fake. MCP is driven by :func:`mock_server.scenarios` (list, approval,
# call), so it is not in this table.
HOSTED_TOOLS: dict[str, HostedTool] = {
    "web_search": web_search,
    "web_search_preview": web_search,
    "web_search_preview_2025_03_11": web_search,
    "web_search_2025_08_26": web_search,
    "file_search": file_search,
    "code_interpreter": code_interpreter,
    "image_generation": image_generation,
    "shell": shell,
    "local_shell": local_shell,
    "apply_patch": apply_patch,
    "computer": computer,
    "computer_use": computer,
    "computer_use_preview": computer,
}
# Kinds whose calls the client runs: the response ends with the call (no answer yet).
CLIENT_EXECUTED = frozenset({"shell", "local_shell", "apply_patch", "computer", "computer_use",
                             "computer_use_preview"})  # fmt: skip


def tool_type_of(choice: Any) -> str | None:
    """The hosted tool type a ``tool_choice`` forces, if any."""
    if isinstance(choice, Mapping):
        kind = choice.get("type")
        if kind in HOSTED_TOOLS or kind == "mcp":
            return str(kind)
    return None


def declared_hosted(request: GenerationRequest) -> list[Mapping[str, Any]]:
    """The request's hosted (and client-executed built-in) tools, in order."""
    return [
        t
        for t in request.body.get("tools") or ()
        if isinstance(t, Mapping) and (t.get("type") in HOSTED_TOOLS or t.get("type") == "mcp")
    ]
