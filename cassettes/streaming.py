"""Redaction of a stream as it passes, in a bounded window (issue #39 item 3): what
:func:`cassettes.secrets.redact_exchange` does over a whole exchange, done chunk by chunk (or frame
by frame) so that a recorder writes a large exchange to disk as it arrives instead of holding it.

:class:`BodyStream` takes a response body's chunks and gives them back redacted, each whole (a
chunk stays one chunk, its bytes untouched unless a secret was in them), once enough text follows
it: a chunk leaves the window when at least :func:`lookahead` characters came after it (so every
form of a secret that touches it, split across chunks or not, is seen whole), when no replacement
spans its end, and preferably when the SSE events it overlaps are complete (so an event's JSON is
re-serialized in one pass). The text just written (:func:`lookahead` characters of it) stays as
context: a secret split across the ``delta`` strings of consecutive events is found across the
cut, and only the share of it after the cut is replaced there.

A body that begins as a JSON document (``{`` or ``[``) is held whole up to :data:`HOLD` bytes and
redacted as one value, as before; past that, and for any single SSE event larger than the window,
the text is redacted by form (every form of every secret and every 8-character piece of one,
also across chunks), not by JSON value.

The bound, stated: memory per exchange is a window of body text, usually about
``2 * lookahead + STEP`` characters (some 400 KiB) and never more than :data:`HOLD` (1 MiB) plus
one chunk, whatever the body's size. What the whole-exchange redaction found
and this does not: a piece shorter than 8 characters of a secret split across JSON strings whose
other pieces arrive more than a window away (far beyond any event of a real stream).

:class:`FrameStream` does the same for a WebSocket connection's frames (each frame a unit).
"""

from __future__ import annotations

import threading

from cassettes.model import Chunk, Frame
from cassettes.redaction import REDACTED, Redactor
from cassettes.secrets import _json_edits, _redact_frames, splice

__all__ = ["HOLD", "STEP", "WINDOW", "BodyStream", "FrameStream", "lookahead"]

WINDOW = 64 * 1024
"""The least text (characters) kept on each side of a cut."""
STEP = 256 * 1024
"""How much more text (bytes) a window takes before it is redacted again."""
HOLD = 1024 * 1024
"""A window grows past this (bytes) only by a chunk: then it is cut wherever the lookahead allows."""


def lookahead(redactor: Redactor) -> int:
    """The text kept after a chunk before it leaves the window (and before it as context)."""
    return max(WINDOW, 2 * redactor.longest)


class BodyStream:
    """One body's chunks in, the same chunks redacted out (see the module docstring)."""

    def __init__(self, redactor: Redactor, lock: threading.Lock) -> None:
        self.redactor = redactor
        self.lock = lock
        self.pending: list[tuple[float, bytes, str]] = []  # (t, bytes, their text)
        self.pending_bytes = 0
        self.context = ""  # the end of the text already given back, as it came
        self.emitted = False
        self.document: bool | None = None  # the body begins as a JSON document
        self._next_pass = 0

    def push(self, t: float, data: bytes) -> list[Chunk]:
        """A chunk as it arrived; the chunks now ready (redacted), in order."""
        if self.document is None:
            start = data.lstrip()[:1]
            if start:
                self.document = start in b"{["
        if not self.pending and not self.redactor.active:
            return [Chunk(t, data)]  # nothing to hunt
        self.pending.append((t, data, data.decode("utf-8", errors="surrogateescape")))
        self.pending_bytes += len(data)
        if self.document and not self.emitted and self.pending_bytes <= HOLD:
            return []
        if self.pending_bytes < max(self._next_pass, lookahead(self.redactor) + STEP):
            return []
        return self._pass(final=False)

    def close(self) -> list[Chunk]:
        """The rest, at the body's end."""
        return self._pass(final=True) if self.pending else []

    def _pass(self, *, final: bool) -> list[Chunk]:
        with self.lock:
            return self._redact(final=final)

    def _redact(self, *, final: bool) -> list[Chunk]:
        redactor = self.redactor
        ahead = lookahead(redactor)
        ctx = self.context
        texts = [ctx, *(p[2] for p in self.pending)]
        joined = "".join(texts)
        # JSON replacements: each event's (or the document's) data re-serialized; one that begins
        # in the context was decided when that text left, so it is not made again
        edits = [e for e in _json_edits(joined, redactor) if e[0] >= len(ctx)]
        edited = splice(texts, edits) if edits else texts
        spans = self._spans(edited)
        if final:
            cut = len(self.pending)
        else:
            found = self._cut(joined, texts, edits, edited, spans, ahead)
            if found is None:  # wait for more: twice as much (the work stays linear)
                self._next_pass = 2 * self.pending_bytes
                return []
            cut, forced = found
            if forced:  # the JSON replacement across the cut left out: that event by form only
                edits = [e for e in edits if not e[0] < forced < e[1]]
                edited = splice(texts, edits) if edits else texts
                spans = self._spans(edited)
        redacted = splice(edited, [(a, b, REDACTED) for a, b in spans]) if spans else edited
        out = []
        for (t, data, text), new in zip(self.pending[:cut], redacted[1 : cut + 1], strict=True):
            out.append(Chunk(t, data if new == text else new.encode("utf-8", "surrogateescape")))
        taken = "".join(p[2] for p in self.pending[:cut])
        self.context = (ctx + taken)[-ahead:] if ahead else ""
        del self.pending[:cut]
        self.pending_bytes = sum(len(p[1]) for p in self.pending)
        self._next_pass = 0
        self.emitted = True
        return out

    def _spans(self, texts: list[str]) -> list[tuple[int, int]]:
        """Every form found in ``texts`` joined (a form that begins in the context is replaced
        from the context's end: its share before was written already)."""
        skip = len(texts[0])
        return [(max(a, skip), b) for a, b in self.redactor.spans("".join(texts)) if b > skip]

    def _cut(
        self,
        joined: str,
        texts: list[str],
        edits: list[tuple[int, int, str]],
        edited: list[str],
        spans: list[tuple[int, int]],
        ahead: int,
    ) -> tuple[int, int] | None:
        """How many pending chunks may leave now, and 0 (or, for a forced cut, where it is): the
        most whose end has ``ahead`` characters after it, no replacement across it and, if
        possible, no event left open across it; None to wait for more. When the open event began
        before this window (it cannot be re-serialized whole any more), or the body is a JSON
        document past :data:`HOLD`, no event boundary is waited for; past :data:`HOLD` a cut is
        made anyway, the JSON replacement across it left out."""
        ctx = len(texts[0])
        limit = len(joined) - ahead
        ends, edited_ends = _ends(texts), _ends(edited)
        open_from = _last_event_end(joined)  # where the last, unfinished event begins
        fallback = None
        for i in range(len(self.pending) - 1, -1, -1):
            end = ends[i + 1]
            if end > limit or end <= ctx:
                continue
            if any(a < end < b for a, b, _ in edits):
                continue
            if any(a < edited_ends[i + 1] < b for a, b in spans):
                continue
            if end <= open_from:
                return i + 1, 0
            fallback = fallback if fallback is not None else i + 1
        if fallback is not None and (
            self.document or open_from <= ctx or self.pending_bytes > HOLD
        ):
            return fallback, 0
        if self.pending_bytes <= HOLD:
            return None
        for i in range(len(self.pending) - 1, -1, -1):
            end = ends[i + 1]
            if ctx < end <= limit:
                return i + 1, end
        return None


def _last_event_end(text: str) -> int:
    """Where the last blank line that ends an SSE event in ``text`` ends (0: none)."""
    best = 0
    for mark in ("\n\n", "\r\n\r\n", "\r\r"):
        pos = text.rfind(mark)
        if pos >= 0:
            best = max(best, pos + len(mark))
    return best


def _ends(texts: list[str]) -> list[int]:
    """The offset where each of ``texts`` ends in their concatenation."""
    out, pos = [], 0
    for text in texts:
        pos += len(text)
        out.append(pos)
    return out


class FrameStream:
    """One connection's frames in, the same frames redacted out, a window behind."""

    def __init__(self, redactor: Redactor, lock: threading.Lock) -> None:
        self.redactor = redactor
        self.lock = lock
        self.pending: list[Frame] = []
        self.pending_bytes = 0
        self.context: list[Frame] = []  # the last frames given back, as they came
        self._next_pass = 0

    def push(self, frame: Frame) -> list[Frame]:
        if not self.pending and not self.redactor.active:
            return [frame]
        self.pending.append(frame)
        self.pending_bytes += len(frame.data)
        if self.pending_bytes < max(self._next_pass, lookahead(self.redactor) + STEP):
            return []
        out = self._pass(final=False)
        self._next_pass = 0 if out else self.pending_bytes + STEP
        return out

    def close(self) -> list[Frame]:
        return self._pass(final=True) if self.pending else []

    def _pass(self, *, final: bool) -> list[Frame]:
        ahead = lookahead(self.redactor)
        with self.lock:
            redacted = _redact_frames([*self.context, *self.pending], self.redactor)
        redacted = redacted[len(self.context) :]
        count = len(self.pending)
        if not final:
            left = self.pending_bytes
            count = 0
            for frame in self.pending:
                if left - len(frame.data) < ahead:
                    break
                left -= len(frame.data)
                count += 1
        taken = self.pending[:count]
        del self.pending[:count]
        self.pending_bytes = sum(len(f.data) for f in self.pending)
        context = [*self.context, *taken]
        size = 0
        keep = 0
        for frame in reversed(context):
            if size >= ahead:
                break
            size += len(frame.data)
            keep += 1
        self.context = context[len(context) - keep :] if keep else []
        return redacted[:count]
