"""SSE framing and the streaming ASGI response.

Each event is one frame ``event: <type>\\ndata: <json>\\n\\n`` (SPEC §1 "Framing"; the ``event:``
name equals the body's ``type``, no ``id:`` lines). The stream ends with ``data: [DONE]``: optional
for OpenAI, required by Open Responses, so we send it. The frames of one batch — the events of one
engine chunk, produced at one instant — go out in one body ``send``; a stream with latency has one
delta per chunk, so each delta is sent alone when it is due.

:class:`SSEResponse` runs a *producer*: a coroutine function that pushes events into the
:class:`EventSink` it is given. Pushing (rather than pulling from a chain of async generators) keeps
the per-event path short, and a batch to one ``send`` — this is the hot path of every stream
(benchmarks/perf/mock_streaming_throughput.py).

While the producer runs, :class:`SSEResponse` watches for the client's ``http.disconnect``; on
disconnect it cancels the producer, whose ``finally`` blocks close the engine's iterator so
generation stops (tests/reference_impl/test_refimpl_disconnect.py).

Body frames bypass the app's own ``send`` wrappers: :func:`raw_send_scope` records the ``send``
the server handed the app, and the response start still goes through the wrapped ``send`` so
Starlette's error middleware knows the response has started (all that its wrappers do).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, MutableMapping, Sequence
from typing import Any

import orjson
from starlette.types import Receive, Scope, Send

__all__ = ["DONE", "EventSink", "Producer", "SSEResponse", "encode_event", "raw_send_scope"]

DONE = b"data: [DONE]\n\n"
RAW_SEND = "reference_impl.raw_send"  # scope key: the server's own `send`

_PREFIXES: dict[str, bytes] = {}  # event type → b"event: <type>\ndata: "; a few dozen types
_dumps = orjson.dumps


def encode_event(event: Mapping[str, Any]) -> bytes:
    prefix = _PREFIXES.get(event["type"]) or _prefix(event["type"])
    return prefix + _dumps(event) + b"\n\n"


def _prefix(type_: Any) -> bytes:
    prefix = b"event: " + str(type_).encode() + b"\ndata: "
    if len(_PREFIXES) < 1024:  # bounded: event types come from the assembler's fixed set
        _PREFIXES[type_] = prefix
    return prefix


def raw_send_scope(scope: MutableMapping[str, Any], send: Send) -> None:
    """Record ``send`` (the server's, before any middleware of the app wraps it) in ``scope``."""
    scope[RAW_SEND] = send


class EventSink:
    """Where a producer puts its stream: each event becomes one frame; each batch of events
    (:meth:`events`) one body ``send``."""

    __slots__ = ("_send",)

    def __init__(self, send: Send) -> None:
        self._send = send

    def events(self, events: Sequence[Mapping[str, Any]]) -> Awaitable[None]:
        """Send ``events``, one batch produced at one instant (the events of one engine chunk),
        in one body message (await the result). One event — every text delta of a timed
        stream — is sent without a coroutine of its own: the server's ``send`` is returned."""
        if len(events) == 1:
            event = events[0]
            # encode_event, inlined: once per event of every stream
            prefix = _PREFIXES.get(event["type"]) or _prefix(event["type"])
            body = prefix + _dumps(event) + b"\n\n"
            return self._send({"type": "http.response.body", "body": body, "more_body": True})
        return self._each(events)

    async def _each(self, events: Sequence[Mapping[str, Any]]) -> None:
        # One body message for the batch: its events were produced together (one engine chunk,
        # no latency between them), so nothing is held back. Per message the server's HTTP
        # layer costs more than encoding an event (benchmarks/perf/mock_streaming_throughput.py).
        dumps = _dumps
        last_type: Any = None
        prefix = b""
        frames: list[bytes] = []
        append = frames.append
        for event in events:
            type_ = event["type"]
            if type_ is not last_type:  # runs of one type (text deltas): one prefix lookup
                prefix = _PREFIXES.get(type_) or _prefix(type_)
                last_type = type_
            append(prefix + dumps(event) + b"\n\n")
        await self._send(
            {"type": "http.response.body", "body": b"".join(frames), "more_body": True}
        )

    async def event(self, event: Mapping[str, Any]) -> None:
        await self._send(
            {"type": "http.response.body", "body": encode_event(event), "more_body": True}
        )

    async def frame(self, frame: bytes) -> None:
        await self._send({"type": "http.response.body", "body": frame, "more_body": True})


Producer = Callable[[EventSink], Awaitable[None]]


class SSEResponse:
    """An ASGI response that streams what ``producer`` puts into its sink, one frame per send."""

    def __init__(self, producer: Producer, headers: Mapping[str, str] | None = None):
        self.producer = producer
        self.headers = dict(headers or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        raw_headers += [(k.lower().encode(), v.encode()) for k, v in self.headers.items()]
        await send({"type": "http.response.start", "status": 200, "headers": raw_headers})
        raw: Send = scope.get(RAW_SEND, send)
        # On disconnect the watcher cancels this task, once: a plain asyncio cancel, taken back
        # (``uncancel``) when it arrives, so the response ends quietly as under a cancel scope.
        # An anyio CancelScope cost ~10 us per response to enter and leave (its backend lookup
        # and task state), ~2% of a short stream's cost in the mock.
        task = asyncio.current_task()
        assert task is not None
        gone = False

        async def watch_disconnect() -> None:
            nonlocal gone
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone = True
                    task.cancel()
                    return

        # The watcher starts when this task first waits (the loop runs the callback then): a
        # stream that never waits (an engine with no latency, a client that keeps up) ends
        # before it, and costs no task.
        loop = asyncio.get_running_loop()
        watcher: asyncio.Task[None] | None = None

        def start_watching() -> None:
            nonlocal watcher
            watcher = loop.create_task(watch_disconnect())

        pending = loop.call_soon(start_watching)
        try:
            await self.producer(EventSink(raw))
            await raw({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            # Ours (the client went away) and nobody else's: the stream just ends. Any other
            # cancel (the server shutting down, an outer scope) goes on up.
            if not gone or task.uncancel() > 0:
                raise
        else:
            if gone:  # the producer swallowed our cancel: take it back all the same
                task.uncancel()
        finally:
            pending.cancel()
            if watcher is not None:
                watcher.cancel()
