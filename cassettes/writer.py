"""Writing a cassette as the traffic happens.

::

    writer = CassetteWriter("cassette/", secrets=[api_key])
    rec = writer.begin("POST", "/v1/responses", headers, body)
    rec.response(200, response_headers)
    for chunk in upstream:      # as each arrives; its arrival time is taken now
        rec.chunk(chunk)
    rec.finish()                # or finish("disconnected"), finish(f"error: {e}")

The recorder holds the exchange in memory (at most ``max_bytes`` of body; beyond it the rest is
counted, not kept, and the outcome says ``truncated``) and writes its file once it ends, after
redaction over the whole exchange, so that a secret split across chunks or across the deltas of
SSE events is found, and no unredacted byte ever reaches the disk. The file appears atomically
(written aside, then linked into place, never over another file: when its number was taken by
another writer of the same folder, another process say, it takes the next free one). Thread-safe:
exchanges may be recorded concurrently.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Literal

from cassettes.codec import encode_exchange, exchange_filename
from cassettes.model import Chunk, Exchange, Frame, Headers
from cassettes.redaction import Redactor
from cassettes.secrets import redact_exchange

__all__ = ["DEFAULT_MAX_BYTES", "CassetteWriter", "ExchangeRecorder"]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_SEQ = re.compile(r"^(\d{6,})-")


def _pairs(headers: Iterable[tuple[str | bytes, str | bytes]] | None) -> Headers:
    out: Headers = []
    for name, value in headers or ():
        k = name.decode("latin-1") if isinstance(name, bytes) else name
        v = value.decode("latin-1") if isinstance(value, bytes) else value
        out.append((k.lower(), v))
    return out


class CassetteWriter:
    """Writes exchanges into ``directory`` (created), numbered after any already there."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        secrets: Iterable[str | None] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.secrets = [s for s in secrets if s]
        self.max_bytes = max_bytes
        self.clock = clock
        self.wall = wall
        self._lock = threading.Lock()
        # One redactor for the whole cassette: a key one exchange's header carried is hunted in
        # the exchanges written after it too (an echo in a request that sent no header).
        self._redactor = Redactor(self.secrets)
        self._redact_lock = threading.Lock()
        self._seq = max(
            (int(m.group(1)) for p in self.directory.iterdir() if (m := _SEQ.match(p.name))),
            default=0,
        )
        self.written: list[Path] = []

    def add_secret(self, secret: str | None) -> None:
        """Hunt ``secret`` too in every exchange finished from now on (every form of it)."""
        if secret and secret not in self.secrets:
            self.secrets.append(secret)

    def begin(
        self,
        method: str,
        target: str,
        headers: Iterable[tuple[str | bytes, str | bytes]] | None = None,
        body: bytes = b"",
        *,
        websocket: bool = False,
    ) -> ExchangeRecorder:
        """Start recording an exchange; its sequence number is the order requests began."""
        with self._lock:
            self._seq += 1
            seq = self._seq
        exchange = Exchange(
            seq=seq,
            method=method.upper(),
            target=target,
            request_headers=_pairs(headers),
            request_body=bytes(body),
            websocket=websocket,
            at=self.wall(),
        )
        return ExchangeRecorder(self, exchange, self.clock())

    def _write(self, exchange: Exchange) -> Path:
        with self._redact_lock:
            for secret in list(self.secrets):  # `secrets` may have grown (add_secret, or a caller
                self._redactor.add(secret)  # extending the list): idempotent
            redact_exchange(exchange, self._redactor)
        aside = self.directory / f".{exchange_filename(exchange)}.{os.getpid()}.{id(exchange)}.tmp"
        while True:
            path = self.directory / exchange_filename(exchange)
            aside.write_text(encode_exchange(exchange), encoding="utf-8")
            try:
                # Never over another exchange's file: another writer (another process, a
                # --workers sibling) may have taken this number; take the next free one.
                os.link(aside, path)
            except FileExistsError:
                with self._lock:
                    self._seq = max(self._seq, exchange.seq) + 1
                    exchange.seq = self._seq
                continue
            except OSError:  # a file system without hard links: rename (may replace)
                os.replace(aside, path)
                break
            aside.unlink()
            break
        with self._lock:
            self.written.append(path)
        return path


class ExchangeRecorder:
    """One exchange being recorded (from :meth:`CassetteWriter.begin`); a context manager that
    finishes it (``error: ...`` when the block raised)."""

    def __init__(self, writer: CassetteWriter, exchange: Exchange, start: float) -> None:
        self.writer = writer
        self.exchange = exchange
        self.start = start
        self.kept = 0
        self.path: Path | None = None

    def _now(self) -> float:
        return max(0.0, self.writer.clock() - self.start)

    def response(
        self, status: int, headers: Iterable[tuple[str | bytes, str | bytes]] | None = None
    ) -> None:
        self.exchange.status = status
        self.exchange.response_headers = _pairs(headers)
        self.exchange.response_t = self._now()

    def _keep(self, size: int) -> bool:
        if self.kept + size > self.writer.max_bytes:
            self.exchange.outcome = "truncated"
            return False
        self.kept += size
        return True

    def request_body(self, data: bytes) -> None:
        """More request-body bytes (for a recorder begun before the body was read)."""
        if data and self._keep(len(data)):
            self.exchange.request_body += bytes(data)

    def chunk(self, data: bytes) -> None:
        """Response-body bytes, as they arrive (empty ones are skipped)."""
        if data and self._keep(len(data)):
            self.exchange.chunks.append(Chunk(self._now(), bytes(data)))

    def frame(
        self,
        data: bytes | str,
        sender: Literal["client", "server"],
        opcode: Literal["text", "binary", "close"] = "text",
    ) -> None:
        """A WebSocket message (or close: ``data`` the code), as it passes."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if self._keep(len(raw)):
            self.exchange.frames.append(Frame(self._now(), sender, raw, opcode))

    def finish(self, outcome: str = "complete") -> Path:
        """End the exchange and write its file (once; later calls return the same path)."""
        if self.path is None:
            if self.exchange.outcome == "complete" or outcome.startswith("error"):
                self.exchange.outcome = " ".join(outcome.split())[:500]
            self.exchange.end_t = self._now()
            self.path = self.writer._write(self.exchange)
        return self.path

    def __enter__(self) -> ExchangeRecorder:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.finish("complete" if error is None else f"error: {type(error).__name__}: {error}")
