"""The socket_leaks plugin (tests/support/socket_leaks.py): a leaked socket fails the test that
leaked it; one freed later names the test that left it open; a closed one costs nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SUPPORT = Path(__file__).parents[1] / "support"

CASES = """
import gc
import socket

HELD = []


def test_closes_its_socket():
    with socket.socket():
        pass


def test_leaks_one_in_a_cycle():
    sock = socket.socket()
    box = [sock]
    box.append(box)


def test_holds_one():
    box = [socket.socket()]
    box.append(box)
    HELD.append(box)


def test_drops_it():
    HELD.clear()
    gc.collect()
"""


def _run(tmp_path: Path, *tests: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_cases.py").write_text(CASES, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(SUPPORT), "SOCKET_LEAKS_STATS": "1"}
    env.pop("PYTHONTRACEMALLOC", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "socket_leaks", "-W", "error", "-q",
         "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(tmp_path),
         *[f"test_cases.py::{t}" for t in tests]],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


def test_a_socket_leaked_in_a_cycle_fails_the_test_that_leaked_it(tmp_path: Path) -> None:
    run = _run(tmp_path, "test_closes_its_socket", "test_leaks_one_in_a_cycle")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ERROR test_cases.py::test_leaks_one_in_a_cycle" in run.stdout, run.stdout
    assert "test_leaks_one_in_a_cycle left unclosed sockets" in run.stdout
    assert "2 passed, 1 error" in run.stdout  # its call passed, its teardown did not
    assert "socket_leaks: 1 collections" in run.stdout  # not after the test that closed its own


def test_a_socket_freed_later_names_the_test_that_left_it_open(tmp_path: Path) -> None:
    run = _run(tmp_path, "test_holds_one", "test_drops_it")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED test_cases.py::test_drops_it" in run.stdout, run.stdout
    assert "a socket that test_cases.py::test_holds_one left open" in run.stdout
