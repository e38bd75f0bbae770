"""Server processes for the perf benchmarks and the tests: start one from its command line, pinned
to a CPU, wait for its ``listening on http://HOST:PORT`` line (or another ready line), read its CPU
time, stop it; or, for a server that says nothing, poll its URL until it answers (``wait_http``).
Neutral: it imports neither the judge nor the judged (tests/support/child_memory.py is built on
it), and psutil only to read CPU time (scripts and envs without the bench extra start servers too)."""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from benchmarks.perf.errors import RunError

__all__ = [
    "PROXY_READY",
    "Server",
    "ServerTree",
    "first_line",
    "module_command",
    "start_mock",
    "start_server",
    "wait_http",
]


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    host: str
    port: int
    drain: threading.Thread | None = None  # reads its output to the end (start_server's drain)

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
        from benchmarks.perf.process_cpu import process_cpu_seconds  # psutil: the bench extra's

        return process_cpu_seconds(self.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.drain is not None:
            self.drain.join(timeout=5)
        if self.process.stdout is not None:
            self.process.stdout.close()


class ServerTree(Server):
    """A server that forks workers: its CPU is that of its whole process tree."""

    @classmethod
    def of(cls, server: Server) -> ServerTree:
        return cls(server.name, server.process, server.host, server.port, server.drain)

    def cpu_seconds(self) -> float:
        from benchmarks.perf.process_cpu import tree_cpu

        return tree_cpu(self.pid)


def module_command(code: Path, module: str, *args: str) -> list[str]:
    """The command that runs ``python -m module args`` on the code under ``code`` (a checkout or
    an exported tree: the before-and-after benchmarks run two versions side by side)."""
    launch = (
        f"import runpy, sys; sys.path.insert(0, {str(code)!r}); "
        f"sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__')"
    )
    return [sys.executable, "-c", launch, *args]


def first_line(process: subprocess.Popen[bytes], timeout: float = 60) -> str:
    """The first line ``process`` writes to its stdout (its address), byte by byte so nothing
    after it is read; ``SystemExit`` if it exits or says nothing within ``timeout``."""
    assert process.stdout is not None
    deadline, line = time.monotonic() + timeout, b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or process.poll() is not None:
            raise SystemExit(f"did not start: {process.args!r}")
        ready, _, _ = select.select([process.stdout], [], [], left)
        if ready:
            byte = os.read(process.stdout.fileno(), 1)
            if byte:
                line += byte
    return line.decode().strip()


def _child_setup(cpu: int | None) -> Callable[[], None]:
    """Runs in the server process before it starts: pin it, and let it die with this process."""

    def setup() -> None:
        if cpu is not None and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {cpu})
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG (Linux): no orphaned servers

    return setup


# groups host (bracketed when IPv6) and port, as every ready pattern has (host: 127.0.0.1 if none)
_LISTENING = re.compile(r"listening on http://(?P<host>\[[^\]]*\]|[^\s:/\[]+):(?P<port>\d+)")
# what ``responses-conformance proxy`` prints once it listens: ``proxy: http://HOST:PORT/v1 -> …``
PROXY_READY = re.compile(r"^proxy: http://(?P<host>\[[^\]]*\]|[^\s:/\[]+):(?P<port>\d+)/v1")


def start_server(
    name: str,
    argv: Sequence[str],
    cpu: int | None,
    *,
    quiet: bool = True,
    timeout: float = 30,
    env: Mapping[str, str] | None = None,
    drain: bool = False,
    cwd: Path | None = None,
    log: Path | None = None,
    ready: re.Pattern[str] = _LISTENING,
) -> Server:
    """Start ``argv`` and wait for its ``listening on http://HOST:PORT`` line (the one way the
    benchmarks and the tests start a server and know it listens: never a sleep, never a guessed
    port). Lines before it are skipped. ``ready``: another line to wait for, with groups ``port``
    and, unless it is 127.0.0.1, ``host``. ``drain``: the server's stderr joins its stdout, and
    after that line a thread reads both to their end (a chatty server never blocks on a full
    pipe); otherwise stderr is dropped (``quiet``) or inherited. ``log``: stderr goes to that file
    instead."""
    stderr: int | IO[bytes] | None = subprocess.DEVNULL if quiet else None
    if drain:
        stderr = subprocess.STDOUT
    with contextlib.ExitStack() as files:  # a log file: the child keeps its own copy
        if log is not None:
            stderr = files.enter_context(log.open("wb"))
        process = subprocess.Popen(
            list(argv),
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=None if env is None else dict(env),
            cwd=cwd,
            preexec_fn=_child_setup(cpu),
        )
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    seen = b""
    while True:
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or process.poll() is not None:
                _abandon(process)
                said = seen.decode(errors="replace").strip()[-500:]
                raise RunError(f"{name} server did not start: {' '.join(argv)}: {said}")
            readable, _, _ = select.select([process.stdout], [], [], left)
            if readable:
                byte = os.read(process.stdout.fileno(), 1)  # unbuffered: select() sees the rest
                if not byte:
                    continue
                line += byte
        seen += line
        match = ready.search(line.decode(errors="replace"))
        if match:
            break
    host = match.groupdict().get("host") or "127.0.0.1"
    server = Server(name, process, host.strip("[]"), int(match["port"]))
    if drain:
        server.drain = threading.Thread(target=process.stdout.read, daemon=True)
        server.drain.start()
    return server


def wait_http(
    url: str,
    deadline: float,
    *,
    process: subprocess.Popen[Any] | None = None,
    every: float = 0.5,
    timeout: float = 5,
    give_up: Callable[[], bool] | None = None,
    headers: Mapping[str, str] | None = None,
) -> bool:
    """Poll ``GET url`` (with ``headers``) until it answers 200 (for a server that prints nothing
    when it listens); False once ``deadline`` (``time.monotonic()``) passes, ``process`` exits or
    ``give_up()`` says so: the caller says why. ``every``: seconds between tries; ``timeout``:
    each try's."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    while True:
        if (process is not None and process.poll() is not None) or (give_up and give_up()):
            return False
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                if answer.status == 200:
                    return True
        except (urllib.error.URLError, OSError, http.client.HTTPException):
            pass  # not listening yet, or not speaking HTTP yet
        if time.monotonic() > deadline:
            return False
        time.sleep(every)  # polling readiness, not waiting blind


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
