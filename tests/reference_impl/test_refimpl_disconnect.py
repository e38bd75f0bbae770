"""A client that goes away mid-stream stops generation: the engine's iterator is closed."""

from __future__ import annotations

import httpx2
from refimpl_support import EndlessEngine, ServeFn, parse_sse, sdk_client


def test_disconnect_mid_stream_closes_the_engine_iterator(serve: ServeFn) -> None:
    engine = EndlessEngine()
    server = serve(engine)
    body = {"model": "m", "input": "go on forever", "stream": True}
    with (
        httpx2.Client(timeout=10) as http,
        http.stream("POST", server.base_url + "/v1/responses", json=body) as response,
    ):
        buffer = b""
        for chunk in response.iter_bytes():
            buffer += chunk
            if buffer.count(b"response.output_text.delta") >= 5:
                break
    assert engine.closed_event.wait(10), "generation did not stop after the client left"
    assert engine.closed == 1
    created = parse_sse(buffer.split(b"\n\n", 1)[0] + b"\n\n")[0][0]
    url = f"{server.base_url}/v1/responses/{created['response']['id']}"
    # The stored object says what happened: generation stopped before a terminal event.
    assert httpx2.get(url).json()["status"] == "cancelled"


def test_disconnect_through_the_sdk(serve: ServeFn) -> None:
    engine = EndlessEngine()
    server = serve(engine)
    with (
        sdk_client(server) as client,
        client.responses.stream(model="m", input="forever") as stream,
    ):
        for n, _event in enumerate(stream):
            if n > 10:
                break
    assert engine.closed_event.wait(10)
