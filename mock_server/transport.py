"""In-process (socket-free) transports over an ASGI app, for ``httpx2`` — the HTTP client the
``openai`` 3.x SDK uses::

    server = MockServer()
    client = openai.OpenAI(base_url="http://mock/v1", api_key="unused",
                           http_client=httpx2.Client(transport=InProcessTransport(server.app)))

Unlike ``httpx2.ASGITransport`` (async only; buffers the whole body), these stream: each ASGI
``http.response.body`` message reaches the client as it is sent, closing the response early sends
the app ``http.disconnect``, and an app that fails after the response started (an injected
dropped connection) surfaces as :class:`httpx2.RemoteProtocolError`, as over a socket.

:class:`InProcessTransport` (sync) runs the app on an event loop in a daemon thread, one per transport;
:class:`AsyncInProcessTransport` runs it as a task on the caller's asyncio loop. (Named for what they are: ``httpx``'s own
``MockTransport`` answers with a handler function, not an app. ``MockTransport`` and
``AsyncMockTransport``, the names ``mock_server`` first exported them under, stay as aliases.)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator, MutableMapping
from typing import Any

import httpx2
from starlette.types import ASGIApp, Message

__all__ = [
    "AsyncInProcessTransport",
    "AsyncMockTransport",
    "InProcessTransport",
    "MockTransport",
]


_END = object()


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error


def _scope(request: httpx2.Request) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "headers": [(k.lower(), v) for k, v in request.headers.raw],
        "scheme": request.url.scheme,
        "path": request.url.path,
        "raw_path": request.url.raw_path.split(b"?")[0],
        "query_string": request.url.query,
        "server": (request.url.host, request.url.port),
        "client": ("127.0.0.1", 0),
        "root_path": "",
    }


def _broken(error: BaseException) -> httpx2.RemoteProtocolError:
    return httpx2.RemoteProtocolError(
        "peer closed connection without sending complete message body "
        f"(the app raised {type(error).__name__}: {error})"
    )


async def _run_app(
    app: ASGIApp,
    scope: dict[str, Any],
    body: bytes,
    disconnected: asyncio.Event,
    put: Callable[[object], None],
) -> None:
    body_sent = False

    async def receive() -> Message:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await disconnected.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        put(message)

    try:
        await app(scope, receive, send)
    except Exception as error:
        put(_Failed(error))
    else:
        put(_END)


def _response(request: httpx2.Request, first: object, stream: Any) -> httpx2.Response:
    if isinstance(first, _Failed):
        raise httpx2.RemoteProtocolError(
            f"Server disconnected without sending a response ({type(first.error).__name__})"
        ) from first.error
    if not isinstance(first, MutableMapping) or first.get("type") != "http.response.start":
        raise httpx2.RemoteProtocolError("the app ended without starting a response")
    return httpx2.Response(
        first["status"], headers=first.get("headers", []), stream=stream, request=request
    )


class InProcessTransport(httpx2.BaseTransport):
    """A sync transport that serves requests from ``app`` without a socket."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._loop = asyncio.new_event_loop()
        # A daemon thread: a client that is never closed must not keep the interpreter alive.
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="mock-transport", daemon=True
        )
        self._thread.start()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        messages: queue.Queue[object] = queue.Queue()
        disconnected = asyncio.run_coroutine_threadsafe(_event(), self._loop).result()
        future = asyncio.run_coroutine_threadsafe(
            _run_app(self.app, _scope(request), body, disconnected, messages.put), self._loop
        )
        stream = _SyncStream(messages, self._loop, disconnected, future)
        return _response(request, messages.get(), stream)

    def close(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
        if not self._loop.is_running() and not self._loop.is_closed():
            self._loop.close()


async def _event() -> asyncio.Event:
    return asyncio.Event()


class _SyncStream(httpx2.SyncByteStream):
    def __init__(
        self,
        messages: queue.Queue[object],
        loop: asyncio.AbstractEventLoop,
        disconnected: asyncio.Event,
        future: concurrent.futures.Future[None],
    ) -> None:
        self.messages = messages
        self.loop = loop
        self.disconnected = disconnected
        self.future = future
        self.done = False

    def __iter__(self) -> Iterator[bytes]:
        while not self.done:
            self.done = True  # unless the message says more follows (a failure ends it too)
            body, self.done = _body(self.messages.get())
            if body:
                yield body

    def close(self) -> None:
        if not self.future.done():
            self.loop.call_soon_threadsafe(self.disconnected.set)
            try:
                self.future.result(timeout=10)
            except (concurrent.futures.TimeoutError, Exception):
                self.future.cancel()


def _body(item: object) -> tuple[bytes, bool]:
    """One message of the app's queue as the response stream reads it: the body bytes it carries
    (none for any other message) and whether the body is complete; the app's failure, or its end
    before the body's, raises as httpx2 would."""
    if isinstance(item, _Failed):
        raise _broken(item.error) from item.error
    if item is _END:
        raise httpx2.RemoteProtocolError("the app ended before finishing the response")
    assert isinstance(item, MutableMapping)
    if item.get("type") != "http.response.body":
        return b"", False
    return item.get("body") or b"", not item.get("more_body", False)


class AsyncInProcessTransport(httpx2.AsyncBaseTransport):
    """An async transport that serves requests from ``app`` on the caller's asyncio loop."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        messages: asyncio.Queue[object] = asyncio.Queue()
        disconnected = asyncio.Event()
        task = asyncio.create_task(
            _run_app(self.app, _scope(request), body, disconnected, messages.put_nowait)
        )
        stream = _AsyncStream(messages, disconnected, task)
        return _response(request, await messages.get(), stream)


class _AsyncStream(httpx2.AsyncByteStream):
    def __init__(
        self, messages: asyncio.Queue[object], disconnected: asyncio.Event, task: asyncio.Task[None]
    ) -> None:
        self.messages = messages
        self.disconnected = disconnected
        self.task = task
        self.done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while not self.done:
            self.done = True  # unless the message says more follows (a failure ends it too)
            body, self.done = _body(await self.messages.get())
            if body:
                yield body

    async def aclose(self) -> None:
        if not self.task.done():
            self.disconnected.set()
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 10)
            except (TimeoutError, Exception):
                self.task.cancel()


# The names mock_server.__all__ exported first: the same classes, kept for code that uses them.
MockTransport = InProcessTransport
AsyncMockTransport = AsyncInProcessTransport
