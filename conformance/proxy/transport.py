"""The proxy's HTTP transport, its client side: the asyncio protocol of one client connection —
requests read one at a time (heads and bodies by :mod:`conformance.proxy.http1`), the head, body
and keep-alive deadlines, a WebSocket upgrade handed on — each request forwarded by a
:class:`~conformance.proxy.exchange.RelayedExchange`, which relays the upstream's bytes to the
client as they arrive and hands the same bytes to the judge after each write.

An answer's body is not re-framed: a chunked or length-delimited stream goes to an HTTP/1.1
client byte for byte as the upstream sent it (:class:`~conformance.proxy.http1.BodyReader` finds
its end and takes the framing off for the judge and the cassette); a close-delimited one, or any
stream to an HTTP/1.0 client, is sent as its body bytes and the connection closed after it. No
per-request HTTP client or ASGI layer sits on the hot path: one ``data_received`` from the upstream
is one ``write`` to the client, then one ``feed`` of the judge.

- Back-pressure: a client that reads slower than the upstream sends pauses the upstream socket
  (``pause_writing`` → ``pause_reading``), so a stream never piles up in the proxy.
- Upstream connections are kept alive and reused (a stale one that closes before answering is
  retried once on a fresh connection).
- WebSocket upgrades are handed, with the bytes read so far, to uvicorn's WebSocket protocol
  serving :class:`~conformance.proxy.app.ProxyApp` (:mod:`conformance.proxy.websocket`).
- Bad bytes from either side — a malformed request, a head over 64 KiB, a body over the cap, an
  upstream that is not HTTP/1.1 — end in a one-line reason: OpenAI's error shape to the client
  (``400``/``413``/``502``/``504``), a failed exchange in the report; never a traceback or a hang.
  A framing violation (docs/spec.md §4.8) names its check: in the 400 to a client, as the
  upstream's violation in the exchange's verdict.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from .app import MAX_REQUEST_BYTES, describe
from .exchange import RelayedExchange
from .http1 import (
    BodyReader,
    FramingError,
    RequestHead,
    body_framing,
    error_bytes,
    parse_request_head,
)

if TYPE_CHECKING:
    from .server import ProxyServer

__all__ = ["ClientConnection"]


class ClientConnection(asyncio.Protocol):
    """One client's connection: requests read one at a time, each forwarded by a task."""

    def __init__(self, server: ProxyServer) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.head: RequestHead | None = None  # a request whose body is being read
        self.reader: BodyReader | None = None
        self.body = bytearray()
        self.exchange: RelayedExchange | None = None
        self.gone = False
        self.paused = False
        self.refused = False
        self._deadline: asyncio.TimerHandle | None = None
        self._phase = "idle"  # idle -> head -> body -> exchange -> idle (docs/limits.md)

    # ---------------------------------------------------------------- deadlines

    def _arm(self, phase: str, seconds: float) -> None:
        """Set the deadline of ``phase`` once: later bytes do not move it (a trickle does not
        keep a stalled request alive); ``0`` seconds turns it off."""
        self._disarm()
        self._phase = phase
        if seconds > 0:
            loop = asyncio.get_running_loop()
            self._deadline = loop.call_later(seconds, self._expired, phase, seconds)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self, phase: str, seconds: float) -> None:
        """A stalled connection: closed, idle without a word, mid-request with a 408."""
        self._deadline = None
        if self.gone or self.refused or self.transport is None:
            return
        if phase == "idle":
            self.close()
            return
        self.head, self.reader, self.body = None, None, bytearray()
        message = f"the request {phase} was not received within {seconds:g} s"
        self._refuse(408, f"{message}; the connection is closed", "request_timeout")

    def _track(self) -> None:
        """Move the deadline as the request progresses: head (from its first byte), body (from
        the head's end), none while an exchange runs."""
        if self._phase == "upgraded" or self.gone:
            return
        if self.exchange is not None or self.refused:
            if self._phase != "exchange":
                self._disarm()
                self._phase = "exchange"
            return
        settings = self.server.app.settings
        if self.head is not None:
            if self._phase != "body":
                self._arm("body", settings.body_timeout)
        elif self.buffer:
            if self._phase != "head":
                self._arm("head", settings.head_timeout)
        elif self._phase != "idle":
            self._arm("idle", settings.keep_alive_timeout)

    # ---------------------------------------------------------------- asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        self.server.connections.add(self)
        self._arm("idle", self.server.app.settings.keep_alive_timeout)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # the rest of a request already answered with an error
        if self._phase == "idle" and self.exchange is None:
            self._arm("head", self.server.app.settings.head_timeout)  # from the first byte
        self.buffer += data
        if self.exchange is None:
            self._next()
        elif len(self.buffer) > 1024 * 1024:  # a pipelining client: wait for this answer
            self.transport.pause_reading()  # type: ignore[union-attr]

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self._disarm()
        self.server.connections.discard(self)
        if self.exchange is not None:
            self.exchange.client_gone()

    def pause_writing(self) -> None:
        self.paused = True
        if self.exchange is not None:
            self.exchange.pause()

    def resume_writing(self) -> None:
        self.paused = False
        if self.exchange is not None:
            self.exchange.resume()

    # ---------------------------------------------------------------- requests

    def write(self, data: bytes) -> None:
        if not self.gone and self.transport is not None:
            self.transport.write(data)

    def close(self) -> None:
        if self.transport is not None and not self.gone:
            self.transport.close()

    def _refuse(self, status: int, message: str, code: str) -> None:
        """Answer bytes that are not a request, then close: our side first (the client reads
        the answer to its end), the connection once it has closed its side or in 5 s — closing
        with its unread bytes at once would reset the connection under the answer."""
        self.refused = True
        self.buffer.clear()
        self.write(error_bytes(status, message, code, close=True))
        transport = self.transport
        if transport is None or self.gone:
            return
        if transport.can_write_eof():
            transport.write_eof()
            asyncio.get_running_loop().call_later(5.0, self.close)
        else:
            self.close()

    def _next(self) -> None:
        self._read_request()
        self._track()

    def _read_request(self) -> None:
        try:
            if self.head is None:
                found = parse_request_head(self.buffer)
                if found is None:
                    return
                head, length = found
                del self.buffer[:length]
                if head.websocket:
                    self._upgrade(head)
                    return
                kind, size = body_framing(head.headers, request=True)
                if kind == "length" and size > MAX_REQUEST_BYTES:
                    self._refuse(413, f"request body over {MAX_REQUEST_BYTES} bytes", "too_large")
                    return
                self.head, self.reader, self.body = head, BodyReader(kind, size), bytearray()
            assert self.reader is not None
            if self.buffer:
                data = bytes(self.buffer)
                self.buffer.clear()
                self.body += self.reader.feed(data)
                self.buffer += self.reader.rest
                self.reader.rest = b""
            if len(self.body) > MAX_REQUEST_BYTES:
                self._refuse(413, f"request body over {MAX_REQUEST_BYTES} bytes", "too_large")
                return
        except FramingError as exc:  # the client's bytes: refused, never forwarded (§4.8)
            why = f"{exc} ({exc.check})" if exc.check else str(exc)
            self._refuse(400, f"the proxy could not read the request: {why}", "bad_request")
            return
        if not self.reader.done:
            return
        head, body = self.head, bytes(self.body)
        self.head, self.reader, self.body = None, None, bytearray()
        exchange = RelayedExchange(self, head)
        self.exchange = exchange
        task = asyncio.ensure_future(exchange.run(body))
        self.server.exchanges[task] = exchange
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.server.exchanges.pop(task, None)
        exchange, self.exchange = self.exchange, None
        if task.cancelled() or task.exception() is not None:
            error = None if task.cancelled() else task.exception()
            if error is not None:
                self.server.app.ledger.console.line(f"proxy error: {describe(error)}")
            self.close()
            return
        if self.gone or exchange is None or not exchange.keep_alive or self.server.closing:
            self.close()
            return
        if self.transport is not None:
            self.transport.resume_reading()
        if self.buffer:
            self._next()
        else:
            self._track()  # the keep-alive deadline

    def _upgrade(self, head: RequestHead) -> None:
        """Hand the connection to uvicorn's WebSocket protocol, with the bytes read so far."""
        self._disarm()
        self._phase = "upgraded"  # uvicorn's WebSocket protocol has the connection now
        config, state = self.server.websocket()
        protocol = config.ws_protocol_class(config=config, server_state=state, app_state={})
        protocol.send_timeout = self.server.app.settings.ws_send_timeout
        self.server.connections.discard(self)
        transport, rest = self.transport, bytes(self.buffer)
        self.buffer.clear()
        assert transport is not None
        protocol.connection_made(transport)
        protocol.data_received(head.raw + rest)
        transport.set_protocol(protocol)
