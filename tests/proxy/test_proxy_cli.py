"""The proxy's command line: it cannot start → one line and exit 2."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from proxy_support import ROOT


def _proxy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", "proxy", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "url", ["ftp://x/v1", "http://h/v1?x=1", "not a url", "http://127.0.0.1:99999/v1"]
)
def test_bad_upstream_url(url: str) -> None:
    done = _proxy("--upstream", url, "--port", "0")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "responses-conformance proxy:" in done.stderr


def test_port_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _proxy("--upstream", "http://127.0.0.1:1/v1", "--port", str(port))
    assert done.returncode == 2
    assert "cannot listen" in done.stderr and done.stderr.count("\n") == 1


def test_unknown_profile() -> None:
    done = _proxy("--upstream", "http://127.0.0.1:1/v1", "--profile", "nope")
    assert done.returncode == 2 and "unknown profile" in done.stderr


def test_help_lists_the_subcommand() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "--help"], cwd=ROOT, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert "proxy" in done.stdout
