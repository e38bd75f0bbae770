"""responses-bench's WebSocket client: a handshake that fails leaves no socket open."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from benchmarks.responses_bench.ws_socket import WsClosed, WsRejected, WsSocket


@contextmanager
def _one_shot_server(answer: bytes | None) -> Iterator[str]:
    """Accepts one connection, reads the upgrade request, sends ``answer`` (``None``: nothing,
    the connection is held open until the test is done) and hangs up."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            if answer is None:
                done.wait(30)
            else:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"ws://127.0.0.1:{listener.getsockname()[1]}/v1/responses"
    finally:
        done.set()
        thread.join(30)
        listener.close()


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[socket.socket]:
    """Every socket the client opens."""
    made: list[socket.socket] = []
    real = socket.create_connection

    def create_connection(*args: object, **kwargs: object) -> socket.socket:
        sock = real(*args, **kwargs)  # type: ignore[arg-type]
        made.append(sock)
        return sock

    monkeypatch.setattr(socket, "create_connection", create_connection)
    return made


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (b"", WsClosed),  # hung up before answering the upgrade
        (b"SSH-2.0-OpenSSH_9.6\r\n\r\n", WsClosed),  # not HTTP
        (b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n", WsRejected),
        (None, TimeoutError),  # never answers
    ],
    ids=["hung-up", "not-http", "rejected", "timeout"],
)
def test_a_failed_handshake_closes_its_socket(
    opened: list[socket.socket], answer: bytes | None, error: type[Exception]
) -> None:
    with _one_shot_server(answer) as url, pytest.raises(error):
        WsSocket(url, {}, timeout=0.5 if answer is None else 30)
    assert len(opened) == 1
    assert opened[0].fileno() == -1  # closed, not left to the garbage collector
