"""``responses-mock``'s timeouts and WebSocket frame limit, through its CLI (issue #39): the
flags reach the server it runs. The cases themselves: tests/reference_impl/test_refimpl_limits.py."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets.sync.client as wsc
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 100_000


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    argv = [sys.executable, "-m", "mock_server.cli", "--port", "0", "--head-timeout", "0.5",
            "--max-body-bytes", str(LIMIT)]  # fmt: skip
    proc = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    try:
        assert line.startswith("listening on http://"), line
        yield int(line.rsplit(":", 1)[1])
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_stalled_heads_are_closed(port: int) -> None:
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    try:
        for sock in socks:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n")
            sock.settimeout(3)
        started = time.monotonic()
        answers = [sock.recv(4096) for sock in socks]
        closed = sum(sock.recv(4096) == b"" for sock in socks)
    finally:
        for sock in socks:
            sock.close()
    assert closed == 20 and time.monotonic() - started < 3
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers)


def test_a_websocket_frame_is_held_to_the_body_limit(port: int) -> None:
    with wsc.connect(f"ws://127.0.0.1:{port}/v1/responses", max_size=None) as ws:
        ws.send("x" * (LIMIT + 1))  # over HTTP this body gets 413
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
