"""SSE framing and the streaming ASGI response.

Each event is one frame ``event: <type>\\ndata: <json>\\n\\n`` written with one ``send`` (SPEC §1
"Framing"; the ``event:`` name equals the body's ``type``, no ``id:`` lines). The stream ends with
``data: [DONE]``: optional for OpenAI, required by Open Responses, so we send it.

:class:`SSEResponse` watches for the client's ``http.disconnect`` while it streams; on disconnect it
stops and closes the frame iterator, which closes the engine's iterator (``aclose()``) so generation
stops (issue 3, Build 5).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import orjson
from starlette.types import Receive, Scope, Send

__all__ = ["DONE", "SSEResponse", "encode_event"]

DONE = b"data: [DONE]\n\n"


_PREFIXES: dict[str, bytes] = {}  # event type → b"event: <type>\ndata: "; a few dozen types


def encode_event(event: Mapping[str, Any]) -> bytes:
    type_ = event["type"]
    prefix = _PREFIXES.get(type_)
    if prefix is None:
        prefix = b"event: " + str(type_).encode() + b"\ndata: "
        if len(_PREFIXES) < 1024:  # bounded: event types come from the assembler's fixed set
            _PREFIXES[type_] = prefix
    return prefix + orjson.dumps(event) + b"\n\n"


class SSEResponse:
    """An ASGI response that sends each frame of ``frames`` as one body chunk."""

    def __init__(self, frames: AsyncIterator[bytes], headers: Mapping[str, str] | None = None):
        self.frames = frames
        self.headers = dict(headers or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        raw_headers += [(k.lower().encode(), v.encode()) for k, v in self.headers.items()]
        await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
        try:
            async with anyio.create_task_group() as tg:

                async def watch_disconnect() -> None:
                    while True:
                        message = await receive()
                        if message["type"] == "http.disconnect":
                            tg.cancel_scope.cancel()
                            return

                tg.start_soon(watch_disconnect)
                async for frame in self.frames:
                    await send({"type": "http.response.body", "body": frame, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                tg.cancel_scope.cancel()
        finally:
            aclose = getattr(self.frames, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()
