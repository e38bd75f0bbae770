"""A damaged SQLite store found at start, and answered 503 when damage shows later.

At start (:func:`check_at_start`): the header is read by the first pragma (a file that is not a
database fails there), then ``PRAGMA quick_check`` walks every page's b-tree structure within a
time budget (:data:`CHECK_BUDGET_S`). Measured on a 263 MiB store (the default ``--store-max-bytes``
is 256 MiB; 44,700 rows of 6 KB): 0.31 s, so a store within the default cap is always checked
whole; a larger file checked for the budget's length is left to the second line of defence. Damage
raises :class:`StoreDamaged`, a :class:`ValueError` with a one-line message: the servers exit 2 with
it (docs/cli.md).

Later (damage that appears while the server runs, or in pages the budget left unchecked): SQLite
answers ``SQLITE_CORRUPT`` / ``SQLITE_NOTADB`` on the rows it cannot read; :class:`DamageReport`
turns that into a 503 in OpenAI's error shape and logs one line the first time, never a traceback
per request. The wording and code (``store_unavailable``) are ours.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

from ..errors import APIError

__all__ = ["CHECK_BUDGET_S", "DamageReport", "StoreDamaged", "check_at_start", "is_damage"]

log = logging.getLogger(__name__)

CHECK_BUDGET_S = 5.0
"""Seconds ``quick_check`` may take at start before it is stopped (module docstring)."""

_CORRUPT = 11  # SQLITE_CORRUPT
_NOTADB = 26  # SQLITE_NOTADB


class StoreDamaged(ValueError):
    """The store's file is damaged: a one-line message naming the file."""


def is_damage(error: BaseException) -> bool:
    """Whether a sqlite3 error says the file is damaged (not busy, locked or full)."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (_CORRUPT, _NOTADB)
    text = str(error)
    return "malformed" in text or "not a database" in text


def check_at_start(db: sqlite3.Connection, path: str, budget_s: float = CHECK_BUDGET_S) -> None:
    """:class:`StoreDamaged` when ``quick_check`` finds damage within ``budget_s`` seconds."""
    deadline = time.monotonic() + budget_s
    db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        rows = db.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.OperationalError as error:
        if "interrupted" not in str(error):
            raise
        log.warning(
            "sqlite:%s: the integrity check stopped after %.0f s (a large file); damage found "
            "later is answered 503",
            path,
            budget_s,
        )
        return
    finally:
        db.set_progress_handler(None, 0)
    problem = str(rows[0][0]).strip().splitlines()[-1] if rows else "ok"  # after "*** in … ***"
    if problem != "ok":
        raise StoreDamaged(f"sqlite:{path}: the file is damaged ({problem}); restore or remove it")


class DamageReport:
    """The 503 for damage met while serving, logged once per store."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._logged = False
        self._lock = threading.Lock()

    def unavailable(self, error: BaseException) -> APIError:
        with self._lock:
            first, self._logged = not self._logged, True
        if first:
            log.error(
                "sqlite:%s is damaged (%s): requests that read it are answered 503 until it is "
                "restored",
                self.path,
                error,
            )
        return APIError(
            503,
            "The server's response store cannot be read (it is damaged). Please try again later.",
            type="server_error",
            code="store_unavailable",
        )
