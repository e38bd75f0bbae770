"""Workload files, streamed: JSONL, a JSON array (ShareGPT), CSV and Parquet (sans-I/O but the read).

Every record is checked before any request is sent (:mod:`.records`); a bad one is named by
``file:line`` (Parquet: ``file:row N``), the first in full and the others counted, and the run
does not start. Memory is bounded whatever the file's size: files are read in pieces (a JSONL
line, a CSV row, a Parquet batch, a JSON array element at most :data:`MAX_RECORD_BYTES`), and only
the first ``limit`` sessions are kept (``--workload-limit``); the rest are still checked.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ..errors import WorkloadError
from .problems import Problems
from .records import TEXT_COLUMNS, Entry, from_json, from_row

__all__ = ["FORMATS", "MAX_RECORD_BYTES", "PARQUET_HINT", "Loaded", "detect", "read_entries"]

FORMATS = ("auto", "jsonl", "json", "csv", "parquet")
MAX_RECORD_BYTES = 16 * 1024 * 1024
PARQUET_HINT = "pip install 'responses-conformance[parquet]' (pyarrow)"
_CHUNK = 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\r\n]*")
_COLUMNS = frozenset(
    {
        *TEXT_COLUMNS,
        "instructions",
        "system",
        "model",
        "max_output_tokens",
        "output_tokens",
        "output_length",
        "timestamp",
        "input_length",
        "hash_ids",
    }
)
_NEEDED = frozenset({*TEXT_COLUMNS, "input_length", "hash_ids"})

Records = Iterator[tuple[str, Any]]


@dataclass(slots=True)
class Loaded:
    entries: list[Entry]  # the first `limit` sessions, in file order
    records: int  # good records in the whole file
    skipped: int  # conversations without a human turn
    format: str


def detect(path: Path, fmt: str = "auto") -> str:
    """The format: as asked, else by extension (``.json`` by its first byte: ``[`` or JSONL)."""
    if fmt != "auto":
        return fmt
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    if suffix == ".json":
        try:
            with path.open("rb") as handle:
                head = handle.read(4096).removeprefix(_BOM).lstrip()
        except OSError:
            return "json"
        return "json" if head.startswith(b"[") else "jsonl"
    return "jsonl"


def read_entries(
    path: Path,
    fmt: str = "auto",
    *,
    max_turns: int = 1,
    limit: int = 100_000,
    require_timestamp: bool = False,
) -> Loaded:
    """Every record of the file checked; the first ``limit`` sessions kept. A trace
    (``require_timestamp``) needs a ``timestamp`` in every record."""
    fmt = detect(path, fmt)
    readers: dict[str, Callable[[Path, Problems], Records]] = {
        "jsonl": _jsonl,
        "json": _json_array,
        "csv": _csv,
        "parquet": _parquet,
    }
    convert = from_row if fmt in ("csv", "parquet") else from_json
    problems = Problems()
    entries: list[Entry] = []
    records = skipped = 0
    try:
        for where, record in readers[fmt](path, problems):
            result = convert(record, max_turns=max_turns)
            if isinstance(result, str):
                problems.add(where, result)
            elif result is None:
                skipped += 1
            elif require_timestamp and result.timestamp is None:
                problems.add(where, "no `timestamp` (--shape trace replays each record at its own)")
            else:
                records += 1
                if len(entries) < limit:
                    entries.append(result)
    except OSError as error:
        raise WorkloadError(f"cannot read workload {path}: {error.strerror or error}") from None
    problems.raise_if_any()
    if not entries:
        why = f" ({skipped} conversation(s) without a human turn skipped)" if skipped else ""
        raise WorkloadError(f"{path}: no request in the file{why}")
    return Loaded(entries, records, skipped, fmt)


# ---------------------------------------------------------------------- JSONL


def _jsonl(path: Path, problems: Problems) -> Records:
    with path.open("rb") as handle:
        number = 0
        while True:
            raw = handle.readline(MAX_RECORD_BYTES + 1)
            if not raw:
                return
            number += 1
            where = f"{path}:{number}"
            if len(raw) > MAX_RECORD_BYTES:
                problems.add(where, f"a line over {MAX_RECORD_BYTES >> 20} MiB")
                while raw and not raw.endswith(b"\n"):
                    raw = handle.readline(_CHUNK)
                continue
            if number == 1:
                raw = raw.removeprefix(_BOM)
            line = raw.strip()
            if not line or line.startswith(b"#"):
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as error:
                problems.add(where, f"not JSON ({error})")
                continue
            yield where, obj


# ---------------------------------------------------------------------- a JSON array


class _Scanner:
    """A JSON text read in chunks, with the line number of any position (counted once)."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.text = codecs.getincrementaldecoder("utf-8-sig")()
        self.buf = ""
        self.pos = 0
        self.counted = 0  # buf index up to which newlines are in `line`
        self.line = 1
        self.eof = False

    def fill(self) -> bool:
        """Append the next chunk (dropping what was read); False at the end of the file."""
        if self.eof:
            return False
        chunk = self.handle.read(_CHUNK)
        self.line += self.buf.count("\n", self.counted, self.pos)
        self.buf = self.buf[self.pos :] + self.text.decode(chunk, final=not chunk)
        self.pos = self.counted = 0
        self.eof = not chunk
        return not self.eof

    def peek(self) -> str:
        """The next character after whitespace ('' at the end)."""
        while True:
            match = _WS.match(self.buf, self.pos)
            assert match is not None
            self.pos = match.end()
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def where(self, pos: int | None = None) -> int:
        """The line of ``pos`` (default: the current position); never before the last asked."""
        pos = self.pos if pos is None else pos
        self.line += self.buf.count("\n", self.counted, pos)
        self.counted = pos
        return self.line


def _json_array(path: Path, problems: Problems) -> Records:
    decoder = json.JSONDecoder()
    with path.open("rb") as handle:
        scan = _Scanner(handle)
        try:
            if scan.peek() != "[":
                problems.add(f"{path}:{scan.where()}", "expected a JSON array of records")
                return
            scan.pos += 1
            if scan.peek() == "]":
                scan.pos += 1
            else:
                while True:
                    scan.peek()  # raw_decode takes no leading whitespace
                    start = scan.where()
                    while True:
                        try:
                            obj, end = decoder.raw_decode(scan.buf, scan.pos)
                            break
                        except json.JSONDecodeError as error:
                            offset = error.pos - scan.pos  # fill() moves the buffer's start
                            big = len(scan.buf) - scan.pos > MAX_RECORD_BYTES
                            if big:
                                size = f"an array element over {MAX_RECORD_BYTES >> 20} MiB"
                                problems.add(f"{path}:{start}", size)
                                return
                            if not scan.fill():
                                line = scan.where(min(scan.pos + offset, len(scan.buf)))
                                problems.add(f"{path}:{line}", f"not JSON ({error.msg})")
                                return
                        except ValueError as error:  # an integer past Python's 4300 digits
                            problems.add(f"{path}:{start}", f"not JSON ({error})")
                            return
                        except RecursionError:
                            problems.add(f"{path}:{start}", "not JSON (nested too deeply)")
                            return
                    scan.pos = end
                    yield f"{path}:{start}", obj
                    following = scan.peek()
                    scan.pos += 1
                    if following == "]":
                        break
                    if following != ",":
                        problems.add(f"{path}:{scan.where()}", "expected `,` or `]` in the array")
                        return
            if scan.peek() != "":
                problems.add(f"{path}:{scan.where()}", "text after the end of the JSON array")
        except UnicodeDecodeError:
            problems.add(f"{path}:{scan.where()}", "not UTF-8 text (at or after this line)")


# ---------------------------------------------------------------------- CSV


def _csv(path: Path, problems: Problems) -> Records:
    with path.open("r", encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        line = 0
        try:
            header = next(reader, None)
            if header is None:
                return
            names = [name.strip().lower() for name in header]
            if not _NEEDED & set(names):
                shown = ", ".join(names[:8]) or "nothing"
                problems.add(
                    f"{path}:1", f"no `prompt`, `input`, `text` or `input_length` column ({shown})"
                )
                return
            while True:
                line = reader.line_num + 1
                cells = next(reader, None)
                if cells is None:
                    return
                if not any(cell.strip() for cell in cells):
                    continue
                if len(cells) > len(names):
                    problems.add(
                        f"{path}:{line}", f"{len(cells)} fields, the header has {len(names)}"
                    )
                    continue
                row = {n: c for n, c in zip(names, cells, strict=False) if n in _COLUMNS}
                yield f"{path}:{line}", row
        except UnicodeDecodeError:
            problems.add(f"{path}:{max(line, 1)}", "not UTF-8 text (at or after this line)")
        except csv.Error as error:
            problems.add(f"{path}:{max(reader.line_num, 1)}", f"not CSV ({error})")


# ---------------------------------------------------------------------- Parquet


def _parquet(path: Path, problems: Problems) -> Records:
    try:
        import pyarrow
        import pyarrow.parquet as parquet
    except ImportError:
        raise WorkloadError(f"{path}: reading Parquet needs pyarrow: {PARQUET_HINT}") from None
    failures = (pyarrow.ArrowException, ValueError, OSError)
    try:
        table = parquet.ParquetFile(path)
        names = list(table.schema_arrow.names)
    except failures as error:
        raise WorkloadError(f"{path}: not a Parquet file ({error})") from None
    columns = [n for n in names if n.strip().lower() in _COLUMNS]
    if not _NEEDED & {n.strip().lower() for n in columns}:
        shown = ", ".join(names[:8]) or "nothing"
        problems.add(str(path), f"no `prompt`, `input`, `text` or `input_length` column ({shown})")
        return
    row = 0
    try:
        for batch in table.iter_batches(batch_size=1024, columns=columns):
            for record in batch.to_pylist():
                row += 1
                yield f"{path}:row {row}", {k.strip().lower(): v for k, v in record.items()}
    except failures as error:
        problems.add(f"{path}:row {row + 1}", f"unreadable ({error})")
