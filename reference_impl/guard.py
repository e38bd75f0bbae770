"""Timeouts for stalled requests: uvicorn's HTTP/1.1 protocol with a head, a body and an idle
keep-alive deadline (issue #39 item 4).

uvicorn (0.55) has only an idle keep-alive timer, armed after a response and cancelled by any
byte: a client that sends half a request head, or a chunked body that never ends, and trickles a
byte now and then, held its connection forever (1,250 such connections all open after 40 s on the
mock and the reference). The guarded protocols add, per request:

- a **head** deadline, from the request's first byte to the end of its head;
- a **body** deadline, from the end of the head to the end of the body;
- the **keep-alive** deadline, also on a fresh connection that has sent nothing yet.

Each deadline is armed once and not moved by later bytes (a trickle does not keep a request
alive). Past the head or body deadline the connection gets 408 in OpenAI's error shape, when no
response has started, and is closed; the app, if it was reading the body, sees
``http.disconnect``. Only the connection is closed: no worker or task waits on it.

Two protocols, one set of deadlines (:class:`_Deadlines`): :class:`GuardedHttpToolsProtocol`
over uvicorn's llhttp protocol (``httptools``, a dependency: 1.46-1.50x the events per server
CPU-second of h11 on the mock, issue #40), the default (:data:`GuardedHttpProtocol`), and
:class:`GuardedH11Protocol` over h11's where httptools is not installed. Each follows the
request's progress as its parser reports it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import h11
import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is a dependency; h11 is the fallback
    HttpToolsProtocol = None  # type: ignore[assignment, misc]

__all__ = [
    "GuardTimeouts",
    "GuardedH11Protocol",
    "GuardedHttpProtocol",
    "GuardedHttpToolsProtocol",
    "request_timeout_body",
]


@dataclass(frozen=True, slots=True)
class GuardTimeouts:
    """Seconds; ``0`` turns the head or body deadline off (``keep_alive`` is always > 0)."""

    head: float = 30.0
    body: float = 30.0
    keep_alive: float = 5.0


def request_timeout_body(part: str, seconds: float) -> bytes:
    """The 408 body: OpenAI's error shape (the wording and code are ours: no recording exists)."""
    message = (
        f"The request {part} was not received within {seconds:g} seconds; the connection is closed."
    )
    error = {"message": message, "type": "invalid_request_error", "param": None,
             "code": "request_timeout"}  # fmt: skip
    return orjson.dumps({"error": error})


class _Deadlines:
    """The head, body and keep-alive deadlines of one connection, for a uvicorn HTTP protocol
    (``self.loop``, ``self.transport``, ``self.cycle``, ``self.config``, ``self.logger``,
    ``self.client``, ``timeout_keep_alive_handler``): the protocol moves ``_phase`` as its
    parser reports the request's progress (:meth:`_track`)."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    config: Any
    logger: Any
    client: Any
    timeout_keep_alive: Any
    timeout_keep_alive_handler: Callable[[], None]  # uvicorn's: close an idle connection

    def _guard_init(self) -> None:
        self.guard: GuardTimeouts = getattr(self.config, "guard", None) or GuardTimeouts()
        # uvicorn's own idle timer, after a response, takes the same (fractional) seconds.
        self.timeout_keep_alive = self.guard.keep_alive
        self._deadline: asyncio.TimerHandle | None = None
        self._phase = "idle"  # idle -> head -> body -> (responding) -> idle

    # ------------------------------------------------------------------ deadlines

    def _arm(self, phase: str, seconds: float) -> None:
        self._disarm()
        self._phase = phase
        if seconds > 0:
            self._deadline = self.loop.call_later(seconds, self._expired, phase, seconds)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self, phase: str, seconds: float) -> None:
        self._deadline = None
        if self.transport is None or self.transport.is_closing():
            return
        if phase == "idle":
            self.timeout_keep_alive_handler()
            return
        cycle = self.cycle if phase == "body" else None
        started = cycle is not None and cycle.response_started
        if cycle is not None:
            # The app reading the body sees the client gone; what it sends is dropped.
            cycle.disconnected = True
            cycle.message_event.set()
        if not started:
            body = request_timeout_body(phase, seconds)
            head = (
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
            )
            self.transport.write(head + body)
        self.logger.info("%s: request %s timed out after %gs", self._peer(), phase, seconds)
        self.transport.close()

    def _peer(self) -> str:
        return f"{self.client[0]}:{self.client[1]}" if self.client else "client"

    def _follow(self, reading: str) -> None:
        """Move from head to body to done as the parser reports the request: ``reading`` is
        ``idle`` (no request, or one whole), ``head`` or ``body``."""
        if self._phase == "upgraded" or self.transport.is_closing():
            return
        if self._phase == "head" and reading != "head":  # head | body | done
            if reading == "body":
                self._arm("body", self.guard.body)
            else:
                self._disarm()
                self._phase = "responding"
        if self._phase == "body" and reading != "body":
            self._disarm()
            self._phase = "responding"


class GuardedH11Protocol(_Deadlines, H11Protocol):
    """``uvicorn.Config(http=GuardedH11Protocol)``; the timeouts are the config's ``guard``
    attribute (a :class:`GuardTimeouts`; absent: the defaults)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._guard_init()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("idle", self.timeout_keep_alive)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._phase == "idle" and self.conn.their_state is h11.IDLE:
            self._arm("head", self.guard.head)  # counted from the request's first byte
        super().data_received(data)
        self._track()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()
        self._phase = "idle"  # uvicorn's keep-alive timer runs now
        if self.conn.their_state is not h11.IDLE:  # a pipelined request already read
            self._phase = "head"
            self._track()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        self._phase = "upgraded"
        super().handle_websocket_upgrade(event)

    def _track(self) -> None:
        state = self.conn.their_state
        self._follow("head" if state is h11.IDLE else "body" if state is h11.SEND_BODY else "done")


if HttpToolsProtocol is not None:

    class GuardedHttpToolsProtocol(_Deadlines, HttpToolsProtocol):
        """``uvicorn.Config(http=GuardedHttpToolsProtocol)``: the same deadlines over uvicorn's
        llhttp protocol, following llhttp's callbacks (a message begun, its head read, whole)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._guard_init()
            self._reading = "done"  # the latest request: head | body | done

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm("idle", self.timeout_keep_alive)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._phase == "idle" and self._reading == "done":
                self._arm("head", self.guard.head)  # counted from the request's first byte
            super().data_received(data)
            self._follow(self._reading)

        def on_message_begin(self) -> None:
            self._reading = "head"
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._reading = "body"
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._reading = "done"
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()
            self._phase = "idle"  # uvicorn's keep-alive timer runs now
            if self.pipeline or self._reading == "body":  # a request's head already read
                self._phase = "head"
                self._follow(self._reading)
            elif self._reading == "head":  # a pipelined request's head, begun
                self._arm("head", self.guard.head)

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            self._phase = "upgraded"
            super().handle_websocket_upgrade()

    GuardedHttpProtocol: type[asyncio.Protocol] = GuardedHttpToolsProtocol
else:  # pragma: no cover - without httptools
    GuardedHttpProtocol = GuardedH11Protocol
