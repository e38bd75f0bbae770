"""WebSocket flow control: what a connection, and the whole server, may hold for clients (issue
#39 item 2; docs/limits.md).

Before, one client that never read grew the mock from 48 to 2,680 MiB (255 creates of 4 MiB
queued on its connection, nothing released after it left), and a never-reading ping flood grew it
by 745 MiB in 20 s: pongs were written into the socket's buffer with no bound. Two bounds now:

- **Input** (:class:`ConnectionBudget`, per connection, within a :class:`ServerBudget` for the
  whole server): the creates a connection has queued or in flight are counted at twice their
  frame's size (its text and its parsed body). While a connection is at its bound, or the server
  at its own, the service reads no further frame from it: uvicorn's WebSocket protocol then stops
  reading the socket, and TCP pushes back on the client. A create's bytes are released when its
  response ends, all of a connection's when it closes.
- **Output** (:class:`FlowWebSocketProtocol`): events, pongs and close frames wait in the socket's
  write buffer only up to its high-water mark (64 KiB): past it the service's sends wait, and the
  protocol stops reading, so a ping flood is pushed back too. A client that reads nothing for
  ``send_timeout`` seconds while the buffer is full is closed (1008, "the client is not reading";
  the frame sits behind what the client has not read, so the socket is reset a second later) and
  everything held for it released.

State a connection keeps for its client (the response cache of WebSocket mode) counts against
the connection's bound through :meth:`ConnectionBudget.keep`; past the bound the connection sheds
its oldest cached responses when they pass half of it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# uvicorn's websockets-sansio protocol, subclassed for its internals (queue, read_paused, conn,
# handle_ping, stop_keepalive): pyproject.toml pins uvicorn to the range
# tests/reference_impl/test_refimpl_limits.py passes on (0.35 and 0.44 fail it).
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

if TYPE_CHECKING:
    from uvicorn._types import ASGIReceiveEvent

__all__ = [
    "DEFAULT_CONNECTION_BYTES",
    "DEFAULT_SEND_TIMEOUT",
    "DEFAULT_SERVER_BYTES",
    "ConnectionBudget",
    "FlowSettings",
    "FlowWebSocketProtocol",
    "ServerBudget",
]

log = logging.getLogger(__name__)

DEFAULT_CONNECTION_BYTES = 64 * 1024 * 1024
DEFAULT_SERVER_BYTES = 512 * 1024 * 1024
DEFAULT_SEND_TIMEOUT = 30.0
_RESET_AFTER = 1.0  # seconds a close frame gets to leave a full buffer before the socket is reset


class ServerBudget:
    """Bytes all WebSocket connections of one server hold for their clients."""

    def __init__(self, limit: int = DEFAULT_SERVER_BYTES) -> None:
        self.limit = limit
        self.used = 0
        self._freed: asyncio.Event | None = None

    def freed(self) -> asyncio.Event:
        """Set at the next release anywhere in the server."""
        if self._freed is None:
            self._freed = asyncio.Event()
        return self._freed

    def _release(self, size: int) -> None:
        self.used -= size
        if self._freed is not None:
            self._freed.set()
            self._freed = None


class ConnectionBudget:
    """Bytes one connection holds, within its own limit and its server's.

    Two kinds: what is *in flight* (queued creates, :meth:`charge` / :meth:`release`) counts
    against both bounds; what is *kept* while the connection lives (its response cache,
    :meth:`keep`) counts against the connection's bound only: idle connections' caches must not
    stop the server reading from the others. The connection sheds kept state past half its
    bound (:meth:`kept_over`)."""

    def __init__(self, server: ServerBudget, limit: int = DEFAULT_CONNECTION_BYTES) -> None:
        self.server = server
        self.limit = limit
        self.used = 0  # in flight and kept
        self.kept = 0

    def full(self) -> bool:
        """At its bound or the server at its own: take nothing more in."""
        return self.used >= self.limit or self.server.used >= self.server.limit

    def kept_over(self) -> int:
        """Bytes the kept state is past half the connection's bound (0 within it): the other
        half stays free for creates, so a full cache never stops the connection reading."""
        return max(0, self.kept - self.limit // 2)

    def charge(self, size: int) -> None:
        """Count ``size`` bytes in flight (one frame may go past the bound: it is already read)."""
        self.used += size
        self.server.used += size

    def release(self, size: int) -> None:
        size = min(size, self.used - self.kept)
        self.used -= size
        self.server._release(size)

    def keep(self, size: int) -> None:
        """The kept state is now ``size`` bytes."""
        self.used += size - self.kept
        self.kept = size
        if self.used < self.limit:
            self.server._release(0)  # wake a reader waiting on this connection's bound

    def close(self) -> None:
        """The connection is gone: release all it held."""
        self.release(self.used - self.kept)
        self.used = self.kept = 0

    async def room(self) -> None:
        """Wait until this connection may take in more."""
        while self.full():
            await self.server.freed().wait()


@dataclass(frozen=True, slots=True)
class FlowSettings:
    """``uvicorn.Config``'s ``flow`` attribute, read by :class:`FlowWebSocketProtocol`."""

    send_timeout: float = DEFAULT_SEND_TIMEOUT  # 0: never close a client that does not read


class FlowWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, sans-I/O) that stops reading while its write
    buffer is full and closes a client that reads nothing for ``send_timeout`` seconds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flow: FlowSettings = getattr(self.config, "flow", None) or FlowSettings()
        self._held_back = False  # reading stopped because the client does not read
        self._stall: asyncio.TimerHandle | None = None
        self._pongs_due = False

    def pause_writing(self) -> None:
        super().pause_writing()
        if not self._held_back and not self.transport.is_closing():
            self._held_back = True
            self.transport.pause_reading()
        if self._stall is None and self.flow.send_timeout > 0:
            self._stall = self.loop.call_later(self.flow.send_timeout, self._stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        if self._held_back:
            self._held_back = False
            if not self.read_paused and not self.transport.is_closing():
                self.transport.resume_reading()

    def handle_ping(self) -> None:
        # uvicorn writes each pong at once, one system call per ping: a flood of small pings
        # then starved the connection's own responses. The pongs of one read go out together.
        self._pongs_due = True

    def data_received(self, data: bytes) -> None:
        self._pongs_due = False
        super().data_received(data)
        if self._pongs_due and not self.transport.is_closing():
            self.transport.write(b"".join(self.conn.data_to_send()))

    async def receive(self) -> ASGIReceiveEvent:
        message = await self.queue.get()
        if self.read_paused and self.queue.empty():
            self.read_paused = False
            if not self._held_back:
                self.transport.resume_reading()
        return message

    def connection_lost(self, exc: Exception | None) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().connection_lost(exc)

    def _stalled(self) -> None:
        self._stall = None
        if self.transport.is_closing() or self.close_sent or not self.handshake_complete:
            self.transport.abort()
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "client"
        log.warning(
            "%s: WebSocket closed (1008): the client read nothing for %gs",
            client,
            self.flow.send_timeout,
        )
        self.stop_keepalive()
        self.conn.fail(1008, "the client is not reading")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": 1008})
        self.writable.set()  # the app's waiting sends fail now (disconnected below)
        self.disconnected = True
        self.transport.close()
        self._stall = self.loop.call_later(_RESET_AFTER, self.transport.abort)
