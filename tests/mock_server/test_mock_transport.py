"""The in-process transports: streaming, early close (generation stops), dropped connections."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import httpx2
import pytest
from mock_support import sse_events

from mock_server.app import MockSettings
from mock_server.engine import Latency
from mock_server.testing import InProcessMock


@pytest.fixture
def slow_mock() -> Iterator[InProcessMock]:
    mock = InProcessMock(MockSettings(latency=Latency(inter_token=0.01)))
    try:
        yield mock
    finally:
        mock.close()


def test_stream_arrives_incrementally_and_early_close_stops_generation(
    slow_mock: InProcessMock,
) -> None:
    body = {"model": "mock-long-text", "input": "go", "stream": True}
    with httpx2.Client(transport=slow_mock.transport, base_url=slow_mock.base_url) as client:
        started = time.monotonic()
        with client.stream("POST", "/responses", json=body) as response:
            first = next(response.iter_raw())
            assert time.monotonic() - started < 2  # ~500 deltas at 10 ms would take 5 s
        response_id = sse_events(first)[0]["response"]["id"]
        # The close reached the app as http.disconnect: generation stopped, nothing completed.
        stored = client.get(f"/responses/{response_id}").json()
        assert stored["status"] != "completed"
        assert time.monotonic() - started < 2
    assert len(slow_mock.generations) == 1


def test_dropped_connection_in_process() -> None:
    mock = InProcessMock()
    try:
        with httpx2.Client(transport=mock.transport, base_url=mock.base_url) as client:
            received = b""
            with (
                pytest.raises(httpx2.RemoteProtocolError),
                client.stream(
                    "POST",
                    "/responses",
                    json={"model": "mock-text", "input": "x", "stream": True},
                    headers={"x-mock-fault": "drop=4"},
                ) as response,
            ):
                for chunk in response.iter_raw():
                    received += chunk
            assert len(sse_events(received)) == 4
            # drop=N counts SSE events: a non-streamed answer goes out whole (its --fault help).
            whole = client.post(
                "/responses", json={"model": "mock"}, headers={"x-mock-fault": "drop"}
            )
            assert whole.status_code == 200 and whole.json()["object"] == "response"
    finally:
        mock.close()


def test_async_transport_streams() -> None:
    mock = InProcessMock()

    async def main() -> list[str]:
        async with mock.async_client() as client:
            stream = await client.responses.create(model="mock-reasoning", input="x", stream=True)
            return [event.type async for event in stream]

    types = asyncio.run(main())
    assert types[0] == "response.created" and types[-1] == "response.completed"


def test_transport_thread_is_a_daemon() -> None:
    mock = InProcessMock()
    _ = mock.transport
    names = {t.name: t.daemon for t in threading.enumerate()}
    assert names.get("mock-transport") is True
    mock.close()


def test_request_logs_keep_the_most_recent_requests() -> None:
    # A long-running mock must not grow with its traffic (benchmarks/perf/store_memory.py).
    mock = InProcessMock(MockSettings(request_log=2))
    try:
        with httpx2.Client(transport=mock.transport, base_url=mock.base_url) as client:
            for n in range(5):
                client.post("/responses", json={"model": "mock-text", "input": f"q{n}"})
        assert [r.json()["input"] for r in mock.requests] == ["q3", "q4"]
        assert [g.messages[-1].content for g in mock.generations] == ["q3", "q4"]
    finally:
        mock.close()


def test_the_first_public_names_are_the_same_classes() -> None:
    # mock_server.__all__ exported them as MockTransport / AsyncMockTransport before the rename.
    import mock_server

    assert mock_server.MockTransport is mock_server.InProcessTransport
    assert mock_server.AsyncMockTransport is mock_server.AsyncInProcessTransport
