"""HTTP/1.1 framing for the proxy's byte-forwarding transport, sans I/O: request and response
heads, and the body framings (RFC 9112 §6) the proxy must follow to forward a body unchanged while
the judge reads it.

Heads and chunked bodies are parsed by llhttp (``httptools``), strictly: a chunk-size line
``0x5``, ``+5``, `` 5`` or ending in a bare LF, a header name with NUL, ``(`` or TAB, two
``Content-Length`` fields, ``Content-Length`` beside ``Transfer-Encoding`` — each is refused, as
h11 and llhttp refuse them, never read leniently and relayed (the disagreements request
smuggling is made of). Such a violation is a :class:`FramingError` naming its check
(docs/spec.md §4.8: ``http.head.syntax``, ``http.body.length``, ``http.body.chunked``).

The proxy relays a streamed answer's bytes as they come, framing included; :class:`BodyReader`
tells where that body ends (so the connection can be kept) and hands the judge the body's bytes
(the chunked framing taken off). llhttp reports no offsets, so the end of a chunked body is found
where it can only be, after a CRLF CRLF: each read is fed up to each such place, and the body is
complete there or not at all. Every limit is explicit: a head over :data:`MAX_HEAD` bytes, a
chunk line over :data:`MAX_LINE`, malformed framing — each is a :class:`FramingError` with a
one-line reason, never a hang.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import httptools

from ..errors import ConformanceError

__all__ = [
    "BODY_CHUNKED",
    "BODY_LENGTH",
    "HEAD_SYNTAX",
    "MAX_HEAD",
    "BodyReader",
    "FramingError",
    "RequestHead",
    "ResponseHead",
    "body_framing",
    "error_bytes",
    "head_bytes",
    "parse_request_head",
    "parse_response_head",
    "status_line",
]

MAX_HEAD = 64 * 1024
MAX_LINE = 4096
Headers = list[tuple[bytes, bytes]]

# The checks a framing violation breaks (conformance/sections/s4_8_http_framing.py registers them)
HEAD_SYNTAX = "http.head.syntax"
BODY_LENGTH = "http.body.length"
BODY_CHUNKED = "http.body.chunked"


class FramingError(ConformanceError, ValueError):
    """Bytes that are not HTTP/1.1 (a one-line reason). ``check``: the ID of the check they
    violate (None: a limit of the proxy's, or a coding it does not read — no violation). From
    :meth:`BodyReader.feed`: the body bytes read before the fault (``partial``), and whether the
    read began between two chunks (``clean``: the client's copy can still be ended there)."""

    partial = b""
    clean = False

    def __init__(self, message: str, check: str | None = None) -> None:
        super().__init__(message)
        self.check = check


def _keep_alive(version: bytes, connection: bytes | None) -> bool:
    """Persistent connection (RFC 9112 §9.3): HTTP/1.0 only with ``keep-alive``, 1.1 unless
    ``close``."""
    tokens = _tokens(connection)
    if version == b"HTTP/1.0":
        return b"keep-alive" in tokens
    return b"close" not in tokens


@dataclass(slots=True)
class RequestHead:
    method: str
    target: str  # as sent: path and query
    version: bytes  # b"HTTP/1.1" or b"HTTP/1.0"
    headers: Headers  # names as sent
    raw: bytes  # the head's bytes, up to and including the blank line

    def get(self, name: bytes) -> bytes | None:
        return _get(self.headers, name)

    @property
    def keep_alive(self) -> bool:
        return _keep_alive(self.version, self.get(b"connection"))

    @property
    def websocket(self) -> bool:
        upgrade = (self.get(b"upgrade") or b"").strip().lower()
        return upgrade == b"websocket" and b"upgrade" in _tokens(self.get(b"connection"))


@dataclass(slots=True)
class ResponseHead:
    status: int
    version: bytes
    headers: Headers

    def get(self, name: bytes) -> bytes | None:
        return _get(self.headers, name)

    @property
    def keep_alive(self) -> bool:
        return _keep_alive(self.version, self.get(b"connection"))


def _get(headers: Headers, name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def _tokens(value: bytes | None) -> set[bytes]:
    return {t.strip().lower() for t in (value or b"").split(b",")}


@dataclass(slots=True)
class _Head:
    """llhttp's callbacks while it reads one head."""

    headers: Headers = field(default_factory=list)
    url: bytes = b""
    done: bool = False

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.done = True


def _head(buffer: bytes | bytearray, *, request: bool) -> tuple[_Head, Any, int, int] | None:
    """llhttp's reading of the head at the start of ``buffer``: its callbacks, the parser, where
    the head starts (after the empty lines RFC 9112 §2.2 lets a request follow) and its length;
    None while incomplete. Only the head is fed: what follows is the body's."""
    start = 0
    if request:
        while buffer[start : start + 2] == b"\r\n":
            start += 2
    end = buffer.find(b"\r\n\r\n", start)
    if end < 0 or end + 4 > MAX_HEAD:
        if len(buffer) > MAX_HEAD:
            raise FramingError(f"a message head over {MAX_HEAD} bytes")
        return None
    length = end + 4
    head = _Head()
    parser = (httptools.HttpRequestParser if request else httptools.HttpResponseParser)(head)
    try:
        parser.feed_data(bytes(buffer[:length]))
    except httptools.HttpParserUpgrade:
        pass  # a WebSocket upgrade: the head is whole, what follows is not HTTP
    except httptools.HttpParserError as exc:
        reason = str(exc)
        # llhttp's reasons name the field whose framing rule was broken (RFC 9112 §6.3)
        check = (
            BODY_LENGTH
            if "Content-Length" in reason or "Transfer-Encoding" in reason
            else HEAD_SYNTAX
        )
        raise FramingError(reason, check) from None
    if not head.done:  # llhttp ends a head only at CRLF CRLF: not expected, but not assumed
        raise FramingError("the head does not end at its blank line", HEAD_SYNTAX)
    version = parser.get_http_version()
    if version not in ("1.1", "1.0"):
        raise FramingError(f"HTTP/{version} is not HTTP/1.1", HEAD_SYNTAX)
    return head, parser, start, length


def parse_request_head(buffer: bytes | bytearray) -> tuple[RequestHead, int] | None:
    """The request head at the start of ``buffer`` and its length; None while incomplete."""
    found = _head(buffer, request=True)
    if found is None:
        return None
    head, parser, start, length = found
    line = bytes(buffer[start : buffer.find(b"\r\n", start)])
    if line.count(b" ") != 2:  # llhttp takes runs of spaces; RFC 9112 §3 has one SP each
        raise FramingError(f"not an HTTP/1.1 request line: {line[:80]!r}", HEAD_SYNTAX)
    version = b"HTTP/" + parser.get_http_version().encode()
    method = parser.get_method().decode("ascii")
    request = RequestHead(method, head.url.decode("latin-1"), version, head.headers,
                          bytes(buffer[:length]))  # fmt: skip
    return request, length


def parse_response_head(buffer: bytes | bytearray) -> tuple[ResponseHead, int] | None:
    """The response head at the start of ``buffer`` and its length; None while incomplete."""
    found = _head(buffer, request=False)
    if found is None:
        return None
    head, parser, _, length = found
    version = b"HTTP/" + parser.get_http_version().encode()
    return ResponseHead(parser.get_status_code(), version, head.headers), length


def body_framing(headers: Headers, *, request: bool, status: int = 0, head: bool = False) -> tuple[str, int]:  # fmt: skip
    """How a body is delimited: ``("length", n)``, ``("chunked", 0)``, ``("close", 0)`` (a
    response read to the connection's end) or ``("none", 0)``. The head was read by llhttp:
    one ``Content-Length`` of digits, and never with ``Transfer-Encoding``."""
    if not request and (head or status in (204, 304) or 100 <= status < 200):
        return "none", 0
    fields = [v for k, v in headers if k.lower() == b"transfer-encoding"]
    if fields:  # several fields are one list (RFC 9110 §5.3)
        coding = b", ".join(fields)
        codings = [c for c in (t.strip().lower() for t in coding.split(b",")) if c]
        if codings.count(b"chunked") > 1:  # RFC 9112 §6.1: chunked at most once
            raise FramingError(f"chunked applied twice: {coding[:40]!r}", BODY_LENGTH)
        if codings != [b"chunked"]:  # valid HTTP, but no coding the proxy reads
            raise FramingError(f"an unsupported transfer-encoding {coding[:40]!r}")
        return "chunked", 0
    value = _get(headers, b"content-length")
    if value is not None:
        return "length", int(value)
    return ("none", 0) if request else ("close", 0)


_CHUNKED = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"  # a head for llhttp's body


class BodyReader:
    """One body in any chunking: :meth:`feed` the wire bytes, get the body's bytes back (the
    chunked framing removed), and the bytes past the body's end in :attr:`rest`."""

    __slots__ = (
        "_broken",
        "_idle",
        "_in_chunk",
        "_left",
        "_moved",
        "_parser",
        "_parts",
        "_tail",
        "done",
        "kind",
        "rest",
    )  # fmt: skip

    def __init__(self, kind: str, length: int = 0) -> None:
        self.kind = kind
        self.done = kind == "none" or (kind == "length" and length == 0)
        self.rest = b""
        self._left = length
        self._parts: list[bytes] = []
        self._in_chunk = False
        self._moved = False
        self._idle = 0  # bytes read with no chunk begun, ended or read: one line's, or trailers
        self._tail = b"\r\n"  # the last bytes read (the head ended in CRLF)
        self._broken: bool | None = None
        self._parser: Any = None
        if kind == "chunked":  # a parser of its own, past a head of its own: no header kept
            self._parser = httptools.HttpResponseParser(self)
            self._parser.feed_data(_CHUNKED)

    # llhttp's callbacks (a chunk's size line read, its data, its CRLF read, the trailers' end)

    def on_chunk_header(self) -> None:
        self._in_chunk = self._moved = True

    def on_body(self, body: bytes) -> None:
        self._parts.append(body)
        self._moved = True

    def on_chunk_complete(self) -> None:
        self._in_chunk = False
        self._moved = True

    def on_message_complete(self) -> None:
        self.done = True

    @property
    def at_boundary(self) -> bool:
        """Between two chunks of a chunked body: a terminating chunk may be written here."""
        if self._broken is not None:
            return self._broken
        return self.kind == "chunked" and not self._in_chunk and not self.done and self._tail.endswith(b"\r\n")  # fmt: skip

    def feed(self, data: bytes) -> bytes:
        if self.done:
            self.rest += data
            return b""
        if self.kind == "close":
            return data
        if self.kind == "length":
            if len(data) < self._left:
                self._left -= len(data)
                return data
            body, self.rest = data[: self._left], data[self._left :]
            self._left = 0
            self.done = True
            return body
        return self._chunked(data)

    def eof(self) -> None:
        """The connection ended: fine for a close-delimited body, else a truncated one."""
        if not self.done and self.kind != "close":
            raise FramingError("the connection closed before the body's end")
        self.done = True

    def _chunked(self, data: bytes) -> bytes:
        parts: list[bytes] = []
        self._parts = parts
        tail, was = self._tail, self._in_chunk  # where the read began (``clean``, on a fault)
        first = data[:1]
        across = (first == b"\r" or first == b"\n") and (tail + data[:3]).find(b"\r\n\r\n") >= 0
        i = data.find(b"\r\n\r\n")
        try:
            if i < 0 and not across:  # the body cannot end in this read: the common case
                self._moved = False
                self._parser.feed_data(data)
                if self._moved:
                    self._idle = 0
                else:
                    self._step_idle(len(data))
            else:
                self._pieces(data, tail, i)
        except (httptools.HttpParserError, FramingError) as exc:
            clean = not was and tail.endswith(b"\r\n")
            error = exc if isinstance(exc, FramingError) else FramingError(
                f"a malformed chunked body: {exc}", BODY_CHUNKED
            )  # fmt: skip
            error.partial, error.clean = b"".join(parts), clean
            self._broken = clean
            raise error from None
        self._tail = data[-3:] if len(data) >= 3 else (tail + data)[-3:]
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _pieces(self, data: bytes, tail: bytes, i: int) -> None:
        """A read the body may end in: fed up to each CRLF CRLF, until the body has ended."""
        ends = []
        if (j := (tail + data[:3]).find(b"\r\n\r\n")) >= 0:  # one across the last read
            ends.append(j + 4 - len(tail))
        while i >= 0:
            ends.append(i + 4)
            i = data.find(b"\r\n\r\n", i + 1)
        feed = self._parser.feed_data
        view, at = memoryview(data), 0
        for end in [*sorted(set(ends)), len(data)]:
            if end <= at:
                continue
            self._moved = False
            feed(view[at:end])
            if self._moved:
                self._idle = 0
            else:
                self._step_idle(end - at)
            at = end
            if self.done:
                self.rest = data[end:]
                return

    def _step_idle(self, size: int) -> None:
        """Bytes that began, ended or carried no chunk: a size line's, an extension's or the
        trailers' — bounded, as a line is (llhttp keeps none of them)."""
        self._idle += size
        if self._idle > MAX_LINE:
            raise FramingError(f"a chunk line or trailer over {MAX_LINE} bytes")


def error_bytes(status: int, message: str, code: str, *, close: bool = False) -> bytes:
    body = json.dumps(
        {"error": {"message": message, "type": "proxy_error", "param": None, "code": code}}
    ).encode()
    head = status_line(status) + b"content-type: application/json\r\n"
    head += b"content-length: %d\r\n" % len(body)
    if close:
        head += b"connection: close\r\n"
    return head + b"\r\n" + body


def status_line(status: int) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase.encode()
    except ValueError:
        phrase = b""
    return b"HTTP/1.1 %d %s\r\n" % (status, phrase)


def head_bytes(status: int, headers: list[tuple[bytes, bytes]], *, close: bool = False) -> bytes:
    lines = [status_line(status)]
    lines += [b"%s: %s\r\n" % (k, v) for k, v in headers]
    if close and not any(k.lower() == b"connection" for k, _ in headers):
        lines.append(b"connection: close\r\n")
    lines.append(b"\r\n")
    return b"".join(lines)
