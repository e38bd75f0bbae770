"""One exchange over a plain HTTP/1.1 connection, its answer read by the judge's own parser
(:mod:`conformance.proxy.http1`, llhttp; docs/spec.md §4.8).

The suite's client (httpx2 over h11) reads every other answer, and refuses a broken framing as a
transport error (``live.http.status_ok``); only the judge's parser names the rule a framing
breaks, so one create a case makes this way judges the target's HTTP/1.1 framing as the proxy
judges it — head, length, chunked body — byte for byte as the target sent it.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..catalog.registry import REGISTRY, Violation
from ..proxy.http1 import (
    BODY_CHUNKED,
    BODY_LENGTH,
    HEAD_SYNTAX,
    BodyReader,
    FramingError,
    body_framing,
    parse_response_head,
)

__all__ = ["RawAnswer", "raw_exchange"]


@dataclass(slots=True)
class RawAnswer:
    status: int | None = None
    violations: list[Violation] = field(default_factory=list)
    applied: set[str] = field(default_factory=set)  # the framing checks the answer was judged by
    error: str | None = None  # why the answer could not be read to its end (no violation)


def raw_exchange(
    base_url: str, path: str, body: Any, *, api_key: str | None, timeout: float
) -> RawAnswer:
    """``POST base_url + path`` with ``body`` as JSON, the answer read to its framed end (the
    connection is closed after it)."""
    parts = urlsplit(base_url)
    secure = parts.scheme == "https"
    host = parts.hostname or "127.0.0.1"
    data = json.dumps(body).encode()
    lines = [
        f"POST {parts.path.rstrip('/')}{path} HTTP/1.1",
        f"host: {parts.netloc.rsplit('@', 1)[-1]}",
        "user-agent: responses-conformance",
        "accept-encoding: identity",
        "content-type: application/json",
        f"content-length: {len(data)}",
        "connection: close",
    ]
    if api_key:
        lines.append(f"authorization: Bearer {api_key}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data
    answer = RawAnswer()
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection(
            (host, parts.port or (443 if secure else 80)), timeout=min(timeout, 10.0)
        )
    except OSError as exc:
        answer.error = f"no connection: {exc}"
        return answer
    try:
        if secure:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        sock.sendall(request)
        _read(sock, answer, deadline)
    except FramingError as exc:
        if exc.check is None:
            answer.error = str(exc)
        else:
            check = REGISTRY[exc.check]
            answer.applied.add(check.id)
            answer.violations.append(check.violation(expected=check.requirement, actual=str(exc)))
    except (OSError, TimeoutError) as exc:
        answer.error = f"{type(exc).__name__}: {exc}"
    finally:
        sock.close()
    return answer


def _recv(sock: socket.socket, deadline: float) -> bytes:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the answer did not end in time")
    sock.settimeout(left)
    return sock.recv(65536)


def _read(sock: socket.socket, answer: RawAnswer, deadline: float) -> None:
    buffer = bytearray()
    while True:
        found = parse_response_head(buffer)
        if found is None:
            data = _recv(sock, deadline)
            if not data:
                raise OSError("the connection closed before the answer's head ended")
            buffer += data
            continue
        head, length = found
        del buffer[:length]
        if not 100 <= head.status < 200:
            break
    answer.status = head.status
    kind, size = body_framing(head.headers, request=False, status=head.status)
    answer.applied |= {HEAD_SYNTAX, BODY_LENGTH}
    reader = BodyReader(kind, size)
    data = bytes(buffer)
    while True:
        if data:
            reader.feed(data)
        if reader.done:
            break
        data = _recv(sock, deadline)
        if not data:
            reader.eof()
            break
    if kind == "chunked":
        answer.applied.add(BODY_CHUNKED)
