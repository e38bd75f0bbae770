"""Servers the harness starts: on loopback only, each in its own process group, logged to a file.

:class:`Service` starts a command, waits until an HTTP URL answers 200 (or the process dies, or
the deadline passes: then the log's tail is the reason), and stops the whole process group —
SGLang forks a scheduler and a detokenizer — with SIGTERM, then SIGKILL. Only the processes a
Service started are ever signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from ..perf.localhost import free_port
from ..perf.servers import wait_http
from .errors import ServiceError

__all__ = ["LOOPBACK", "Service", "ServiceError", "free_port"]

LOOPBACK = "127.0.0.1"


class Service:
    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        ready_url: str,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        ready_headers: Mapping[str, str] | None = None,
        startup_timeout: float = 240.0,
    ) -> None:
        self.name = name
        self.command = list(command)
        self.ready_url = ready_url
        self.log_path = log_path
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.ready_headers = dict(ready_headers or {})
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.startup_s = 0.0

    def start(self) -> Service:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        with self.log_path.open("ab") as log:
            log.write(f"$ {' '.join(self.command)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(
                self.command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self.env,
                cwd=self.cwd,
                start_new_session=True,
            )
        deadline = started + self.startup_timeout
        if wait_http(self.ready_url, deadline, process=self.proc, timeout=3,
                     headers=self.ready_headers):  # fmt: skip
            self.startup_s = time.monotonic() - started
            return self
        if self.proc.poll() is not None:
            raise ServiceError(
                f"{self.name} exited with {self.proc.returncode} before it was ready:\n"
                + self.tail()
            )
        self.stop()
        raise ServiceError(
            f"{self.name} not ready at {self.ready_url} within {self.startup_timeout:g} s:\n"
            + self.tail()
        )

    def tail(self, lines: int = 25) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, grace: float = 15.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # the group this Service created, and only it
        except ProcessLookupError:
            return
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    def __enter__(self) -> Service:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
