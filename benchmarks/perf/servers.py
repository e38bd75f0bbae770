"""Server processes for the perf benchmarks: start one from its command line, pinned to a CPU,
wait for its ``listening on http://HOST:PORT`` line, read its CPU time, stop it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.perf.errors import RunError
from benchmarks.perf.process_cpu import process_cpu, tree_cpu

__all__ = ["Server", "ServerTree", "start_mock", "start_server"]


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    host: str
    port: int

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def origin(self) -> str:
        """``http://HOST:PORT``, the address it printed."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of the server process so far."""
        return sum(process_cpu(self.pid))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class ServerTree(Server):
    """A server that forks workers: its CPU is that of its whole process tree."""

    @classmethod
    def of(cls, server: Server) -> ServerTree:
        return cls(server.name, server.process, server.host, server.port)

    def cpu_seconds(self) -> float:
        return tree_cpu(self.pid)


def _child_setup(cpu: int | None) -> Callable[[], None]:
    """Runs in the server process before it starts: pin it, and let it die with this process."""

    def setup() -> None:
        if cpu is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {cpu})
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (Linux): no orphaned servers

    return setup


def start_server(
    name: str, argv: Sequence[str], cpu: int | None, *, quiet: bool = True, timeout: float = 30
) -> Server:
    """Start ``argv`` and wait for its ``listening on http://HOST:PORT`` line."""
    process = subprocess.Popen(
        list(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL if quiet else None,
        preexec_fn=_child_setup(cpu),
    )
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or process.poll() is not None:
            _abandon(process)
            raise RunError(f"{name} server did not start: {' '.join(argv)}")
        ready, _, _ = select.select([process.stdout], [], [], left)
        if ready:
            byte = os.read(process.stdout.fileno(), 1)  # unbuffered: select() sees the rest
            if not byte:
                continue
            line += byte
    text = line.decode().strip()
    if not text.startswith("listening on http://"):
        _abandon(process)
        raise RunError(f"{name} server printed {text!r} instead of its address")
    host, _, port = text.removeprefix("listening on http://").rpartition(":")
    return Server(name, process, host.strip("[]"), int(port))


def start_mock(options: Sequence[str]) -> Server:
    """``responses-mock --port 0 OPTIONS`` (this interpreter's), its log on stderr; a benchmark
    that cannot start it exits with the reason (``SystemExit``)."""
    argv = [str(Path(sys.executable).parent / "responses-mock"), "--port", "0", *options]
    try:
        return start_server("mock", argv, None, quiet=False)
    except RunError as exc:
        raise SystemExit(f"the mock did not start: {exc}") from None


def _abandon(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait()
    if process.stdout is not None:
        process.stdout.close()
