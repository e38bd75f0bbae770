"""HTTP/1.1 framing for the proxy's byte-forwarding transport, sans I/O: request and response
heads, and the body framings (RFC 9112 §6) the proxy must follow to forward a body unchanged while
the judge reads it.

The proxy relays a streamed answer's bytes as they come, framing included; :class:`BodyReader`
tells where that body ends (so the connection can be kept) and hands the judge the body's bytes
(the chunked framing taken off). Every limit is explicit: a head over :data:`MAX_HEAD` bytes, a
chunk-size line over :data:`MAX_LINE`, malformed framing — each is a :class:`FramingError` with a
one-line reason, never a hang.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus

from ..errors import ConformanceError

__all__ = [
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


class FramingError(ConformanceError, ValueError):
    """Bytes that are not HTTP/1.1 (a one-line reason). From :meth:`BodyReader.feed`: the body
    bytes read before the fault (``partial``) and the wire bytes they came in (``consumed``)."""

    partial = b""
    consumed = 0


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


def _head_lines(buffer: bytes | bytearray) -> tuple[list[bytes], int] | None:
    """The head's lines and its length, once the blank line is in ``buffer``."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        if len(buffer) > MAX_HEAD:
            raise FramingError(f"a message head over {MAX_HEAD} bytes")
        return None
    if end > MAX_HEAD:
        raise FramingError(f"a message head over {MAX_HEAD} bytes")
    return bytes(buffer[:end]).split(b"\r\n"), end + 4


def _headers(lines: list[bytes]) -> Headers:
    headers: Headers = []
    for line in lines:
        if line[:1] in (b" ", b"\t"):
            raise FramingError("an obsolete folded header line")
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip() or b" " in name:
            raise FramingError(f"a malformed header line {line[:80]!r}")
        headers.append((name, value.strip()))
    return headers


def parse_request_head(buffer: bytes | bytearray) -> tuple[RequestHead, int] | None:
    """The request head at the start of ``buffer`` and its length; None while incomplete."""
    found = _head_lines(buffer)
    if found is None:
        return None
    lines, length = found
    while lines and not lines[0]:  # RFC 9112 §2.2: empty lines before a request line
        lines.pop(0)
    parts = lines[0].split(b" ") if lines else []
    if len(parts) != 3 or parts[2] not in (b"HTTP/1.1", b"HTTP/1.0") or not parts[1]:
        raise FramingError(f"not an HTTP/1.1 request line: {(lines or [b''])[0][:80]!r}")
    method, target, version = parts
    if not method.isalpha() or not method.isupper():
        raise FramingError(f"a malformed method {method[:20]!r}")
    head = RequestHead(
        method.decode("ascii"), target.decode("latin-1"), version, _headers(lines[1:]),
        bytes(buffer[:length]),
    )  # fmt: skip
    return head, length


def parse_response_head(buffer: bytes | bytearray) -> tuple[ResponseHead, int] | None:
    """The response head at the start of ``buffer`` and its length; None while incomplete."""
    found = _head_lines(buffer)
    if found is None:
        return None
    lines, length = found
    version, _, rest = lines[0].partition(b" ")
    code = rest[:3]
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or not code.isdigit() or rest[3:4] not in (
        b"", b" "
    ):  # fmt: skip
        raise FramingError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    return ResponseHead(int(code), version, _headers(lines[1:])), length


def body_framing(headers: Headers, *, request: bool, status: int = 0, head: bool = False) -> tuple[str, int]:  # fmt: skip
    """How a body is delimited: ``("length", n)``, ``("chunked", 0)``, ``("close", 0)`` (a
    response read to the connection's end) or ``("none", 0)``."""
    if not request and (head or status in (204, 304) or 100 <= status < 200):
        return "none", 0
    coding = _get(headers, b"transfer-encoding")
    if coding is not None:
        codings = [c for c in _tokens(coding) if c]
        if codings[-1:] != [b"chunked"] or len(codings) != 1:
            raise FramingError(f"an unsupported transfer-encoding {coding[:40]!r}")
        return "chunked", 0
    lengths = {v.strip() for k, v in headers if k.lower() == b"content-length"}
    if lengths:
        value = lengths.pop()
        if lengths or not value.isdigit():
            raise FramingError("a malformed content-length")
        return "length", int(value)
    return ("none", 0) if request else ("close", 0)


class BodyReader:
    """One body in any chunking: :meth:`feed` the wire bytes, get the body's bytes back (the
    chunked framing removed), and the bytes past the body's end in :attr:`rest`."""

    __slots__ = ("_at", "_left", "_line", "_state", "done", "kind", "rest")

    def __init__(self, kind: str, length: int = 0) -> None:
        self.kind = kind
        self.done = kind == "none" or (kind == "length" and length == 0)
        self.rest = b""
        self._left = length
        self._line = bytearray()
        self._state = "size"  # chunked: size | data | data_crlf | trailer
        self._at = 0

    @property
    def at_boundary(self) -> bool:
        """Between two chunks of a chunked body: a terminating chunk may be written here."""
        return self.kind == "chunked" and self._state == "size" and not self._line and not self.done

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
        if self._state == "size" and not self._line:
            fast = self._whole_chunks(data)
            if fast is not None:
                return fast
        out = bytearray()
        try:
            i = self._slow(data, out, 0)
        except FramingError as exc:
            exc.partial, exc.consumed = bytes(out), self._at
            raise
        if self.done:
            self.rest = data[i:]
        return bytes(out)

    def _slow(self, data: bytes, out: bytearray, i: int) -> int:
        n = len(data)
        self._at = i  # where the current line started (the last good byte, on a fault)
        while i < n and not self.done:
            if self._state == "data":
                take = min(self._left, n - i)
                out += data[i : i + take]
                i += take
                self._at = i
                self._left -= take
                if self._left == 0:
                    self._state = "data_crlf"
                continue
            j = data.find(b"\n", i)
            if j < 0:
                self._line += data[i:]
                if len(self._line) > MAX_LINE:
                    raise FramingError("a chunk line over 4096 bytes")
                break
            self._line += data[i:j]
            i = j + 1
            line = bytes(self._line).rstrip(b"\r")
            self._line.clear()
            if self._state == "data_crlf":
                if line:
                    raise FramingError("a chunk not followed by CRLF")
                self._state = "size"
            elif self._state == "size":
                size = line.split(b";", 1)[0].strip()
                try:
                    self._left = int(size, 16)
                except ValueError:
                    raise FramingError(f"a malformed chunk size {size[:20]!r}") from None
                if self._left < 0:
                    raise FramingError(f"a malformed chunk size {size[:20]!r}")
                self._state = "trailer" if self._left == 0 else "data"
            elif not line:  # the trailer section's end
                self.done = True
            self._at = i
        return i

    def _whole_chunks(self, data: bytes) -> bytes | None:
        """The common case, on a chunk boundary: ``data`` is whole chunks (a server flushes an
        event per chunk). None when it is not; the general parser then reads it."""
        find = data.find
        parts = []
        i, n = 0, len(data)
        while i < n:
            j = find(b"\r\n", i, i + 18)
            if j < 0:
                return None
            try:
                size = int(data[i:j], 16)  # no chunk extensions here: those take the slow path
            except ValueError:
                return None
            end = j + 2 + size
            if size == 0 or end + 2 > n or data[end : end + 2] != b"\r\n":
                return None
            parts.append(data[j + 2 : end])
            i = end + 2
        return parts[0] if len(parts) == 1 else b"".join(parts)


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
