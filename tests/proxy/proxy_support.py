"""Running ``responses-conformance proxy`` as a user does: a fresh interpreter, a free port, the
reports read back after SIGINT; and hand-written upstreams on raw sockets (:func:`raw_upstream`)."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
WAIT = 30.0
Handler = Callable[[socket.socket], None]
SUITE = ROOT / "tests" / "suite"
if str(SUITE) not in sys.path:  # broken_servers, suite_support
    sys.path.insert(0, str(SUITE))


@dataclass
class ProxyRun:
    base_url: str = ""
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    report_dir: Path | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def index(self) -> dict[str, Any]:
        assert self.report_dir is not None
        doc: dict[str, Any] = json.loads((self.report_dir / "index.json").read_text())
        return doc

    @property
    def target(self) -> dict[str, Any]:
        entry: dict[str, Any] = next(iter(self.index["targets"].values()))
        return entry

    def outcomes(self) -> dict[str, str]:
        return {cid: c["outcome"] for cid, c in self.target["checks"].items()}

    def failing(self) -> set[str]:
        return {cid for cid, o in self.outcomes().items() if o in ("fail", "xpass")}

    def exchange_lines(self) -> list[str]:
        return [ln for ln in self.stdout.splitlines() if ln.startswith(("PASS ", "FAIL ", "---- "))]


@contextmanager
def proxy(
    upstream: str, *args: str, report_dir: Path | None = None, stop: int = signal.SIGINT
) -> Iterator[ProxyRun]:
    """The proxy in front of ``upstream``; on exit it gets ``stop`` and its results are filled
    in (``code``, ``stdout``, ``stderr``)."""
    command = [sys.executable, "-m", "conformance.cli", "proxy", "--upstream", upstream,
               "--port", "0", *args]  # fmt: skip
    if report_dir is not None:
        command += ["--report-dir", str(report_dir)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("OPENAI_API_KEY", None)
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    run = ProxyRun(report_dir=report_dir)
    assert process.stdout is not None
    try:
        deadline = time.monotonic() + 60
        first = ""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1.0)
            if ready:
                first = process.stdout.readline()
                break
            if process.poll() is not None:
                break
        assert first.startswith("proxy: http://"), (first, process.stderr and process.stderr.read())
        run.base_url = first.split()[1]
        run.lines.append(first)
        yield run
    finally:
        if process.poll() is None:
            process.send_signal(stop)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        run.code = process.returncode
        run.stdout = "".join(run.lines) + out
        run.stderr = err


@contextmanager
def raw_upstream(handler: Handler) -> Iterator[str]:
    """A loopback server that runs ``handler`` on each connection, in a thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=_run, args=(handler, conn), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop.set()
        listener.close()
        thread.join(5)


def _run(handler: Handler, conn: socket.socket) -> None:
    with conn, suppress(OSError):
        handler(conn)


def exchange_raw(base_url: str, raw: bytes) -> bytes:
    """Send ``raw`` bytes to the server at ``base_url`` on a new connection and read everything
    it answers until it closes."""
    host, port = base_url.split("//")[1].split("/")[0].split(":")
    answer = b""
    with socket.create_connection((host, int(port)), timeout=WAIT) as conn:
        conn.sendall(raw)
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += conn.recv(65536)
    return head
