"""Reading cassettes: a folder of exchange files (docs/cassettes.md), one exchange file, or a VCR
cassette (vcrpy YAML or JSON, imported by :mod:`cassettes.vcr`).

:func:`read_cassette` returns the exchanges in their recorded order (``seq``; imported ones in
their interaction order), credential headers redacted even where a hand-edited file kept one. Every
failure is a :class:`CassetteError` with a one-line message.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cassettes.codec import decode_exchange
from cassettes.errors import CassetteError, TooLarge
from cassettes.model import Exchange
from cassettes.redaction import Redactor
from cassettes.secrets import learn, redact_exchange

__all__ = [
    "MAX_FILE_BYTES",
    "TooLarge",
    "cassette_files",
    "is_cassette_dir",
    "read_at_most",
    "read_cassette",
    "read_exchange",
]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""A larger cassette file is refused rather than read into memory."""

VCR_SUFFIXES = (".yaml", ".yml")


def read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path`` (``-``: standard input), at most ``limit`` of them: :class:`TooLarge`
    past it, ``OSError`` as the file gives it.

    The read itself stops at the limit + 1 byte: a size from ``stat`` says nothing of a device or
    a pipe (``/dev/zero``, ``<(cmd)`` have size 0 and no end), nor of a file still growing; it
    only refuses a large regular file before reading it.
    """
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        p = Path(path)
        size = p.stat().st_size
        if size > limit:
            raise TooLarge(f"{size:,} bytes, over the {limit:,}-byte limit")
        with p.open("rb") as handle:
            data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"more than the {limit:,}-byte limit")
    return data


def _read_text(path: Path) -> str:
    try:
        data = read_at_most(path, MAX_FILE_BYTES)
    except TooLarge as error:
        raise CassetteError(f"{path}: {error} for a cassette file") from None
    except OSError as error:
        raise CassetteError(f"{path}: {error.strerror or error}") from error
    text = data.decode("utf-8", errors="surrogateescape")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def read_exchange(path: str | os.PathLike[str]) -> Exchange:
    """One exchange file."""
    path = Path(path)
    return decode_exchange(_read_text(path), path)


def cassette_files(directory: str | os.PathLike[str]) -> list[Path]:
    """The exchange files (``*.jsonl``) and VCR cassettes (``*.yaml``, ``*.yml``) of a folder,
    sorted by name (so exchange files come in their recorded order); hidden files skipped."""
    root = Path(directory)
    try:
        entries = sorted(root.iterdir())
    except OSError as error:
        raise CassetteError(f"{root}: {error.strerror or error}") from error
    return [
        p
        for p in entries
        if p.is_file() and not p.name.startswith(".") and p.suffix in (".jsonl", *VCR_SUFFIXES)
    ]


def is_cassette_dir(directory: str | os.PathLike[str]) -> bool:
    """Whether ``directory`` holds at least one exchange file or VCR cassette."""
    try:
        return Path(directory).is_dir() and bool(cassette_files(directory))
    except CassetteError:
        return False


def read_cassette(path: str | os.PathLike[str]) -> list[Exchange]:
    """The exchanges of a cassette: a folder of exchange files, one exchange file, or a VCR
    cassette file. A folder may also hold VCR files: each becomes the exchanges that follow,
    numbered after the folder's own."""
    path = Path(path)
    if path.is_dir():
        exchanges: list[Exchange] = []
        vcr: list[Path] = []
        for file in cassette_files(path):
            if file.suffix == ".jsonl":
                exchanges.append(read_exchange(file))
            else:
                vcr.append(file)
        exchanges.sort(key=lambda e: e.seq)
        for file in vcr:
            exchanges.extend(read_vcr_file(file, first_seq=len(exchanges) + 1))
        return _redacted(exchanges)
    if path.suffix in (*VCR_SUFFIXES, ".json"):
        return read_vcr_file(path)
    if not path.exists():
        raise CassetteError(f"{path}: no such file or folder")
    return _redacted([read_exchange(path)])


def _redacted(exchanges: list[Exchange]) -> list[Exchange]:
    """A hand-edited or foreign cassette may still hold a credential: whatever reads it (a replay's
    error message, a report of ``check``) gets it redacted as the writer would have (a no-op for
    what the writer wrote)."""
    redactor = Redactor()
    for exchange in exchanges:
        learn(redactor, exchange)
    return [redact_exchange(exchange, redactor) for exchange in exchanges]


def read_vcr_file(path: Path, first_seq: int = 1) -> list[Exchange]:
    from cassettes.vcr import import_vcr

    return import_vcr(_read_text(path), source=str(path), first_seq=first_seq)
