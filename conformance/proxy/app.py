"""The proxy's shared state and its ASGI side: settings, the ledger, the recorder, the streams
being read (for a cancel through the proxy), and what a forwarded request's headers become.

HTTP goes through :mod:`conformance.proxy.transport` (a byte-forwarding asyncio transport: each
chunk is written to the client, then fed to :class:`~conformance.proxy.judge.ExchangeJudge`); an
upgraded ``GET /v1/responses`` (WebSocket mode, docs/websocket.md) is handed to uvicorn's WebSocket
protocol serving this ASGI app, which opens the upstream socket first and passes frames both ways,
each judged by a :class:`~conformance.websocket.SessionValidator` (:mod:`.websocket`).

- Paths: ``/v1/<path>`` on the proxy is ``UPSTREAM/<path>`` (the upstream URL ends in ``/v1``);
  the query string passes as it is.
- Requests: method, body and headers unchanged, but for the hop-by-hop headers (RFC 9110 §7.6.1)
  and ``Host``; ``Accept-Encoding`` keeps only the codings the judge can decode (gzip, deflate,
  identity), because it must read what it forwards.

Secrets in request headers (``Authorization``, ``api-key``, ``Cookie``…) are forwarded and added
to the ledger's redactor; the judge's evidence never holds headers.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from starlette.types import Receive, Scope, Send

from ..suite.coding import ContentDecoder, UndecodableBody
from .judge import ExchangeJudge
from .ledger import Ledger
from .record import Recorder
from .websocket import forward_websocket

__all__ = [
    "MAX_REQUEST_BYTES",
    "PREFIX",
    "ProxyApp",
    "ProxySettings",
    "describe",
    "stream_decoder",
]

PREFIX = "/v1"
MAX_REQUEST_BYTES = 64 * 1024 * 1024
_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te", b"trailer",
     b"upgrade", b"proxy-authenticate", b"proxy-authorization", b"host", b"content-length"}
)  # fmt: skip
_SECRET_HEADERS = frozenset(
    {b"authorization", b"api-key", b"x-api-key", b"cookie", b"openai-api-key", b"x-goog-api-key"}
)
_CODINGS = frozenset({"gzip", "deflate", "identity", "x-gzip"})


@dataclass(frozen=True, slots=True)
class ProxySettings:
    upstream: str  # base URL, ending in /v1
    profiles: frozenset[str]
    timeout: float = 300.0  # the longest wait for the upstream's next bytes
    max_events: int = 20_000
    max_body_bytes: int = 16 * 1024 * 1024
    # Stalled clients (docs/limits.md): seconds from a request's first byte to its head's end,
    # from there to its body's end, and of an idle connection; 0 turns head or body off.
    head_timeout: float = 30.0
    body_timeout: float = 30.0
    keep_alive_timeout: float = 5.0
    drain_timeout: float = 30.0  # SIGTERM / SIGINT: the relay ends within it
    ws_send_timeout: float = 30.0  # a WebSocket client reading nothing while output waits; 0: off


class ProxyApp:
    def __init__(
        self, settings: ProxySettings, ledger: Ledger, *, recorder: Recorder | None = None
    ) -> None:
        self.settings = settings
        self.ledger = ledger
        self.recorder = recorder
        if recorder is not None:
            recorder.redactor = ledger.redactor
        self.upstream = settings.upstream.rstrip("/")
        self.open: dict[str, ExchangeJudge] = {}  # response id -> the stream being read
        self._tasks: set[asyncio.Task[Any]] = set()  # open exchanges
        self._closing = False

    @property
    def closing(self) -> bool:
        """The proxy is shutting down: what it cuts now is its own doing."""
        return self._closing

    def tasks(self) -> set[asyncio.Task[Any]]:
        """The WebSocket sessions open now."""
        return set(self._tasks)

    def close_exchanges(self) -> None:
        """Shutting down (SIGINT / SIGTERM): end every open exchange now, each recorded as cut
        by the proxy (not the upstream's fault), rather than leave them to the server's
        graceful-shutdown timeout, which would cancel them from outside."""
        self._closing = True
        for task in list(self._tasks):
            task.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":  # HTTP is the transport's (conformance/proxy/transport.py)
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await forward_websocket(self, scope, receive, send)
        except asyncio.CancelledError:
            if not self._closing:
                raise
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1012})  # service restart
        except Exception as exc:  # a defect of the proxy: one line, and the socket closed
            self.ledger.console.line(f"proxy error: {describe(exc)}")
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1011})
        finally:
            if task is not None:
                self._tasks.discard(task)

    # ------------------------------------------------------------------ requests

    def relative(self, path: str) -> str | None:
        if path == PREFIX or path.startswith(PREFIX + "/"):
            return path[len(PREFIX) :] or "/"
        return None

    def forwarded_headers(self, raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        headers = []
        for name, value in raw:
            lower = name.lower()
            if lower in _HOP:
                continue
            if lower in _SECRET_HEADERS:
                self._note_secret(lower, value)
            if lower == b"accept-encoding":
                value = _decodable(value)
            headers.append((name, value))
        return headers

    def _note_secret(self, name: bytes, value: bytes) -> None:
        text = value.decode("latin-1").strip()
        if name == b"cookie":
            for part in text.split(";"):
                _, _, cookie = part.partition("=")
                self.ledger.redactor.add(cookie.strip() or None)
            return
        scheme, _, token = text.partition(" ")
        self.ledger.redactor.add(token.strip() if token.strip() else scheme)


# ---------------------------------------------------------------------- helpers


def _decodable(value: bytes) -> bytes:
    codings = [c.strip() for c in value.decode("latin-1").split(",") if c.strip()]
    kept = [c for c in codings if c.split(";", 1)[0].strip().lower() in _CODINGS]
    return ", ".join(kept).encode("latin-1") if kept else b"identity"


def stream_decoder(encoding: str) -> ContentDecoder:
    """The decoder of the judge's copy of the upstream's body (the client gets the bytes as they
    came): gzip and deflate a bounded piece at a time (:mod:`conformance.suite.coding`; no piece
    over 1 MiB, so the judge's caps hold on what a compressed body expands to). A coding it does
    not decode was not asked for (``Accept-Encoding`` is narrowed to gzip and deflate): the judge
    sees those bytes as they are, and fails them."""
    try:
        return ContentDecoder(encoding)
    except UndecodableBody:
        return ContentDecoder(None)


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
