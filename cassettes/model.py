"""What a cassette holds: exchanges of bytes, headers and timings (no protocol).

An :class:`Exchange` is one HTTP request and its response as it arrived (the body as the chunks
that came, each with its arrival time), or one WebSocket connection (its frames both ways, each
with its time). Times are seconds since the request started.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl

__all__ = ["FORMAT", "Chunk", "Exchange", "Frame", "Headers"]

FORMAT = "responses-cassette/1"
"""The ``format`` of the first line of every exchange file (docs/cassettes.md)."""

Headers = list[tuple[str, str]]
"""Header pairs in the order they were sent, names lower-cased, repeats kept."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """Response-body bytes as they arrived, ``t`` seconds after the request started."""

    t: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Frame:
    """One WebSocket message (``opcode`` ``text`` or ``binary``) or the close (``close``, its
    ``data`` the close code as text), sent by ``sender``, ``t`` seconds after the connection
    began."""

    t: float
    sender: Literal["client", "server"]
    data: bytes
    opcode: Literal["text", "binary", "close"] = "text"


@dataclass(slots=True)
class Exchange:
    """One recorded exchange; ``seq`` orders them in their cassette (the order requests began)."""

    seq: int
    method: str
    target: str
    """The request target as sent: path and query (``/v1/responses/resp_1?stream=true``)."""
    request_headers: Headers = field(default_factory=list)
    request_body: bytes = b""
    status: int | None = None
    """The response status; None when no response head came (the connection failed)."""
    response_headers: Headers = field(default_factory=list)
    response_t: float = 0.0
    """When the response head arrived."""
    chunks: list[Chunk] = field(default_factory=list)
    websocket: bool = False
    frames: list[Frame] = field(default_factory=list)
    outcome: str = "complete"
    """``complete``, ``disconnected`` (the client went away), ``truncated`` (over the writer's
    size cap) or ``error: <one line>`` (the response broke off)."""
    end_t: float = 0.0
    at: float | None = None
    """Unix time the request started (None when unknown, as in imported cassettes)."""
    source: str = ""
    """Where the exchange was read from (``file`` or ``file#N`` for an imported interaction)."""

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    @property
    def query(self) -> str:
        return self.target.partition("?")[2]

    @property
    def query_params(self) -> list[tuple[str, str]]:
        return parse_qsl(self.query, keep_blank_values=True)

    @property
    def body(self) -> bytes:
        """The response body: every chunk, joined."""
        return b"".join(c.data for c in self.chunks)

    def header(self, name: str, *, response: bool = True) -> str | None:
        """The first value of header ``name`` (any case) of the response (or the request)."""
        name = name.lower()
        pairs = self.response_headers if response else self.request_headers
        return next((v for k, v in pairs if k == name), None)

    @property
    def is_sse(self) -> bool:
        content_type = self.header("content-type") or ""
        return content_type.split(";")[0].strip().lower() == "text/event-stream"

    @property
    def label(self) -> str:
        """``#SEQ METHOD TARGET`` (WS for a WebSocket), for messages."""
        return f"#{self.seq} {'WS' if self.websocket else self.method} {self.target}"
