"""Writing a cassette as the traffic happens.

::

    writer = CassetteWriter("cassette/", secrets=[api_key])
    rec = writer.begin("POST", "/v1/responses", headers, body)
    rec.response(200, response_headers)
    for chunk in upstream:      # as each arrives; its arrival time is taken now
        rec.chunk(chunk)
    rec.finish()                # or finish("disconnected"), finish(f"error: {e}")

The recorder writes the exchange as it passes, so that its memory does not grow with the body
(issue #39 item 3): the request and the response head are kept until the body begins (the
request body whole, as a server's request cap bounds it), then the file is begun aside (hidden,
``.NAME.PID.ID.tmp``: readers skip it) and each chunk or frame goes to it through a bounded
redaction window (:mod:`cassettes.streaming`: a secret split across chunks or across the deltas of
SSE events is still found), at most ``max_bytes`` of body (beyond it the rest is counted, not
kept, and the outcome says ``truncated``). No unredacted byte reaches the disk. :meth:`finish`
writes the end and links the file into place (never over another file: when its number was taken
by another writer of the same folder, another process say, it takes the next free one). A cut or
failed exchange is finished with its outcome like any other; a process that dies mid-exchange
leaves only its hidden file aside. Thread-safe: exchanges may be recorded concurrently.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Literal

from cassettes.codec import (
    chunk_line,
    end_line,
    exchange_filename,
    frame_line,
    request_line,
    response_line,
)
from cassettes.model import Chunk, Exchange, Frame, Headers
from cassettes.redaction import Redactor
from cassettes.secrets import learn, redact_headers, redact_request
from cassettes.streaming import BodyStream, FrameStream

__all__ = ["DEFAULT_MAX_BYTES", "CassetteWriter", "ExchangeRecorder"]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_BUFFER = 64 * 1024  # the file's write buffer
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

    def _redactor_now(self) -> Redactor:
        """The cassette's redactor with every secret given so far (``secrets`` may have grown:
        add_secret, or a caller extending the list); call under ``_redact_lock``."""
        for secret in list(self.secrets):
            self._redactor.add(secret)  # idempotent
        return self._redactor

    def _place(self, aside: Path, exchange: Exchange) -> Path:
        """Link the finished file ``aside`` into place under the exchange's number, never over
        another exchange's file: another writer (another process, a --workers sibling) may have
        taken this number; then the next free one is taken and the first line says so."""
        while True:
            path = self.directory / exchange_filename(exchange)
            try:
                os.link(aside, path)
            except FileExistsError:
                with self._lock:
                    self._seq = max(self._seq, exchange.seq) + 1
                    exchange.seq = self._seq
                _renumber(aside, exchange.seq)
                continue
            except OSError:  # a file system without hard links: rename (may replace)
                os.replace(aside, path)
                break
            aside.unlink()
            break
        with self._lock:
            self.written.append(path)
        return path


def _renumber(path: Path, seq: int) -> None:
    """Rewrite the request line of the exchange file ``path`` with ``seq`` (the rest copied as
    is, a buffer at a time)."""
    fresh = path.with_name(path.name + ".renumber")
    with path.open("rb") as source, fresh.open("wb") as target:
        head = json.loads(source.readline())
        head["seq"] = seq
        target.write(json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        shutil.copyfileobj(source, target, _BUFFER)
    os.replace(fresh, path)


class ExchangeRecorder:
    """One exchange being recorded (from :meth:`CassetteWriter.begin`); a context manager that
    finishes it (``error: ...`` when the block raised).

    Its file is written as the exchange passes: hidden aside (``.NAME.PID.ID.tmp``, skipped by
    readers) from the first body chunk or frame, redacted in a bounded window
    (:mod:`cassettes.streaming`), and linked into place by :meth:`finish`. The request (its body
    whole: a server's request cap bounds it) and the response head are kept until the first line
    is written."""

    def __init__(self, writer: CassetteWriter, exchange: Exchange, start: float) -> None:
        self.writer = writer
        self.exchange = exchange
        self.start = start
        self.kept = 0
        self.path: Path | None = None
        self._aside: Path | None = None
        self._file: BinaryIO | None = None
        self._response_written = False
        self._body: BodyStream | None = None
        self._frames: FrameStream | None = None
        self._failed: OSError | None = None
        self._halted = ""  # why the rest of the body was not kept

    def _now(self) -> float:
        return max(0.0, self.writer.clock() - self.start)

    def response(
        self, status: int, headers: Iterable[tuple[str | bytes, str | bytes]] | None = None
    ) -> None:
        self.exchange.status = status
        self.exchange.response_headers = _pairs(headers)
        self.exchange.response_t = self._now()
        if self._file is not None:  # a head after body bytes (not HTTP, but kept as it came)
            self._guard(self._write_response)

    def _keep(self, size: int) -> bool:
        if self.kept + size > self.writer.max_bytes:
            self.exchange.outcome = "truncated"
            return False
        self.kept += size
        return True

    def request_body(self, data: bytes) -> None:
        """More request-body bytes (for a recorder begun before the body was read); once the
        file is begun (the response body has begun) what comes is not kept: ``truncated``."""
        if not data:
            return
        if self._file is not None or self._failed is not None:
            self.exchange.outcome = "truncated"
        elif self._keep(len(data)):
            self.exchange.request_body += bytes(data)

    def chunk(self, data: bytes) -> None:
        """Response-body bytes, as they arrive (empty ones are skipped)."""
        if data and self._keep(len(data)):
            t = self._now()
            self._guard(lambda: self._chunks(self._open_body().push(t, bytes(data))))

    def frame(
        self,
        data: bytes | str,
        sender: Literal["client", "server"],
        opcode: Literal["text", "binary", "close"] = "text",
    ) -> None:
        """A WebSocket message (or close: ``data`` the code), as it passes."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if self._keep(len(raw)):
            frame = Frame(self._now(), sender, raw, opcode)
            self._guard(lambda: self._frames_out(self._open_frames().push(frame)))

    def finish(self, outcome: str = "complete") -> Path:
        """End the exchange and write its file (once; later calls return the same path). An
        error writing it (a full disk) is raised here, its file removed."""
        if self.path is None:
            if self.exchange.outcome == "complete" or outcome.startswith("error"):
                self.exchange.outcome = " ".join(outcome.split())[:500]
            self.exchange.end_t = self._now()
            self._guard(self._end)
            if self._halted:
                self._halted, halted = "", self._halted
                self.exchange.outcome = halted
                self._guard(self._end)
            if self._failed is not None:
                raise self._failed
            assert self._aside is not None
            self.path = self.writer._place(self._aside, self.exchange)
        return self.path

    # ------------------------------------------------------------------ the file

    def _guard(self, write: Callable[[], None]) -> None:
        """Write, or after a failure nothing more: a file that cannot be written (the error is
        kept for :meth:`finish`), or a body the redactor cannot take (JSON nested past Python's
        recursion limit): then what it held is dropped unwritten, the rest is not kept, and
        the exchange ends ``error: ...`` saying so."""
        if self._failed is not None or self._halted:
            return
        try:
            write()
        except OSError as error:
            self._failed = error
            self._discard()
        except (RecursionError, ValueError, MemoryError) as error:
            self._halted = f"error: not recorded past here: {type(error).__name__}"
            self._body = self._frames = None

    def _discard(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
        if self._aside is not None:
            with contextlib.suppress(OSError):
                self._aside.unlink()

    def _begin_file(self) -> BinaryIO:
        """The first line (and the response head, if it came), written aside."""
        if self._file is None:
            exchange = self.exchange
            with self.writer._redact_lock:
                redactor = self.writer._redactor_now()
                try:
                    redact_request(exchange, redactor)
                except (RecursionError, ValueError, MemoryError) as error:
                    # a body the redactor cannot take (JSON nested past the recursion limit)
                    exchange.request_body = b""
                    exchange.outcome = f"error: request body not recorded: {type(error).__name__}"
                    redact_request(exchange, redactor)
            name = f".{exchange_filename(exchange)}.{os.getpid()}.{id(self)}.tmp"
            self._aside = self.writer.directory / name
            self._file = self._aside.open("wb", buffering=_BUFFER)
            self._file.write(request_line(exchange).encode())
            if exchange.status is not None:
                self._write_response()
        return self._file

    def _write_response(self) -> None:
        if self._response_written:
            return
        self._response_written = True
        assert self._file is not None
        exchange = self.exchange
        with self.writer._redact_lock:  # a cookie it sets is hunted from now on
            redactor = self.writer._redactor_now()
            learn(redactor, exchange)
            exchange.response_headers = redact_headers(exchange.response_headers, redactor)
        self._file.write(response_line(exchange).encode())

    def _open_body(self) -> BodyStream:
        self._begin_file()
        if self._body is None:
            self._body = BodyStream(self.writer._redactor, self.writer._redact_lock)
        return self._body

    def _open_frames(self) -> FrameStream:
        self._begin_file()
        if self._frames is None:
            self._frames = FrameStream(self.writer._redactor, self.writer._redact_lock)
        return self._frames

    def _chunks(self, chunks: list[Chunk]) -> None:
        assert self._file is not None
        for chunk in chunks:
            self._file.write(chunk_line(chunk).encode())

    def _frames_out(self, frames: list[Frame]) -> None:
        assert self._file is not None
        for frame in frames:
            self._file.write(frame_line(frame).encode())

    def _end(self) -> None:
        file = self._begin_file()
        with self.writer._redact_lock:
            self.writer._redactor_now()  # secrets given while the exchange was in flight
        if self._body is not None:
            self._chunks(self._body.close())
        if self._frames is not None:
            self._frames_out(self._frames.close())
        with self.writer._redact_lock:
            outcome = self.writer._redactor.text(self.exchange.outcome)
        file.write(end_line(self.exchange.end_t, outcome).encode())
        file.close()

    def __enter__(self) -> ExchangeRecorder:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.finish("complete" if error is None else f"error: {type(error).__name__}: {error}")
