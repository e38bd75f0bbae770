"""Node clients for the tests: a pinned ``package.json`` + ``package-lock.json`` folder under
``tests/clients/`` installed with ``npm ci`` once per lockfile into pytest's cache
(``.pytest_cache/d/<name>/<hash of the lockfile>``, inside the checkout and ignored by git), or its
own ``node_modules`` when present; and a real ``responses-mock`` process for the recipes of
docs/agents.md (:class:`MockProcess`).

Skips, with the reason, when ``node``/``npm`` are not on PATH, when Node is older than the
client needs, when ``npm ci`` fails (no registry) or when ``RESPONSES_MOCK_NPM=0``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "agents.md"


def node_major() -> int | None:
    """Node's major version, or ``None`` when node or npm is not on PATH."""
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        return None
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    try:
        return int(done.stdout.strip().lstrip("v").split(".")[0])
    except ValueError:
        return None


def installed(
    client: Path,
    marker: str,
    config: pytest.Config,
    tmp_path_factory: pytest.TempPathFactory,
    *,
    min_node: int = 20,
) -> Path:
    """A folder with ``client``'s pinned packages installed (``marker``: a file that exists once
    they are, e.g. ``node_modules/ai/package.json``); skips when they cannot be had."""
    major = node_major()
    if major is None:
        pytest.skip(f"{client.name}: node and npm are not on PATH")
    if major < min_node:
        pytest.skip(f"{client.name}: needs Node >= {min_node} (found {major})")
    if (client / marker).exists():
        return client
    lock = (client / "package-lock.json").read_bytes()
    cache = getattr(config, "cache", None)
    base = cache.mkdir(client.name) if cache is not None else tmp_path_factory.mktemp("npm")
    where = base / hashlib.sha256(lock).hexdigest()[:12]
    if not (where / marker).exists():
        _npm_ci(client, base, where, marker)
    return where


def _npm_ci(client: Path, base: Path, where: Path, marker: str) -> None:
    """``npm ci`` into a fresh folder renamed to ``where`` when complete (a parallel worker that
    lost the race throws its copy away)."""
    if os.environ.get("RESPONSES_MOCK_NPM") == "0":
        pytest.skip(f"{client.name} is not installed and RESPONSES_MOCK_NPM=0")
    npm = shutil.which("npm")
    assert npm is not None
    partial = Path(tempfile.mkdtemp(prefix=f"{where.name}.", dir=base))
    for file in ("package.json", "package-lock.json"):
        shutil.copyfile(client / file, partial / file)
    try:
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--fetch-retries=0", "--fetch-timeout=20000"],
            cwd=partial,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0 or not (partial / marker).exists():
            pytest.skip(f"npm ci of {client.name} failed: {(done.stderr or done.stdout)[-500:]}")
        try:
            partial.rename(where)
        except OSError:
            if not (where / marker).exists():
                raise
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm ci of {client.name} took more than 300 s")
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def recipe(name: str) -> str:
    """The code block of docs/agents.md tagged ``<!-- recipe: NAME -->`` (the line before its
    opening fence): the tests run the docs' own code."""
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(
        rf"^<!-- recipe: {re.escape(name)} -->\n```[a-z]*\n(.*?)^```$", text, re.M | re.S
    )
    assert found is not None, f"no recipe {name!r} in {DOCS}"
    return found[1]


class MockProcess:
    """``responses-mock --port 0 ARGS`` as a separate process, as a user starts it
    (``python -m mock_server.cli`` is the console script's module); ``.base_url`` ends in /v1."""

    def __init__(self, *args: str) -> None:
        self.args = args
        self.base_url = ""
        self.output: list[str] = []
        self._process: subprocess.Popen[str] | None = None
        self._drainer: threading.Thread | None = None

    def __enter__(self) -> MockProcess:
        command = [sys.executable, "-m", "mock_server.cli", "--port", "0", *self.args]
        path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
        self._process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert self._process.stdout is not None
        timer = threading.Timer(30, self._process.kill)  # never wait for ever on a broken start
        timer.start()
        try:
            for line in self._process.stdout:
                self.output.append(line)
                found = re.search(r"listening on (http://\S+)", line)
                if found:
                    self.base_url = found[1] + "/v1"
                    break
        finally:
            timer.cancel()
        assert self.base_url, "".join(self.output)
        self._drainer = threading.Thread(target=self._drain, args=(self._process.stdout,))
        self._drainer.start()
        return self

    def _drain(self, stream: IO[str]) -> None:
        for line in stream:
            self.output.append(line)

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            if self._drainer is not None:
                self._drainer.join(timeout=10)
            if self._process.stdout is not None:
                self._process.stdout.close()
