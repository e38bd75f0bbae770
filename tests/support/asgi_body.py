"""What the tests' wrapping ASGI servers (a gateway that refuses, a proxy that rewrites) do to a
request before the app behind them sees it: read its body whole (:func:`drain`), answer it with
JSON themselves (:func:`json_answer`), or hand the app the body they read (:func:`replayed`)."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive, Send

__all__ = ["drain", "json_answer", "replayed"]


async def drain(receive: Receive) -> bytes:
    """The request's whole body."""
    body, more = b"", True
    while more:
        message: Message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


def replayed(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` for the app behind: ``body`` (already drained) first, as one message, then
    whatever ``receive`` gives (a disconnect)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def json_answer(send: Send, status: int, value: Any) -> None:
    """Answer with ``value`` as JSON, ``status``, and the body's length."""
    data = json.dumps(value).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(data))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data, "more_body": False})
