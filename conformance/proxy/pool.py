"""The proxy's connections to the upstream: asyncio protocols kept alive between exchanges.

:meth:`UpstreamConnection.send` writes one request and waits for the answer's head (interim
``1xx`` answers skipped); after that every byte read goes straight to the exchange's ``sink``
(:class:`~conformance.proxy.exchange.RelayedExchange`): no buffering, no copy.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Any, Protocol

from .http1 import FramingError, ResponseHead, parse_response_head

__all__ = ["UpstreamConnection", "UpstreamPool"]

MAX_IDLE = 64


class Sink(Protocol):
    def on_data(self, data: bytes) -> None: ...
    def on_eof(self, exc: Exception | None) -> None: ...


class UpstreamConnection(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[ResponseHead] | None = None
        self.sink: Sink | None = None
        self.closed = False
        self.reused = False
        self.answered = False  # bytes came back for the current request
        self.reusable = False
        self.state = "idle"  # idle | head (a request sent) | body (its head read)
        self.lost: tuple[Exception | None] | None = None  # connection_lost before attach

    # ---------------------------------------------------------------- asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        sink = self.sink
        if sink is not None:
            sink.on_data(data)
            return
        if self.state == "body":  # the body's first bytes, before the exchange attached
            self.buffer += data
            if len(self.buffer) > 1024 * 1024:
                self.pause_reading()
            return
        waiter = self.waiter
        if waiter is None or waiter.done():
            self.abort()  # bytes nobody asked for: this connection cannot be trusted again
            return
        self.answered = True
        self.buffer += data
        while True:
            try:
                found = parse_response_head(self.buffer)
            except FramingError as exc:
                waiter.set_exception(exc)
                self.abort()
                return
            if found is None:
                return
            head, length = found
            del self.buffer[:length]
            if 100 <= head.status < 200 and head.status != 101:
                continue  # an interim answer (100 Continue, 103 Early Hints)
            self.state = "body"
            waiter.set_result(head)
            return

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc or ConnectionResetError("the upstream closed the connection"))
        if self.sink is not None:
            self.sink.on_eof(exc)
        elif self.state == "body":
            self.lost = (exc,)

    def attach(self, sink: Sink) -> None:
        """The exchange reads the body from here on: the bytes that came before it first."""
        self.sink = sink
        early, lost = bytes(self.buffer), self.lost
        self.buffer.clear()
        self.lost = None
        if early:
            sink.on_data(early)
            self.resume_reading()
        if lost is not None and self.sink is sink:
            sink.on_eof(lost[0])

    # ---------------------------------------------------------------- use

    async def send(self, request: bytes) -> ResponseHead:
        assert self.transport is not None
        if self.closed or self.transport.is_closing():
            raise ConnectionResetError("the upstream closed the connection")
        self.answered = False
        self.state = "head"
        self.buffer.clear()
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        try:
            return await self.waiter
        finally:
            self.waiter = None

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def pause_reading(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.pause_reading()

    def resume_reading(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.resume_reading()


class UpstreamPool:
    def __init__(
        self, host: str, port: int, context: ssl.SSLContext | None, *, connect_timeout: float
    ) -> None:
        self.host = host
        self.port = port
        self.context = context
        self.connect_timeout = connect_timeout
        self._idle: list[UpstreamConnection] = []

    async def acquire(self) -> UpstreamConnection:
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed and conn.transport is not None and not conn.transport.is_closing():
                conn.reused = True
                return conn
        loop = asyncio.get_running_loop()
        extra: dict[str, Any] = {}
        if self.context is not None:
            extra = {"ssl": self.context, "server_hostname": self.host}
        _, conn = await asyncio.wait_for(
            loop.create_connection(UpstreamConnection, self.host, self.port, **extra),
            self.connect_timeout,
        )
        return conn

    def release(self, conn: UpstreamConnection) -> None:
        conn.sink = None
        if conn.closed or not conn.reusable or len(self._idle) >= MAX_IDLE:
            conn.abort()
            return
        conn.reused = False
        conn.state = "idle"
        self._idle.append(conn)

    def close(self) -> None:
        for conn in self._idle:
            conn.abort()
        self._idle.clear()
