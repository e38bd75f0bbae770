"""A server as a child process, and its peak memory (bounds are asserted as peak RSS of the
child, never as wall time). Readiness is the child's ``listening on`` line, never a sleep."""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
_LISTENING = re.compile(rb"listening on (http://\S+)")


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
    ``listening on URL``; terminate it afterwards."""
    command = [str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0], *argv[1:]]
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    drain: threading.Thread | None = None
    try:
        assert proc.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        seen = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or proc.poll() is not None:
                raise RuntimeError(f"{argv[0]} did not start: {seen.decode(errors='replace')}")
            if selector.select(left):
                line = proc.stdout.readline()
                seen += line
                match = _LISTENING.search(line)
                if match:
                    break
        selector.close()
        drain = threading.Thread(target=proc.stdout.read, daemon=True)
        drain.start()
        yield Child(proc, match.group(1).decode())
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if drain is not None:
            drain.join(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()
