"""What ``responses-bench`` raises on purpose, one tree::

    Exception
     └── BenchError               any of the below
          ├── ConfigError         also a ValueError: options that do not make a runnable
          │                       benchmark (exit code 2)
          ├── SLOSyntaxError      also a ValueError: an ``--slo`` value that does not parse
          ├── WorkloadError       also a ValueError: a workload that cannot be used (a bad line,
          │                       an unreadable file, impossible lengths)
          ├── WsClosed            a WebSocket connection ended (a close frame, or the socket)
          ├── WsRejected          the server answered the WebSocket upgrade with an HTTP status
          ├── BodyTooLarge        an HTTP body outgrew ``--max-body-bytes`` (what was read so far
          │                       is in ``args[0]``)
          └── BodyTruncated       the connection ended before the end of the HTTP body

The three ``ValueError`` ones are the user's input (one line, exit 2 before any load); the others
are what one request met on the wire. Each keeps the builtin base it always had, so every existing
``except`` still catches it.
"""

from __future__ import annotations

__all__ = [
    "BenchError",
    "BodyTooLarge",
    "BodyTruncated",
    "ConfigError",
    "SLOSyntaxError",
    "WorkloadError",
    "WsClosed",
    "WsRejected",
]


class BenchError(Exception):
    """Base of every exception ``responses-bench`` raises on purpose."""


class ConfigError(BenchError, ValueError):
    """Options that do not make a runnable benchmark (exit code 2)."""


class SLOSyntaxError(BenchError, ValueError):
    """An ``--slo`` value that does not parse; the message says which term."""


class WorkloadError(BenchError, ValueError):
    """A workload that cannot be used (a bad line, an unreadable file, impossible lengths)."""


class WsClosed(BenchError):
    """The connection ended (a close frame, or the socket)."""


class WsRejected(BenchError):
    """The server answered the upgrade with an HTTP status."""

    def __init__(self, status: int) -> None:
        super().__init__(f"the upgrade was refused with HTTP {status}")
        self.status = status


class BodyTooLarge(BenchError):
    """The body outgrew the cap; what was read so far is in ``args[0]``."""


class BodyTruncated(BenchError):
    """The connection ended before the end of the HTTP body."""
