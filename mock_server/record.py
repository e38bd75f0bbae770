"""``responses-mock --record DIR``: the mock's own traffic written as a cassette (docs/cassettes.md).

:class:`RecordingApp` is an ASGI wrapper around the whole mock (faults included, so a cassette holds
what clients saw): each HTTP exchange - request line, headers, body, response status, headers and
body chunks with their arrival times - and each WebSocket connection's frames go to a
:class:`cassettes.CassetteWriter`, which redacts credential headers (and the mock's ``--api-key``
in every form) before anything reaches the disk.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cassettes import CassetteWriter, ExchangeRecorder

__all__ = ["RecordingApp"]


def _target(scope: Scope) -> str:
    raw = scope.get("raw_path") or scope["path"].encode()
    path = raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)
    query = scope.get("query_string", b"").decode("latin-1")
    return path + (f"?{query}" if query else "")


class RecordingApp:
    """Records every exchange through ``app`` into ``directory``."""

    def __init__(
        self,
        app: ASGIApp,
        directory: str | os.PathLike[str],
        *,
        secrets: Iterable[str | None] = (),
    ) -> None:
        self.app = app
        self.writer = CassetteWriter(directory, secrets=secrets)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _finish(self, rec: ExchangeRecorder, outcome: str) -> None:
        await anyio.to_thread.run_sync(rec.finish, outcome)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        rec = self.writer.begin(scope["method"], _target(scope), scope.get("headers", []))
        outcome = "complete"

        async def recv() -> Message:
            nonlocal outcome
            message = await receive()
            if message["type"] == "http.request":
                rec.request_body(message.get("body", b""))
            elif message["type"] == "http.disconnect" and rec.exchange.status is None:
                outcome = "disconnected"
            return message

        async def snd(message: Message) -> None:
            if message["type"] == "http.response.start":
                rec.response(message["status"], message.get("headers", []))
            elif message["type"] == "http.response.body":
                rec.chunk(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, recv, snd)
        except BaseException as error:
            await self._finish(rec, f"error: {type(error).__name__}: {error}")
            raise
        await self._finish(rec, outcome)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        rec = self.writer.begin("GET", _target(scope), scope.get("headers", []), websocket=True)

        async def recv() -> Message:
            message = await receive()
            if message["type"] == "websocket.receive":
                if message.get("text") is not None:
                    rec.frame(message["text"], "client")
                else:
                    rec.frame(message.get("bytes") or b"", "client", "binary")
            elif message["type"] == "websocket.disconnect":
                rec.frame(str(message.get("code", 1000)), "client", "close")
            return message

        async def snd(message: Message) -> None:
            kind = message["type"]
            if kind == "websocket.accept":
                rec.response(101, message.get("headers", []))
            elif kind == "websocket.send":
                if message.get("text") is not None:
                    rec.frame(message["text"], "server")
                else:
                    rec.frame(message.get("bytes") or b"", "server", "binary")
            elif kind == "websocket.close":
                rec.frame(str(message.get("code", 1000)), "server", "close")
            elif kind == "websocket.http.response.start":  # refused before the handshake
                rec.response(message["status"], message.get("headers", []))
            elif kind == "websocket.http.response.body":
                rec.chunk(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, recv, snd)
        except BaseException as error:
            await self._finish(rec, f"error: {type(error).__name__}: {error}")
            raise
        await self._finish(rec, "complete")
