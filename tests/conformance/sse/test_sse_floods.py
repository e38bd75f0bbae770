"""The SSE decoder stays linear under floods: comment (keep-alive) lines, blank lines and
both between events, counted as bytes the decoder's scans and regular expressions look at — not wall
time. Before the fix every comment or blank line that left the state clean re-scanned (and copied)
everything up to the last blank line of the chunk, so a chunk of n such lines cost O(n²)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.sse import SSEDecoder, decode_sse
from conformance.sse import decoder as sse  # the module that holds the patterns


class _Work:
    bytes: int = 0


def _line_end(buf: bytes, pos: int, lines: int) -> int:
    """Offset just past the ``lines``-th line end from ``pos`` (what an anchored pattern whose
    groups stop at a line end can look at before it fails)."""
    for _ in range(lines):
        found = bytes.find(buf, b"\n", pos)
        if found < 0:
            return len(buf)
        pos = found + 1
    return pos


class _CountingBuffer(bytes):
    """A buffer whose scans and slices add the bytes they look at to ``_Work``."""

    def rfind(self, sub: Any, start: Any = None, end: Any = None) -> int:
        lo = 0 if start is None else start
        hi = len(self) if end is None else end
        found = bytes.rfind(self, sub, lo, hi)
        _Work.bytes += hi - (found if found >= 0 else lo)
        return found

    def find(self, sub: Any, start: Any = None, end: Any = None) -> int:
        lo = 0 if start is None else start
        hi = len(self) if end is None else end
        found = bytes.find(self, sub, lo, hi)
        _Work.bytes += (found + 1 if found >= 0 else hi) - lo
        return found

    def __getitem__(self, key: Any) -> Any:
        item = bytes.__getitem__(self, key)
        if isinstance(key, slice):
            _Work.bytes += len(item)
        return item


class _CountingPattern:
    """A compiled pattern whose calls add the span they may examine to ``_Work``."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self._pattern = pattern

    def _span(self, args: tuple[Any, ...]) -> tuple[bytes, int, int]:
        buf = args[0]
        pos = args[1] if len(args) > 1 else 0
        end = args[2] if len(args) > 2 else len(buf)
        return buf, pos, end

    def fullmatch(self, *args: Any) -> Any:
        _, pos, end = self._span(args)
        _Work.bytes += end - pos
        return self._pattern.fullmatch(*args)

    def findall(self, *args: Any) -> Any:
        _, pos, end = self._span(args)
        _Work.bytes += end - pos
        return self._pattern.findall(*args)

    def split(self, string: bytes) -> Any:
        _Work.bytes += len(string)
        return self._pattern.split(string)

    def match(self, *args: Any) -> Any:
        buf, pos, end = self._span(args)
        m = self._pattern.match(*args)
        # Anchored: a match looks at what it matched; a miss at most at one block's two lines.
        _Work.bytes += (m.end() - pos) if m is not None else min(end, _line_end(buf, pos, 2)) - pos
        return m


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[_Work]:
    for name in ("_COMMON_BLOCK", "_EVENT_RUN", "_EVENT_BLOCK", "_CANONICAL_BLOCK"):
        monkeypatch.setattr(sse, name, _CountingPattern(getattr(sse, name)))
    _Work.bytes = 0
    return _Work


BLOCK = b'event: response.output_text.delta\ndata: {"delta":"x"}\n\n'
FLOODS = {
    "comments": b": keep-alive\n",
    "blank-lines": b"\n",
    "comments-between-events": BLOCK + b": keep-alive\n",
    "blank-lines-between-events": BLOCK + b"\n",
    "comment-blocks-between-events": BLOCK + b": ping\n\n",
}


@pytest.mark.parametrize("unit", FLOODS.values(), ids=FLOODS.keys())
def test_one_chunk_flood_costs_linear_work(counted: type[_Work], unit: bytes) -> None:
    lines = 4000
    buf = _CountingBuffer(unit * lines)
    decoder = SSEDecoder()
    records = decoder._interpret(buf, len(buf))
    assert len(records) == (lines if unit.startswith(b"event") else 0)
    if unit.endswith(b"keep-alive\n") or unit.endswith(b"ping\n\n"):
        assert decoder.comments == lines
    # Generous: a linear decoder looks at each byte a few times; the quadratic one ~lines/2 times.
    assert counted.bytes <= 20 * len(buf), f"{counted.bytes / len(buf):.0f} × the input"


def test_flood_events_are_unchanged() -> None:
    """The fix keeps the events and their order: comments and blank lines between blocks vanish."""
    for unit in FLOODS.values():
        events = decode_sse(unit * 50 + BLOCK.replace(b"x", b"last"))
        expected = 50 if unit.startswith(b"event") else 0
        assert [e.data for e in events] == ['{"delta":"x"}'] * expected + ['{"delta":"last"}']
        assert [e.index for e in events] == list(range(expected + 1))


class _CountingBytearray(bytearray):
    """The decoder's partial-line buffer, counting the bytes that enter it, are copied out of it
    or are sliced from it (what a join per chunk of a long line would copy again and again)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        _Work.bytes += len(self)

    def __iadd__(self, other: Any) -> _CountingBytearray:  # type: ignore[override]
        _Work.bytes += len(other)
        return super().__iadd__(other)  # type: ignore[return-value]

    def __add__(self, other: Any) -> _CountingBytearray:  # type: ignore[override]
        _Work.bytes += len(self) + len(other)
        return _CountingBytearray(bytearray(self) + other)

    def __bytes__(self) -> bytes:
        _Work.bytes += len(self)
        return bytes(memoryview(self))

    def __getitem__(self, key: Any) -> Any:
        item = bytearray.__getitem__(self, key)
        if isinstance(key, slice):
            _Work.bytes += len(item)
        return item


@pytest.mark.parametrize("chunk", [1024, 64 * 1024], ids=["1KiB-reads", "64KiB-reads"])
@pytest.mark.parametrize("field", [b"data: ", b"event: ", b": "], ids=["data", "event", "comment"])
def test_long_line_in_many_reads_costs_linear_work(
    monkeypatch: pytest.MonkeyPatch, chunk: int, field: bytes
) -> None:
    """One long line read in many chunks (a big event's ``data:`` line, the scaling benchmark's
    ``decoder.long_field_1k_chunks``): the partial line takes each chunk once and the line is
    ended where it lies, so the bytes its buffer takes in and gives out grow with the line, not
    with the line times the chunks. A decoder that joined the partial line to every chunk, or
    rebuilt it per chunk, copies ~chunks/2 × the line."""
    monkeypatch.setattr(sse, "bytearray", _CountingBytearray, raising=False)
    counted = {}
    for size in (100_000, 1_000_000):
        line = field + b"x" * size
        stream = line + b"\n\ndata: after\n\n"
        decoder = SSEDecoder(max_event_bytes=1 << 30)
        _Work.bytes = 0
        events = []
        for start in range(0, len(stream), chunk):
            events += decoder.feed(stream[start : start + chunk])
        events += decoder.close()
        if field == b"data: ":
            assert [len(e.data) for e in events] == [size, len("after")]
        elif field == b"event: ":
            assert [e.data for e in events] == ["after"]
        else:
            assert decoder.comments == 1 and [e.data for e in events] == ["after"]
        counted[size] = _Work.bytes
        assert _Work.bytes <= 3 * len(stream), f"{_Work.bytes / len(stream):.1f} × the input"
    assert counted[100_000] > 0
    assert counted[1_000_000] <= 15 * counted[100_000]
