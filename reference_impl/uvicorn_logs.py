"""uvicorn's log kept to one line for input the servers already reject correctly.

uvicorn (protocols/websockets/websockets_sansio_impl.py) answers a WebSocket text frame that is not
UTF-8 with close 1007, as RFC 6455 §8.1 asks, and then logs the ``UnicodeDecodeError`` with
``logger.exception``: a traceback on the server's stderr for every such frame a client sends. The
filter keeps the record's one line and drops its traceback (docs/cli.md: one line per user error).
"""

from __future__ import annotations

import logging

__all__ = ["quiet_rejected_input"]

_ONE_LINE = ("Invalid UTF-8 sequence received from client.",)


class _OneLineFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, UnicodeDecodeError) and record.msg in _ONE_LINE:
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_rejected_input() -> None:
    """Install the filter on ``uvicorn.error`` (once, however often it is called)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _OneLineFilter) for f in logger.filters):
        logger.addFilter(_OneLineFilter())
