"""What the tests' wrapping ASGI servers (a gateway that refuses, a proxy that rewrites) do to a
request before the app behind them sees it: read its body whole (:func:`drain`), or answer it
with JSON themselves (:func:`json_answer`). Handing the app the body they read is the mock's own
``mock_server.middleware.replayed``."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive, Send

__all__ = ["drain", "json_answer"]


async def drain(receive: Receive) -> bytes:
    """The request's whole body."""
    body, more = b"", True
    while more:
        message: Message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


async def json_answer(send: Send, status: int, value: Any) -> None:
    """Answer with ``value`` as JSON, ``status``, and the body's length."""
    data = json.dumps(value).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(data))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data, "more_body": False})
