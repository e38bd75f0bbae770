"""A target's ``Content-Encoding``, decoded in bounded pieces.

The suite reads every body raw and decodes it here, not through the HTTP client's own decoders:
those turn one compressed read into all it expands to at once, and a target is a peer. 317 bytes of
brotli are 200 MiB of zeros, and one 64 KiB read of deflate can be 64 MiB, before any cap on the
body is looked at. Here no piece is larger than ``piece`` bytes however the input expands, so the
caps downstream (the body limit, the stream decoder's bound on one event and on the event count)
hold on what the body decodes to.

The suite asks for :data:`ACCEPT_ENCODING` (the codings decoded here: ``gzip`` and ``deflate``);
a body in any other coding (``br``, ``zstd``, ``compress``, a chain of several) was not asked for
and is :class:`UndecodableBody`, as is one whose bytes do not decode.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from ..errors import ConformanceError

__all__ = ["ACCEPT_ENCODING", "DEFAULT_PIECE_BYTES", "ContentDecoder", "UndecodableBody"]

ACCEPT_ENCODING = "gzip, deflate"
DEFAULT_PIECE_BYTES = 1024 * 1024
_GZIP = frozenset({"gzip", "x-gzip"})


class UndecodableBody(ConformanceError):
    """The body's coding was not asked for, or its bytes do not decode; the message says which."""


class ContentDecoder:
    """Decodes one body, fed as it arrives: :meth:`feed` each raw read, then :meth:`flush`; both
    yield the decoded bytes in pieces of at most ``piece`` bytes."""

    def __init__(self, content_encoding: str | None, *, piece: int = DEFAULT_PIECE_BYTES) -> None:
        if piece < 1:
            raise ValueError("piece must be at least 1 byte")
        self._piece = piece
        codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
        codings = [c for c in codings if c and c != "identity"]
        self.coding = ", ".join(codings) or "identity"
        self._state: zlib._Decompress | None = None
        self._fed = False
        # deflate's first bytes, until there are two to tell zlib from raw; None once told
        self._head: bytes | None = None
        if not codings:
            return
        if len(codings) > 1 or codings[0] not in _GZIP | {"deflate"}:
            raise UndecodableBody(
                f"Content-Encoding {self.coding!r} was not asked for "
                f"(Accept-Encoding: {ACCEPT_ENCODING})"
            )
        deflate = codings[0] == "deflate"
        self._state = zlib.decompressobj(zlib.MAX_WBITS if deflate else 16 + zlib.MAX_WBITS)
        self._head = b"" if deflate else None

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._state is None:
            for start in range(0, len(data), self._piece):
                yield data[start : start + self._piece]
            return
        if not data:
            return
        if self._head is not None:
            # HTTP's "deflate" is the zlib format; some servers send the raw deflate stream
            # instead (as browsers and httpx accept): told apart by the 2-byte zlib header, so
            # the first bytes wait until there are two of them.
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, None
            probe = zlib.decompressobj(zlib.MAX_WBITS)
            try:
                probe.decompress(data[:2], 1)
            except zlib.error:
                self._state = zlib.decompressobj(-zlib.MAX_WBITS)
        yield from self._drain(data)

    def flush(self) -> Iterator[bytes]:
        if self._state is None:
            return
        if self._head:  # one byte of deflate, and nothing after it
            data, self._head = self._head, None
            yield from self._drain(data)
        # All input went in through max_length-bounded calls; what is still pending is read out
        # the same way, never by flush()'s unbounded one.
        yield from self._drain(b"")
        if self._fed and not self._state.eof:
            raise UndecodableBody(f"the {self.coding} body ends before its coded stream does")

    # ------------------------------------------------------------------ internals

    def _drain(self, data: bytes) -> Iterator[bytes]:
        assert self._state is not None
        self._fed = self._fed or bool(data)
        # Bounded as it is made, not measured after: each call gives at most one piece, the
        # input it could not take yet waits in unconsumed_tail for the next call.
        while True:
            try:
                out = self._state.decompress(data, self._piece)
            except zlib.error as exc:
                raise UndecodableBody(f"the {self.coding} body does not decode: {exc}") from None
            if out:
                yield out
            data = self._state.unconsumed_tail
            if not data and len(out) < self._piece:
                return
