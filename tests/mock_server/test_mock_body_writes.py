"""Body writes of a stream: the events of one engine chunk (produced at one instant) go out in one
ASGI body message; with latency every delta is its own message, sent when it is due
(reference_impl/service/sse.py, EventSink.events; README "The mock server in your tests")."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import orjson

from mock_server.app import MockServer, MockSettings
from mock_server.engine import Latency
from reference_impl.service.sse import EventSink, encode_event

BODY = {"model": "mock", "input": "Describe a lighthouse.", "stream": True}
DELTA = b"event: response.output_text.delta\n"


def _messages(settings: MockSettings) -> list[tuple[float, bytes]]:
    """Each body message of one streamed answer with the time the app sent it (timed at the
    ASGI ``send``, not at a client whose thread a loaded machine may delay)."""
    body = orjson.dumps(BODY)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/responses",
        "raw_path": b"/v1/responses",
        "query_string": b"",
        "root_path": "",
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 1),
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    sent: list[tuple[float, bytes]] = []

    async def main() -> None:
        received = False
        disconnect = asyncio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal received
            if not received:
                received = True
                return {"type": "http.request", "body": body, "more_body": False}
            await disconnect.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                sent.append((time.monotonic(), message["body"]))

        await MockServer(settings).app(scope, receive, send)

    asyncio.run(main())
    return sent


def test_with_inter_token_latency_each_delta_is_sent_alone_when_due() -> None:
    gap = 0.02
    messages = _messages(MockSettings(seed=1, latency=Latency(inter_token=gap)))
    deltas = [(t, chunk) for t, chunk in messages if DELTA in chunk]
    assert len(deltas) > 20
    # Not one delta held back for another: every message carries one delta at most ...
    assert all(chunk.count(DELTA) == 1 for _, chunk in deltas)
    # ... and each was sent after the engine's wait for it (lower bounds only: a real clock; a
    # loaded machine only lengthens the waits).
    times = [t for t, _ in deltas]
    assert all(later - earlier >= gap / 2 for earlier, later in itertools.pairwise(times))
    assert times[-1] - times[0] >= (len(times) - 1) * gap / 2


def test_without_latency_a_chunks_events_share_one_message() -> None:
    messages = [chunk for _, chunk in _messages(MockSettings(seed=1))]
    body = b"".join(messages)
    deltas = body.count(DELTA)
    assert deltas > 20
    # created; in_progress; the text run (item and part added, every delta); the done events
    # and response.completed; [DONE].
    assert [chunk.count(b"\n\n") for chunk in messages] == [1, 1, deltas + 2, 4, 1]
    assert all(chunk.endswith(b"\n\n") for chunk in messages)  # whole frames only


def test_event_sink_batch_is_one_message_of_the_same_frames() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    events = [
        {"type": "response.output_text.delta", "sequence_number": n, "delta": f"w{n}"}
        for n in range(3)
    ]

    async def main() -> None:
        sink = EventSink(send)
        await sink.events(events)
        await sink.events(events[:1])

    asyncio.run(main())
    assert [m["body"] for m in sent] == [
        b"".join(encode_event(e) for e in events),
        encode_event(events[0]),
    ]
    assert all(m["type"] == "http.response.body" and m["more_body"] for m in sent)
