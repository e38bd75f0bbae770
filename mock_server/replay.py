"""``responses-mock --replay DIR``: serve a cassette's recorded exchanges (docs/cassettes.md).

:class:`ReplayApp` stands where the reference app stands inside the mock's middleware, so faults
(``--fault``, ``x-mock-fault``: statuses, ``slow``, ``drop``) are still injected on top of the
recording. Each request is matched (:mod:`mock_server.replay_match`) and answered with the recorded
status, headers and body chunks, paced as recorded, scaled, or not at all; a recording that broke
off (outcome ``error: ...``, ``truncated``) breaks off again (the connection is cut after its last
chunk). An unmatched request gets OpenAI's error shape, 400 ``no_recorded_exchange``, naming the
closest recording and what differed (``strict``), or goes to the mock engine (``fallback``).

WebSocket connections are replayed frame by frame: each client message is compared with the next
one recorded (as JSON, ignored fields left out) and answered with the server frames recorded after
it; an unexpected message gets an ``error`` event and the connection is closed (1008).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from cassettes import REDACTED, CassetteError, Exchange, read_cassette
from mock_server.middleware import DroppedConnection, replayed
from mock_server.replay_match import DEFAULT_IGNORE, KEY_PARTS, Matcher, Miss, request_key
from reference_impl.json_limits import JSONTooDeep, check_depth

__all__ = ["NO_MATCH_CODE", "ReplayApp", "ReplaySettings", "parse_timing", "replay_exchanges"]


NO_MATCH_CODE = "no_recorded_exchange"
_HOP = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding", "date"}
)


def parse_timing(text: str) -> float:
    """``recorded`` (1.0), ``zero`` (0.0) or a factor >= 0 the recorded times are multiplied by."""
    if text == "recorded":
        return 1.0
    if text == "zero":
        return 0.0
    try:
        factor = float(text)
    except ValueError:
        factor = -1.0
    if not 0.0 <= factor < float("inf"):
        raise ValueError(f"expected recorded, zero or a factor >= 0, got {text!r}")
    return factor


@dataclass(frozen=True, slots=True)
class ReplaySettings:
    cassette: str
    """A cassette folder, exchange file or vcrpy cassette."""
    mode: Literal["strict", "fallback"] = "strict"
    timing: float = 1.0
    """Recorded times multiplied by this (1: as recorded, 0: no pauses)."""
    match: tuple[str, ...] = KEY_PARTS
    ignore: tuple[str, ...] = DEFAULT_IGNORE


def replay_exchanges(settings: ReplaySettings) -> list[Exchange]:
    """The exchanges ``settings`` replays; :class:`~cassettes.CassetteError` (one line) when the
    cassette cannot be read, or when a strict replay would have nothing to serve: with no
    exchange every request is a 400, which reads as a replay of something but replays nothing
    (a folder not recorded into yet, a VCR file with ``interactions: []``)."""
    exchanges = read_cassette(settings.cassette)
    for exchange in exchanges:  # what a client sent is JSON the server reads: the same bound
        sent = [f.data for f in exchange.frames if f.sender == "client" and f.opcode == "text"]
        for data in (exchange.request_body, *sent):
            try:
                check_depth(data)
            except JSONTooDeep as error:
                raise CassetteError(f"{settings.cassette}: {exchange.label}: {error}") from None
    if not exchanges and settings.mode == "strict":
        raise CassetteError(
            f"{settings.cassette}: no recorded exchanges; a strict replay would refuse every "
            "request (record into it first, or replay it in fallback mode)"
        )
    return exchanges


class ReplayApp:
    """Answers requests from a cassette; ``fallback`` (the mock's engine) serves the unmatched
    ones in ``fallback`` mode."""

    def __init__(self, settings: ReplaySettings, fallback: ASGIApp) -> None:
        self.settings = settings
        self.fallback = fallback
        self.exchanges = replay_exchanges(settings)
        self.matcher = Matcher(self.exchanges, parts=settings.match, ignore=settings.ignore)
        self.sockets = [e for e in self.exchanges if e.websocket]
        self._next_socket = 0

    def rewind(self) -> None:
        self.matcher.rewind()
        self._next_socket = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket" and (self.sockets or self.settings.mode == "strict"):
            await self._websocket(scope, receive, send)
        else:
            await self.fallback(scope, receive, send)

    async def _pause(self, until: float, start: float) -> None:
        if self.settings.timing > 0:
            delay = until * self.settings.timing - (time.monotonic() - start)
            if delay > 0:
                await anyio.sleep(delay)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _body(receive)
        try:
            check_depth(body, "The request body")
        except JSONTooDeep as error:
            await _send_error(send, 400, str(error), "json_too_deep")
            return
        query = scope.get("query_string", b"").decode("latin-1")
        found = self.matcher.match(scope["method"], scope["path"], query, body)
        if isinstance(found, Miss):
            if self.settings.mode == "fallback":
                await self.fallback(scope, replayed(body, receive), send)
                return
            target = scope["path"] + (f"?{query}" if query else "")
            await _send_error(send, 400, found.message(scope["method"], target))
            return
        await self._serve(found, send)

    async def _serve(self, exchange: Exchange, send: Send) -> None:
        start = time.monotonic()
        if exchange.status is None:
            raise DroppedConnection(f"the recording {exchange.label} got no response")
        headers = [
            (k.encode("latin-1"), v.encode("latin-1"))
            for k, v in exchange.response_headers
            if k not in _HOP and REDACTED not in v
        ]
        broke = exchange.outcome != "complete"
        if not exchange.is_sse and not broke:
            headers.append((b"content-length", str(len(exchange.body)).encode()))
        await self._pause(exchange.response_t, start)
        await send({"type": "http.response.start", "status": exchange.status, "headers": headers})
        for chunk in exchange.chunks:
            await self._pause(chunk.t, start)
            await send({"type": "http.response.body", "body": chunk.data, "more_body": True})
        if broke:
            raise DroppedConnection(f"the recording {exchange.label} broke off: {exchange.outcome}")
        await self._pause(exchange.end_t, start)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = await receive()  # websocket.connect
        if first["type"] != "websocket.connect":
            return
        path = scope["path"]
        candidates = [e for e in self.sockets[self._next_socket :] if e.path == path]
        if not candidates:
            await send({"type": "websocket.close", "code": 1008, "reason": "no recorded socket"})
            return
        exchange = candidates[0]
        self._next_socket = self.sockets.index(exchange) + 1
        await send({"type": "websocket.accept"})
        start = time.monotonic()
        for frame in exchange.frames:
            if frame.sender == "server":
                await self._pause(frame.t, start)
                if frame.opcode == "close":
                    await send({"type": "websocket.close", "code": _code(frame.data)})
                    return
                key = "text" if frame.opcode == "text" else "bytes"
                value: str | bytes = frame.data.decode() if key == "text" else frame.data
                await send({"type": "websocket.send", key: value})
                continue
            if frame.opcode == "close":
                continue
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            got = (message.get("text") or "").encode() or message.get("bytes") or b""
            too_deep = _too_deep(got)
            if too_deep or not self._same_frame(frame.data, got):
                text = too_deep or (
                    f"The message does not match the recording {exchange.label}: "
                    f"{_first_difference(frame.data, got, self.settings.ignore)}."
                )
                code = "json_too_deep" if too_deep else NO_MATCH_CODE
                error = {"type": "error", "error": _error_body(text, code)["error"], "status": 400}
                await send({"type": "websocket.send", "text": json.dumps(error)})
                await send({"type": "websocket.close", "code": 1008})
                return
        while (await receive())["type"] != "websocket.disconnect":
            pass

    def _same_frame(self, recorded: bytes, got: bytes) -> bool:
        ignore = self.settings.ignore
        return request_key("WS", "", "", recorded, ignore) == request_key("WS", "", "", got, ignore)


def _first_difference(recorded: bytes, got: bytes, ignore: Sequence[str]) -> str:
    from mock_server.replay_match import differences

    a = request_key("WS", "", "", recorded, ignore)
    b = request_key("WS", "", "", got, ignore)
    return "; ".join(differences(a, b, ["body"])) or "bytes differ"


def _too_deep(data: bytes) -> str:
    """The message for a client frame nested past the bound, or ""."""
    try:
        check_depth(data, "The event")
    except JSONTooDeep as error:
        return str(error)
    return ""


def _code(data: bytes) -> int:
    text = data.decode("ascii", "replace").strip()
    return int(text) if text.isdigit() else 1000


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _error_body(message: str, code: str = NO_MATCH_CODE) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": None,
            "code": code,
        }
    }


async def _send_error(send: Send, status: int, message: str, code: str = NO_MATCH_CODE) -> None:
    data = json.dumps(_error_body(message, code)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data, "more_body": False})
