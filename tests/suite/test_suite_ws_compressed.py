"""The suite's WebSocket client bounds a compressed frame on what it decompresses to: it takes
permessage-deflate, and the websockets library decompresses with ``max_length = max_size``
(``_MAX_FRAME``), so a frame that expands past it closes the socket (1009) instead of being
inflated whole. A guard of what the suite's bounds rely on; the near miss: a compressed frame
within the bound is read as it was sent."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from websockets.sync.server import ServerConnection, serve

import conformance.suite.ws as ws_module
from conformance.suite.ws import WsClosed, WsSession

LIMIT = 1024 * 1024


@contextmanager
def _server(size: int, seen: list[list[str]]) -> Iterator[str]:
    def handler(conn: ServerConnection) -> None:
        seen.append([type(e).__name__ for e in conn.protocol.extensions])
        conn.recv()
        # A JSON object of `size` bytes that deflates to a few KiB.
        conn.send('{"type": "response.created", "pad": "' + "a" * (size - 40) + '"}')
        with contextlib.suppress(Exception):  # the client's close, in whatever form
            conn.recv(timeout=5)

    with serve(handler, "127.0.0.1", 0, max_size=None) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        port = server.socket.getsockname()[1]
        try:
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            server.shutdown()


def _session(url: str) -> WsSession:
    return WsSession(url, api_key=None, timeout=10, max_events=100)


def test_a_frame_that_decompresses_past_the_bound_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ws_module, "_MAX_FRAME", LIMIT)
    seen: list[list[str]] = []
    with _server(8 * LIMIT, seen) as url:
        session = _session(url)
        session.send({"type": "response.create", "model": "m", "input": "hi"})
        with pytest.raises(WsClosed):
            session.recv()
    assert seen == [["PerMessageDeflate"]]  # the frame was compressed: the bound is on its output


def test_a_compressed_frame_within_the_bound_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ws_module, "_MAX_FRAME", LIMIT)
    seen: list[list[str]] = []
    with _server(LIMIT // 2, seen) as url:
        session = _session(url)
        session.send({"type": "response.create", "model": "m", "input": "hi"})
        event: Any = session.recv()
    assert seen == [["PerMessageDeflate"]]
    assert event["type"] == "response.created" and len(event["pad"]) == LIMIT // 2 - 40
