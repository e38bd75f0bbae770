"""A server as a child process, and its peak memory (bounds are asserted as peak RSS of the
child, never as wall time). Readiness is the child's ``listening on`` line, never a sleep."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import start_server

BIN = Path(sys.executable).parent


@dataclass
class Child:
    proc: subprocess.Popen[bytes]
    url: str
    """``http://HOST:PORT`` (no ``/v1``)."""

    def peak_rss(self) -> int:
        """The child's peak resident set (``VmHWM``), bytes."""
        return _status_kib(self.proc.pid, "VmHWM") * 1024

    def rss(self) -> int:
        return _status_kib(self.proc.pid, "VmRSS") * 1024


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for pid {pid}")


@contextmanager
def listening_child(argv: Sequence[str], timeout: float = 30.0) -> Iterator[Child]:
    """Run ``argv`` (a console script in this venv's bin, or a full command) until it prints
    ``listening on URL`` (benchmarks.perf.servers.start_server, the one starter); its output is
    drained; it is terminated afterwards."""
    command = [str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0], *argv[1:]]
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env["PYTHONUNBUFFERED"] = "1"
    try:
        server = start_server(argv[0], command, None, timeout=timeout, env=env, drain=True)
    except RunError as exc:
        raise RuntimeError(str(exc)) from None
    try:
        yield Child(server.process, server.origin)
    finally:
        server.stop()
