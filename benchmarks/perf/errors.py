"""What the perf benchmarks raise on purpose, one tree::

    Exception
     └── PerfError                any of the below
          ├── RunError            the run itself broke (exit code 2): a server did not start, or
          │                       answered what the benchmark cannot measure
          ├── ParseError          (peers) a tool's output is missing or lacks a number the table
          │                       needs
          └── PeerUnavailable     (peers) a peer tool could not be installed; the message says
                                  why (one line)

Each is still an ``Exception`` as before; no ``except`` catches more or less than it did.
"""

from __future__ import annotations

__all__ = ["ParseError", "PeerUnavailable", "PerfError", "RunError"]


class PerfError(Exception):
    """Base of every exception the perf benchmarks raise on purpose."""


class RunError(PerfError):
    """The run itself broke (exit code 2)."""


class ParseError(PerfError):
    """The tool's output is missing or lacks a number the table needs."""


class PeerUnavailable(PerfError):
    """The peer could not be installed; the message says why (one line)."""
