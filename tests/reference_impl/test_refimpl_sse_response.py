"""SSEResponse's disconnect handling (reference_impl/service/sse.py): a client that goes away cancels the
producer and the response ends quietly; any other cancel goes on up; a stream that never waits
leaves no watcher task behind. Driven by plain ASGI callables, no server and no clock."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from reference_impl.service.sse import EventSink, SSEResponse

Message = dict[str, Any]


class _Client:
    """An ASGI peer: records what is sent; ``receive`` blocks until :meth:`leave`."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.gone = asyncio.Event()

    async def receive(self) -> Message:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.sent.append(message)

    def leave(self) -> None:
        self.gone.set()

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent if m["type"] == "http.response.body")

    @property
    def ended(self) -> bool:
        last = self.sent[-1] if self.sent else {}
        return last.get("type") == "http.response.body" and not last.get("more_body", False)


def _scope() -> dict[str, Any]:
    return {"type": "http", "method": "POST", "path": "/v1/responses", "headers": []}


def test_a_client_that_leaves_cancels_the_producer_and_the_response_ends_quietly() -> None:
    async def main() -> None:
        client = _Client()
        waiting = asyncio.Event()
        cleaned_up = asyncio.Event()

        async def producer(sink: EventSink) -> None:
            await sink.frame(b"data: 1\n\n")
            try:
                waiting.set()
                await asyncio.Event().wait()  # forever: only a cancel ends it
            finally:
                cleaned_up.set()

        task = asyncio.create_task(SSEResponse(producer)(_scope(), client.receive, client.send))
        await waiting.wait()
        client.leave()
        await asyncio.wait_for(task, 5)  # returns normally: no CancelledError out of it
        assert cleaned_up.is_set()
        assert not task.cancelled()
        assert task.cancelling() == 0  # the cancel was taken back
        assert client.body == b"data: 1\n\n"
        assert not client.ended  # no end of body after the client left

    asyncio.run(main())


async def _blocked_stream(client: _Client) -> asyncio.Task[None]:
    """A stream whose producer has started and waits forever (only a cancel ends it)."""
    waiting = asyncio.Event()

    async def producer(sink: EventSink) -> None:
        waiting.set()
        await asyncio.Event().wait()

    task = asyncio.create_task(SSEResponse(producer)(_scope(), client.receive, client.send))
    await waiting.wait()
    return task


def test_another_cancel_propagates() -> None:
    async def main() -> None:
        client = _Client()
        task = await _blocked_stream(client)
        task.cancel()  # e.g. the server shutting down
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    asyncio.run(main())


def test_a_cancel_while_the_client_leaves_still_propagates() -> None:
    async def main() -> None:
        client = _Client()
        task = await _blocked_stream(client)
        task.cancel()  # another canceller, before the watcher's cancel is delivered
        client.leave()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_a_producer_that_swallows_the_cancel_leaves_the_task_uncancelled() -> None:
    async def main() -> None:
        client = _Client()
        waiting = asyncio.Event()

        async def producer(sink: EventSink) -> None:
            waiting.set()
            # a producer that cleans up and returns instead of re-raising
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.Event().wait()
            await sink.frame(b"data: late\n\n")

        task = asyncio.create_task(SSEResponse(producer)(_scope(), client.receive, client.send))
        await waiting.wait()
        client.leave()
        await asyncio.wait_for(task, 5)
        assert task.cancelling() == 0
        await asyncio.sleep(0)  # a cancel left pending would be delivered at this await

    asyncio.run(main())


def test_a_stream_that_never_waits_leaves_no_task_behind() -> None:
    async def main() -> None:
        client = _Client()

        async def producer(sink: EventSink) -> None:
            await sink.events([{"type": "a", "n": 1}, {"type": "b", "n": 2}])

        before = asyncio.all_tasks()
        await SSEResponse(producer)(_scope(), client.receive, client.send)
        await asyncio.sleep(0)
        assert asyncio.all_tasks() == before
        assert client.ended
        assert client.body == (
            b'event: a\ndata: {"type":"a","n":1}\n\nevent: b\ndata: {"type":"b","n":2}\n\n'
        )

    asyncio.run(main())


def test_a_long_batch_is_framed_event_by_event() -> None:
    async def main() -> None:
        client = _Client()
        events = [{"type": "x" if i < 5 or i > 12 else "delta", "i": i} for i in range(20)]

        async def producer(sink: EventSink) -> None:
            await sink.events(events)

        await SSEResponse(producer)(_scope(), client.receive, client.send)
        bodies = [m["body"] for m in client.sent if m["type"] == "http.response.body"]
        assert len(bodies) == 2  # the batch in one write, then the end of the body
        expected = b"".join(
            f'event: {e["type"]}\ndata: {{"type":"{e["type"]}","i":{e["i"]}}}\n\n'.encode()
            for e in events
        )
        assert bodies[0] == expected

    asyncio.run(main())
