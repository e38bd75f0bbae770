"""benchmarks/perf/servers.py, the one process starter: it waits for a ready line (the default
``listening on`` or another pattern) or polls a URL (``wait_http``) until the server answers."""

from __future__ import annotations

import http.server
import re
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from threaded_http import serving

from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import start_server, wait_http


def _says(*lines: str) -> list[str]:
    """A child that prints ``lines`` and then stays up (a server that listens)."""
    code = f"import time; print({chr(10).join(lines)!r}, flush=True); time.sleep(60)"
    return [sys.executable, "-c", code]


def test_waits_for_the_listening_line_past_other_lines() -> None:
    server = start_server("child", _says("loading", "listening on http://[::1]:8123"), None)
    try:
        assert (server.host, server.port, server.origin) == ("::1", 8123, "http://[::1]:8123")
    finally:
        server.stop()


def test_waits_for_another_ready_line() -> None:
    ready = re.compile(r"^floor: (?P<port>\d+)")
    server = start_server("floor", _says("floor is 1", "floor: 4321"), None, ready=ready)
    try:
        assert (server.host, server.port) == ("127.0.0.1", 4321)
    finally:
        server.stop()
    proxy = re.compile(r"^proxy: http://(?P<host>[^\s:/]+):(?P<port>\d+)/v1")
    line = "proxy: http://127.0.0.2:999/v1 -> http://up/v1"
    server = start_server("proxy", _says(line), None, ready=proxy)
    try:
        assert server.origin == "http://127.0.0.2:999"
    finally:
        server.stop()


def test_a_child_that_never_says_it_is_ready_is_an_error() -> None:
    with pytest.raises(RunError, match="did not start"):
        start_server("child", _says("listening on http://127.0.0.1:1"), None, timeout=5,
                     ready=re.compile(r"^floor: (?P<port>\d+)"))  # fmt: skip


@pytest.fixture
def answering() -> Iterator[str]:
    class Ok(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            keyed = self.path == "/keyed" and self.headers["Authorization"] == "Bearer k"
            self.send_response(200 if self.path == "/ready" or keyed else 503)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with serving(Ok) as url:
        yield url


def test_wait_http_until_it_answers_200(answering: str) -> None:
    assert wait_http(f"{answering}/ready", time.monotonic() + 10, every=0.05)
    started = time.monotonic()
    assert not wait_http(f"{answering}/other", time.monotonic() + 0.3, every=0.05)
    assert time.monotonic() - started >= 0.3
    assert not wait_http(f"{answering}/keyed", time.monotonic() + 0.2, every=0.05)
    assert wait_http(
        f"{answering}/keyed", time.monotonic() + 10, headers={"Authorization": "Bearer k"}
    )


def test_wait_http_gives_up_when_the_process_exits_or_give_up_says(answering: str) -> None:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    started = time.monotonic()
    assert not wait_http(f"{answering}/ready", started + 30, process=done)
    assert not wait_http(f"{answering}/ready", started + 30, give_up=lambda: True)
    assert time.monotonic() - started < 5


def test_starting_needs_no_psutil() -> None:
    """The vendors and peer-suites envs install no bench extra (psutil) and start servers here."""
    code = (
        "import sys; sys.modules['psutil'] = None; "
        "import benchmarks.perf.servers, benchmarks.vendors.services"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
