"""The embedded default target: the mock server, run as a separate process.

The one rule of the architecture: the judge never imports the judged. So the suite starts the mock through its
console entry point (``responses-mock``, found beside the running interpreter or on ``PATH``),
reads the ``listening on http://HOST:PORT`` line it prints once its socket accepts connections,
and talks to it over loopback HTTP exactly as to any vendor.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING

from ..errors import ConformanceError

if TYPE_CHECKING:
    from .targets import Target

__all__ = ["EmbeddedMock", "EmbeddedMockError", "find_mock_command", "served"]

_LISTENING = re.compile(r"listening on (http://\S+)")
# A background response must still be running when the suite cancels it (SPEC §2.13): a
# millisecond between deltas keeps the mock's 40–80-token answers alive for ~50 ms, and costs the
# whole run about a second.
_MOCK_ARGS = ("--port", "0", "--seed", "0", "--inter-token", "0.001")


class EmbeddedMockError(ConformanceError, RuntimeError):
    """The mock could not be found or started (the run is broken: exit 2)."""


def find_mock_command() -> str:
    beside = Path(sys.executable).parent / "responses-mock"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("responses-mock")
    if found:
        return found
    raise EmbeddedMockError(
        "the embedded mock server (`responses-mock`) is not installed beside this Python or on "
        "PATH; install the project (`pip install -e .`) or give --base-url"
    )


class EmbeddedMock:
    """``with EmbeddedMock() as mock: mock.base_url`` → ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, *, startup_timeout: float = 30.0, extra_args: tuple[str, ...] = ()) -> None:
        self.startup_timeout = startup_timeout
        self.extra_args = extra_args
        self.base_url = ""
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: IO[str] | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> EmbeddedMock:
        command = [find_mock_command(), *_MOCK_ARGS, *self.extra_args]
        # Closed in stop(): the file outlives this method, with the process it collects from.
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
        self._proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=self._stderr, stdin=subprocess.DEVNULL,
            text=True, env=env,
        )  # fmt: skip
        line = self._first_line(self._proc)
        match = _LISTENING.search(line or "")
        if match is None:
            reason = self._failure(line)
            self.stop()
            raise EmbeddedMockError(f"the embedded mock did not start: {reason}")
        self.base_url = match.group(1).rstrip("/") + "/v1"
        return self

    def _first_line(self, proc: subprocess.Popen[str]) -> str | None:
        """The mock's first stdout line, waited for at most ``startup_timeout`` seconds."""
        box: list[str] = []
        got = threading.Event()
        assert proc.stdout is not None
        stdout = proc.stdout

        def read() -> None:
            with stdout:
                box.append(stdout.readline())
                got.set()
                for _ in stdout:  # keep draining, so the mock never blocks on a full pipe
                    pass

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()
        got.wait(self.startup_timeout)
        return box[0] if box else None

    def _failure(self, line: str | None) -> str:
        if line is None:
            return f"no `listening on` line within {self.startup_timeout:g} s"
        assert self._stderr is not None
        self._stderr.seek(0)
        tail = self._stderr.read().strip().splitlines()[-1:]
        return tail[0] if tail else (line.strip() or "it exited at once")

    def stop(self, timeout: float = 10.0) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        if self._reader is not None:
            self._reader.join(timeout)  # it ends at the pipe's EOF and closes it
            self._reader = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> EmbeddedMock:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


@contextmanager
def served(target: Target) -> Iterator[Target]:
    """``target`` with its base URL: as given, or, for the embedded mock, the URL of a mock
    started for the block and stopped after it (the target still says it is the embedded one)."""
    if not target.embedded:
        yield target
        return
    with EmbeddedMock() as mock:
        yield target.with_base_url(mock.base_url)
