"""Unexpected failures logged once each: the traceback the first time a failure is met, one line
every time after.

An engine that cannot work at all (a module it imports lazily is missing, a backend that went
away) fails every request the same way. Logging a traceback per request buries the one line an
operator needs under hundreds of copies of the same stack (issue #39). A failure is "the same" when
its exception type, its first line of text and the place it was raised (the innermost frame's
file and line) are; the table of failures seen is bounded, so a stream of distinct failures costs
a bounded amount of memory and at worst logs more tracebacks.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections import OrderedDict

__all__ = ["FailureLog", "failures"]

_MAX_SIGNATURES = 256
_TEXT = 200  # characters of the exception's first line kept in its signature and its line


def _signature(error: BaseException) -> tuple[str, str, str]:
    text = (str(error).splitlines() or [""])[0][:_TEXT]
    frames = traceback.extract_tb(error.__traceback__)
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return type(error).__qualname__, text, where


class FailureLog:
    """Logs ``error`` with its traceback the first time its signature is met, then one line
    counting the repeats (see the module docstring)."""

    def __init__(self, max_signatures: int = _MAX_SIGNATURES) -> None:
        self._seen: OrderedDict[tuple[str, str, str], int] = OrderedDict()
        self._max = max_signatures
        self._lock = threading.Lock()  # background runners and prompt threads log too

    def forget(self) -> None:
        """Forget every failure seen (the next of each logs its traceback again)."""
        with self._lock:
            self._seen.clear()

    def exception(self, log: logging.Logger, message: str, *args: object) -> None:
        """Like ``log.exception(message, *args)`` inside an ``except`` block, once per failure."""
        error = sys.exc_info()[1]
        if error is None:
            log.error(message, *args)
            return
        signature = _signature(error)
        with self._lock:
            count = self._seen.pop(signature, 0) + 1
            self._seen[signature] = count
            while len(self._seen) > self._max:
                self._seen.popitem(last=False)
        if count == 1:
            log.exception(message, *args)
            return
        name, text, _where = signature
        log.error(
            message + ": %s%s (the same failure %d times; its traceback was logged the first time)",
            *args,
            name,
            f": {text}" if text else "",
            count,
        )


failures = FailureLog()
"""The server's one table (a process serves one app)."""
