"""One ``POST /v1/responses`` over Locust's ``FastHttpSession``, timed as the bytes arrive.

The I/O shell around :mod:`benchmarks.responses_bench.meter`: it sends the body, reads the response body chunk by
chunk as the network delivers it, stamps each chunk with ``perf_counter`` and hands it to the meter.

Why it reads geventhttpclient's buffer itself: ``HTTPSocketResponse.read(n)`` (and so Locust's
``iter_content``) blocks until ``n`` bytes have arrived, which would stamp a 100-byte delta with the
arrival time of the deltas after it and flatten every inter-token gap. Reading whatever one
``recv`` returns keeps each event's own arrival time. The internals used (``_body_buffer``,
``_sock``, ``feed``, ``message_complete``, ``release``) are tested on a real geventhttpclient
response (tests/benchmarks/test_bench_exchange_internals.py), and the ``bench`` extra pins the
geventhttpclient versions they were written against.
"""

from __future__ import annotations

import errno
import socket
import time
from collections.abc import Mapping
from typing import Any

import gevent
from geventhttpclient import HTTPParseError
from geventhttpclient.response import HTTPConnectionClosed

from conformance.suite.coding import ContentDecoder, UndecodableBody

from .errors import BodyTooLarge, BodyTruncated
from .meter import (
    TRUNCATED,
    UNDECODABLE,
    RequestRecord,
    StreamMeter,
    measure_body,
    record_http_error,
    record_transport_error,
)
from .workload import RequestPlan

__all__ = ["send"]

_RECV = 64 * 1024
TIMEOUT = "bench.transport.timeout"
_DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
# Every status is answered by this module, not by geventhttpclient: for a status outside its
# list it reads the whole body (a 300 MB 429 body took a bench process to 2.7 GB) and then raises.
_ANY_STATUS = frozenset(range(100, 1000))


def send(
    session: Any,
    url: str,
    plan: RequestPlan,
    headers: Mapping[str, str],
    *,
    validate: bool = True,
    strict: bool = False,
    max_body_bytes: int = _DEFAULT_MAX_BODY_BYTES,
) -> RequestRecord:
    """Send ``plan`` and measure it; never raises for what the server or network does. A
    non-stream body (an error's too) is read up to ``max_body_bytes``; past that the request
    fails as ``bench.transport.too_large`` and the connection is closed unread."""
    agent = session.client
    if getattr(agent, "valid_response_codes", _ANY_STATUS) is not _ANY_STATUS:
        agent.valid_response_codes = _ANY_STATUS
    request_headers = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream" if plan.stream else "application/json",
        # A compressed stream arrives in compressor-sized blocks, not per event: ask for none.
        "Accept-Encoding": "identity",
        **headers,
    }
    start = time.time()
    t0 = time.perf_counter()
    try:
        response = session.client.urlopen(
            url, method="POST", payload=plan.body, headers=request_headers
        )
    except gevent.GreenletExit:
        raise
    except Exception as error:  # geventhttpclient raises a zoo of types; classify, never crash
        answered = getattr(error, "response", None)
        now = time.perf_counter()
        status = getattr(answered, "status_code", None)
        if isinstance(status, int) and status > 0:
            return record_http_error(
                status,
                _buffered(answered),
                stream=plan.stream,
                t0=t0,
                now=now,
                start=start,
            )
        return record_transport_error(
            _error_kind(error), stream=plan.stream, t0=t0, now=now, start=start
        )
    raw = response._response
    decoder = _decoder(response.headers.get("content-encoding"))
    status = response.status_code
    if not 200 <= status < 300:
        try:
            body = _bounded(_chunks(raw, decoder), max_body_bytes)
        except BodyTooLarge as error:
            body = error.args[0]
        except (BodyTruncated, HTTPParseError, OSError, UndecodableBody):
            body = b""
        finally:
            raw.release()  # a body not read to its end closes its connection
        return record_http_error(
            status, body, stream=plan.stream, t0=t0, now=time.perf_counter(), start=start
        )
    if not plan.stream:
        try:
            body = _bounded(_chunks(raw, decoder), max_body_bytes)
        except BodyTooLarge:
            raw.release()  # a body not read to its end closes its connection
            rec = record_transport_error(
                "too_large", stream=False, t0=t0, now=time.perf_counter(), start=start
            )
            rec.http_status = status
            rec.size = max_body_bytes
            return rec
        except UndecodableBody:
            raw.release()
            return record_transport_error(
                "undecodable", stream=False, t0=t0, now=time.perf_counter(), start=start
            )
        except (BodyTruncated, HTTPParseError, OSError):
            raw.release()
            return record_transport_error(
                "truncated", stream=False, t0=t0, now=time.perf_counter(), start=start
            )
        return measure_body(
            body,
            t0=t0,
            now=time.perf_counter(),
            start=start,
            validate=validate,
            strict=strict,
            max_output_tokens=plan.max_output_tokens,
        )
    meter = StreamMeter(
        t0=t0,
        start=start,
        validate=validate,
        strict=strict,
        max_output_tokens=plan.max_output_tokens,
    )
    cut: str | None = None
    try:
        for chunk in _chunks(raw, decoder):
            meter.feed(chunk, time.perf_counter())
    except (TimeoutError, gevent.Timeout):  # silent longer than --read-timeout
        raw.release()
        cut = TIMEOUT
    except UndecodableBody:
        raw.release()
        cut = UNDECODABLE
    except (BodyTruncated, HTTPParseError, OSError):
        raw.release()
        cut = TRUNCATED
    rec = meter.finish(time.perf_counter(), transport_error=cut)
    rec.http_status = response.status_code
    return rec


def _bounded(chunks: Any, limit: int) -> bytes:
    """The chunks joined, or :class:`BodyTooLarge` with the first ``limit`` bytes once they pass it."""
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise BodyTooLarge(bytes(data[:limit]))
    return bytes(data)


def _chunks(raw: Any, decoder: Any) -> Any:
    """Body bytes as they arrive (see the module docstring for why not ``raw.read``)."""
    buffer = raw._body_buffer
    while True:
        if buffer:
            data = bytes(buffer)
            del buffer[:]
            if decoder is None:
                yield data
            else:
                yield from decoder.feed(data)
            continue
        if raw.message_complete:
            if decoder is not None:
                yield from decoder.flush()
            return
        sock = raw._sock
        if sock is None:
            raise BodyTruncated("the connection was released before the end of the body")
        data = sock.recv(_RECV)
        if not data:
            raise BodyTruncated("the server closed the connection before the end of the body")
        raw.feed(data)  # may complete the message, which returns the socket to the pool


def _decoder(encoding: Any) -> ContentDecoder | None:
    """The suite's decoder (conformance.suite.coding: gzip and deflate, a bounded piece at a
    time); ``None`` for identity, and for a coding the bench did not ask for (it sends
    ``Accept-Encoding: identity``): those bytes go to the judge as they are, undecoded."""
    if not isinstance(encoding, str):
        return None
    try:
        decoder = ContentDecoder(encoding)
    except UndecodableBody:
        return None
    return None if decoder.coding == "identity" else decoder


def _buffered(response: Any) -> bytes:
    """The part of an error body already received (geventhttpclient released the socket)."""
    raw = getattr(response, "_response", None)
    buffer = getattr(raw, "_body_buffer", None)
    return bytes(buffer) if buffer else b""


def _error_kind(error: BaseException) -> str:
    original = getattr(error, "original", None)  # RetriesExceeded wraps the cause
    if isinstance(original, BaseException):
        error = original
    if isinstance(error, socket.timeout | gevent.Timeout | TimeoutError):
        return "timeout"
    if isinstance(error, ConnectionRefusedError):
        return "refused"
    if isinstance(error, ConnectionResetError | HTTPConnectionClosed | BrokenPipeError):
        return "closed"
    if isinstance(error, HTTPParseError):
        return "protocol"
    if isinstance(error, socket.gaierror):
        return "dns"
    if isinstance(error, OSError) and error.errno == errno.ECONNREFUSED:
        return "refused"
    return "error"
