"""Byte counts a client controls are bounded before the mock buffers them: request
bodies (OpenAI's 413 after at most the limit is read), the request log (a byte budget, older bodies
visibly truncated) and the engine's log of generations. Memory is asserted as the peak RSS of a
``responses-mock`` child process, not as wall time."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import orjson
import pytest
from child_memory import listening_child

from mock_server.app import MockServer, MockSettings
from mock_server.engine import MockEngine
from mock_server.middleware import (
    DEFAULT_MAX_BODY_BYTES,
    MockMiddleware,
    RecordedRequest,
    RequestLog,
    TruncatedBody,
)
from mock_server.testing import InProcessMock
from reference_impl.engine import EngineHints, GenerationRequest

MiB = 1024 * 1024


# --- the middleware alone (no socket) -------------------------------------------------------------


def _run(app: Any, chunks: Iterator[bytes], headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """Drive ``app`` with a body of ``chunks``; return what it sent and how much it read."""
    read = {"bytes": 0}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        read["bytes"] += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/responses",
        "query_string": b"",
        "headers": headers,
    }
    anyio.run(app, scope, receive, send)
    return {"read": read["bytes"], "sent": sent}


async def _never_called(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("the app must not see a body over the limit")


def test_a_chunked_body_over_the_limit_gets_413_after_reading_at_most_the_limit() -> None:
    middleware = MockMiddleware(_never_called, max_body_bytes=10_000)
    # 1 MB offered in 100-byte chunks; the unbounded middleware read every one before deciding.
    result = _run(middleware, iter([b"x" * 100] * 10_000), [])
    assert result["read"] <= 10_000 + 100
    start, body = result["sent"]
    assert start["status"] == 413
    error = orjson.loads(body["body"])["error"]
    assert error == {
        "message": "Request body too large: the limit is 10000 bytes.",
        "type": "invalid_request_error",
        "param": None,
        "code": "request_too_large",
    }
    (recorded,) = middleware.requests
    assert recorded.truncated and recorded.body_size > 10_000


def test_a_declared_content_length_over_the_limit_is_refused_unread() -> None:
    middleware = MockMiddleware(_never_called, max_body_bytes=10_000)
    result = _run(middleware, iter([b"x" * 100] * 1000), [(b"content-length", b"500000000")])
    assert result["read"] == 0
    assert result["sent"][0]["status"] == 413
    (recorded,) = middleware.requests
    assert recorded.body == b"" and recorded.body_size == 500_000_000
    with pytest.raises(TruncatedBody, match="0 of 500000000 bytes kept"):
        recorded.json()


# --- the request log's byte budget ---------------------------------------------------------------


def _record(body: bytes) -> RecordedRequest:
    return RecordedRequest("POST", "/v1/responses", "", {}, body, 1)


def test_request_log_keeps_bodies_within_its_budget_newest_whole() -> None:
    log = RequestLog(maxlen=1000, budget=10_000)
    for i in range(100):
        log.append(_record(orjson.dumps({"i": i, "pad": "x" * 1000})))
        assert log.kept <= 10_000
        assert sum(len(r.body) for r in log) == log.kept
    records = list(log)
    assert len(records) == 100
    # The newest bodies are whole and parse; the older ones are cut to KEEP bytes, visibly.
    assert records[-1].json()["i"] == 99 and not records[-1].truncated
    assert sum(not r.truncated for r in records) >= 9
    # Cut ones keep KEEP bytes until they stand in the way; the oldest then keep none.
    cut = [r for r in records if r.truncated and r.body]
    assert cut and all(len(r.body) == RequestLog.KEEP for r in cut)
    old = records[0]
    assert old.truncated and old.body == b"" and old.body_size > 1000
    with pytest.raises(TruncatedBody, match="0 of 1016 bytes kept"):
        old.json()


def test_request_log_evictions_keep_the_byte_count_exact() -> None:
    log = RequestLog(maxlen=10, budget=5_000)
    for size in [100, 4_000, 3_000, 10, 20_000, 1, 2, 3] * 10:
        log.append(_record(b"y" * size))
        assert sum(len(r.body) for r in log) == log.kept <= 5_000
        assert len(log) <= 10
    assert list(log)[-1].body == b"yyy"


def test_the_plugin_handle_requests_stay_useful_under_a_small_budget() -> None:
    mock = InProcessMock(MockSettings(request_log_bytes=2_000))
    client = mock.client()
    for i in range(20):
        client.responses.create(model="mock", input=f"request {i} " + "pad " * 100)
    requests = mock.requests
    assert len(requests) == 20
    assert requests[-1].json()["input"].startswith("request 19 ")
    assert requests[0].truncated
    assert len(mock.generations) >= 1
    assert mock.generations[-1].hints.body_bytes == requests[-1].body_size
    mock.close()


def test_the_engines_generation_log_drops_its_oldest_beyond_the_budget() -> None:
    engine = MockEngine(request_log_bytes=10_000)
    for i in range(50):
        request = GenerationRequest(
            model="mock", messages=[], hints=EngineHints(body_bytes=3_000, attempt=i)
        )
        list(engine._chunks(request))
    assert [r.hints.attempt for r in engine.requests] == [47, 48, 49]


# --- a child process: peak RSS -------------------------------------------------------------------


def _host_port(url: str) -> tuple[str, int]:
    host, _, port = url.removeprefix("http://").rpartition(":")
    return host, int(port)


def test_a_200_mb_chunked_body_leaves_the_mocks_peak_rss_flat() -> None:
    with listening_child(["responses-mock", "--port", "0"]) as child:
        # Warm the server (imports, first request) before taking the baseline.
        httpx.post(
            child.url + "/v1/responses", json={"model": "mock", "input": "hi"}
        ).raise_for_status()
        baseline = child.peak_rss()
        sock = socket.create_connection(_host_port(child.url))
        sock.sendall(
            b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"transfer-encoding: chunked\r\n\r\n"
        )
        piece = b"%x\r\n%s\r\n" % (MiB, b"x" * MiB)
        sent = 0
        try:
            for _ in range(200):
                sock.sendall(piece)
                sent += MiB
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the mock answered 413 and closed: the point
        sock.settimeout(30)
        try:
            answer = sock.recv(65536)
        except OSError:
            answer = b""
        sock.close()
        peak = child.peak_rss()
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413"), answer[:200]
    # The limit (8 MiB) plus copies of it; the unbounded middleware held all 200 MB and more
    # (measured: 36 → 53 MB; before the bound 36 → 457 MB).
    assert peak - baseline < 6 * DEFAULT_MAX_BODY_BYTES, (baseline, peak, sent)


def test_forty_6_mb_bodies_leave_the_mocks_peak_rss_within_the_log_budget() -> None:
    with (
        listening_child(["responses-mock", "--port", "0"]) as child,
        httpx.Client(base_url=child.url, timeout=60) as client,
    ):
        client.post("/v1/responses", json={"model": "mock", "input": "hi"}).raise_for_status()
        baseline = child.peak_rss()
        body = b'{"model": "mock", "input": "' + b"a" * (6 * MiB) + b'"'  # invalid JSON: 400
        for _ in range(40):
            assert client.post("/v1/responses", content=body).status_code == 400
        peak = child.peak_rss()
    # 64 MiB of bodies kept plus one request's transient copies; unbounded: 240 MB kept
    # (measured: 36 → 131 MB; before the budget 36 → 301 MB).
    assert peak - baseline < 140 * MiB, (baseline, peak)


def test_mock_cli_takes_the_limits() -> None:
    with listening_child(
        ["responses-mock", "--port", "0", "--max-body-bytes", "1000", "--request-log-bytes", "10"]
    ) as child:
        response = httpx.post(child.url + "/v1/responses", content=b"x" * 2000)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    assert MockServer(MockSettings(max_body_bytes=5)).middleware.max_body_bytes == 5
