"""The geventhttpclient internals benchmarks/responses_bench/exchange.py reads (issue #40 item 5:
a dependency's private internals only with a pinned version and a test): ``_body_buffer``,
``_sock``, ``feed``, ``message_complete`` and ``release`` of the response object behind a
``UserAgent.urlopen`` answer's ``_response`` (locust's FastHttpSession is a UserAgent), here on a
real geventhttpclient response against a loopback server that sends a chunked body in two steps.

``_chunks`` must hand over the first chunk while the second has not been sent (the server waits
for the test's word): that is what stamps each event with its own arrival time. A
geventhttpclient version that renames any of these fails here, not as a bench that measures wrong
(the ``bench`` extra pins the range this was written against)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

geventhttpclient = pytest.importorskip("geventhttpclient", reason="the bench extra")

from benchmarks.responses_bench.errors import BodyTruncated  # noqa: E402
from benchmarks.responses_bench.exchange import _buffered, _chunks  # noqa: E402

# One connection: the head and a first chunk, then (after a line on stdin) the second chunk and
# the end, or (after "cut") a malformed chunk size.
_SERVER = r"""
import socket, sys
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
conn, _ = listener.accept()
request = b""
while b"\r\n\r\n" not in request:
    request += conn.recv(65536)
conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
             b"transfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n")
word = sys.stdin.readline().strip()
if word == "cut":
    conn.sendall(b"zz\r\nbroken\r\n")
else:
    conn.sendall(b"6\r\nsecond\r\n0\r\n\r\n")
conn.recv(1)
"""


@pytest.fixture
def server() -> Iterator[tuple[subprocess.Popen[str], int]]:
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        yield process, int(process.stdout.readline())
    finally:
        process.kill()
        process.wait()
        process.stdout.close()
        process.stdin.close()


@pytest.fixture
def opened() -> Iterator[Callable[[int], Any]]:
    """Opens the request on the server's port as locust's FastHttpSession does (its client is a
    geventhttpclient ``UserAgent``; exchange.py reads the ``_response`` of what ``urlopen``
    returns); every agent is closed after the test."""
    agents: list[Any] = []

    def open_(port: int) -> Any:
        agents.append(geventhttpclient.UserAgent(network_timeout=10))
        url = f"http://127.0.0.1:{port}/v1/responses"
        return agents[-1].urlopen(url, method="POST", payload=b"{}", headers={"a": "b"})

    yield open_
    for agent in agents:
        agent.close()


def _say(process: subprocess.Popen[str], word: str) -> None:
    assert process.stdin is not None
    process.stdin.write(word + "\n")
    process.stdin.flush()


def test_each_chunk_is_handed_over_as_it_arrives(
    server: tuple[subprocess.Popen[str], int], opened: Callable[[int], Any]
) -> None:
    process, port = server
    raw = opened(port)._response
    chunks = _chunks(raw, None)
    assert next(chunks) == b"first"  # the second is not sent yet: no read waits for it
    assert not raw.message_complete
    _say(process, "go")
    assert b"".join(chunks) == b"second"
    assert raw.message_complete
    raw.release()


def test_a_malformed_chunk_is_geventhttpclients_public_parse_error(
    server: tuple[subprocess.Popen[str], int], opened: Callable[[int], Any]
) -> None:
    process, port = server
    raw = opened(port)._response
    chunks = _chunks(raw, None)
    assert next(chunks) == b"first"
    _say(process, "cut")
    with pytest.raises(geventhttpclient.HTTPParseError):
        list(chunks)
    raw.release()
    with pytest.raises(BodyTruncated):  # a released response has no socket left to read
        list(_chunks(raw, None))


def test_an_error_bodys_received_part_is_read_from_the_buffer(
    server: tuple[subprocess.Popen[str], int], opened: Callable[[int], Any]
) -> None:
    process, port = server
    answered = opened(port)  # what an HTTP error carries as its `response`
    assert _buffered(answered) == b"first"
    _say(process, "go")
    answered.release()
