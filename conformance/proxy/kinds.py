"""What a request through the proxy is: its kind (how reports group exchanges) and the context the
judge needs to read its answer (a resumed stream's ``starting_after``, ``max_output_tokens``, the
tools that take a case out of the ``openresponses`` profile).

Paths are relative to the base URL (``/responses``, not ``/v1/responses``), as the suite's are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

__all__ = ["RequestInfo", "classify", "websocket_info"]

_ID = r"[^/]+"
# (method, path pattern, kind); the first match wins, so fixed segments come before ids.
_ROUTES: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (method, re.compile(f"^{pattern}/?$"), kind)
    for method, pattern, kind in (
        ("POST", "/responses", "responses.create"),
        ("POST", "/responses/compact", "responses.compact"),
        ("POST", "/responses/input_tokens", "responses.input_tokens"),
        ("GET", f"/responses/{_ID}/input_items", "responses.input_items"),
        ("POST", f"/responses/{_ID}/cancel", "responses.cancel"),
        ("GET", f"/responses/{_ID}", "responses.retrieve"),
        ("DELETE", f"/responses/{_ID}", "responses.delete"),
        ("POST", "/conversations", "conversations.create"),
        ("GET", f"/conversations/{_ID}/items", "conversations.items.list"),
        ("POST", f"/conversations/{_ID}/items", "conversations.items.create"),
        ("GET", f"/conversations/{_ID}/items/{_ID}", "conversations.items.retrieve"),
        ("DELETE", f"/conversations/{_ID}/items/{_ID}", "conversations.items.delete"),
        ("GET", f"/conversations/{_ID}", "conversations.retrieve"),
        ("POST", f"/conversations/{_ID}", "conversations.update"),
        ("DELETE", f"/conversations/{_ID}", "conversations.delete"),
    )
)
# Tools whose events Open Responses does not define (docs/spec.md §7.10): a request using one is
# judged without the `openresponses` profile, as the suite judges its custom / hosted cases.
_HOSTED = frozenset(
    {"web_search", "web_search_preview", "file_search", "code_interpreter", "image_generation",
     "mcp", "tool_search"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """One request as the judge reads it."""

    method: str
    path: str  # relative to the base URL, without the query
    query: str
    kind: str  # e.g. responses.create; `other` for a path outside the Responses surface
    body: Any  # the parsed JSON body, or None
    stream_asked: bool  # `stream: true` in a create, `?stream=true` on a retrieve
    resume_after: int | None  # `starting_after` of a resumed stream
    max_output_tokens: int | None
    case_profiles: tuple[str, ...]  # the profiles its features belong to (for judged_profiles)
    response_id: str | None  # the response a retrieve / cancel / delete names

    @property
    def optional(self) -> bool:
        """An endpoint a server need not offer: its 404 / 405 is not judged (as in the suite)."""
        return self.kind == "responses.input_tokens"

    @property
    def shown(self) -> str:
        return self.path + (f"?{self.query}" if self.query else "")

    @property
    def group(self) -> str:
        """The report's case for this request: the kind, and whether a stream was asked."""
        return f"proxy/{self.kind}" + (".stream" if self.stream_asked else "")


def classify(method: str, path: str, query: str, body: Any) -> RequestInfo:
    method = method.upper()
    kind = "other"
    for route_method, pattern, route_kind in _ROUTES:
        if route_method == method and pattern.match(path):
            kind = route_kind
            break
    params = parse_qs(query, keep_blank_values=True)
    fields: Mapping[str, Any] = body if isinstance(body, dict) else {}
    stream_asked = False
    resume_after: int | None = None
    if kind == "responses.create":
        stream_asked = fields.get("stream") is True
    elif kind == "responses.retrieve":
        stream_asked = params.get("stream", [""])[-1].lower() == "true"
        after = params.get("starting_after", [""])[-1]
        if stream_asked and after.lstrip("-").isdigit():
            resume_after = int(after)
    limit = fields.get("max_output_tokens")
    response_id = None
    if kind in ("responses.retrieve", "responses.cancel", "responses.delete"):
        response_id = path.strip("/").split("/")[1]
    return RequestInfo(
        method=method,
        path=path,
        query=query,
        kind=kind,
        body=body,
        stream_asked=stream_asked,
        resume_after=resume_after,
        max_output_tokens=limit if type(limit) is int else None,
        case_profiles=_feature_profiles(fields),
        response_id=response_id,
    )


def _feature_profiles(fields: Mapping[str, Any]) -> tuple[str, ...]:
    tools = fields.get("tools")
    out: list[str] = []
    if isinstance(tools, list):
        for tool in tools:
            kind = tool.get("type") if isinstance(tool, dict) else None
            if kind == "custom":
                out.append("custom-tools")
            elif isinstance(kind, str) and kind in _HOSTED:
                out.append(f"hosted:{kind}")
    return tuple(dict.fromkeys(out))


def websocket_info(path: str, query: str) -> RequestInfo:
    """A WebSocket session (``GET /responses`` upgraded, docs/websocket.md)."""
    kind = "responses.websocket" if path.rstrip("/") == "/responses" else "other"
    return RequestInfo("GET", path, query, kind, None, False, None, None, (), None)
