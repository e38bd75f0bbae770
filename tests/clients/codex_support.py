"""Codex CLI (``@openai/codex``, pinned in ``tests/clients/codex/package.json``) against the mock.

:class:`RecordingMock` serves the mock on loopback and keeps every exchange — request body and
headers, response status, headers and bytes — so a test can judge each stream Codex received.
:class:`Codex` runs ``codex exec`` non-interactively with a throwaway ``CODEX_HOME`` and workdir
and a custom provider (``wire_api = "responses"``) whose ``base_url`` is the mock; an agent script
(``mock_server.agent_script``) goes to the mock in the provider's ``http_headers``.

Needs: ``node`` (>= 18) and ``npm`` on PATH, and the registry once: the package is installed with
``npm ci`` from the lockfile into pytest's cache (or ``tests/clients/codex/node_modules`` is used
when present); its Linux binary ships inside the package. ``RESPONSES_MOCK_NPM=0`` skips instead
of installing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from asgi_body import drain

from mock_server.app import MockServer, MockSettings
from mock_server.middleware import replayed
from reference_impl.server import ServerThread

CLIENT = Path(__file__).resolve().parent / "codex"
LAUNCHER = "node_modules/@openai/codex/bin/codex.js"


@dataclass(slots=True)
class TeedExchange:
    """One request and its whole response as the tee in front of the mock saw them (bodies joined;
    a cassette's :class:`cassettes.Exchange` keeps the chunks and their times)."""

    method: str
    path: str
    request_headers: dict[str, str]
    request_body: bytes
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: bytearray = field(default_factory=bytearray)

    def json(self) -> Any:
        return json.loads(self.request_body) if self.request_body else None

    @property
    def streamed(self) -> bool:
        return self.response_headers.get("content-type", "").startswith("text/event-stream")


class RecordingMock:
    """The mock on 127.0.0.1 with a tee in front: every exchange, bytes as sent."""

    def __init__(self, settings: MockSettings | None = None) -> None:
        self.server = MockServer(settings)
        self.exchanges: list[TeedExchange] = []
        self._lock = threading.Lock()
        self._thread = ServerThread(self._app, port=0, interface="asgi3")
        self.base_url = ""

    async def _app(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.server.app(scope, receive, send)
            return
        body = await drain(receive)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        exchange = TeedExchange(scope["method"], scope["path"], headers, body)
        with self._lock:
            self.exchanges.append(exchange)

        async def tee(message: Any) -> None:
            if message["type"] == "http.response.start":
                exchange.status = message["status"]
                exchange.response_headers = {
                    k.decode("latin-1").lower(): v.decode("latin-1")
                    for k, v in message.get("headers", ())
                }
            elif message["type"] == "http.response.body":
                exchange.response_body.extend(message.get("body", b""))
            await send(message)

        await self.server.app(scope, replayed(body, receive), tee)

    def __enter__(self) -> RecordingMock:
        self._thread.start()
        self.base_url = self._thread.base_url + "/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.stop()

    def responses(self) -> list[TeedExchange]:
        return [e for e in self.exchanges if e.method == "POST" and e.path == "/v1/responses"]


def codex_launcher(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The installed ``codex.js`` (see the module docstring); skips when it cannot be had."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Codex CLI needs node and npm on PATH")
    if (CLIENT / LAUNCHER).exists():
        return CLIENT / LAUNCHER
    lock = (CLIENT / "package-lock.json").read_bytes()
    cache = getattr(config, "cache", None)
    base = cache.mkdir("codex-cli") if cache is not None else tmp_path_factory.mktemp("npm")
    where = base / hashlib.sha256(lock).hexdigest()[:12]
    if not (where / LAUNCHER).exists():
        if os.environ.get("RESPONSES_MOCK_NPM") == "0":
            pytest.skip("Codex CLI is not installed and RESPONSES_MOCK_NPM=0")
        partial = Path(tempfile.mkdtemp(prefix=f"{where.name}.", dir=base))
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(CLIENT / name, partial / name)
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--fetch-retries=0", "--fetch-timeout=60000"],
            cwd=partial,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            pytest.skip(f"npm ci of @openai/codex failed: {done.stderr.strip()[-400:]}")
        try:
            partial.rename(where)
        except OSError:  # a parallel worker installed it first
            shutil.rmtree(partial, ignore_errors=True)
    return where / LAUNCHER


@dataclass(slots=True)
class CodexRun:
    returncode: int
    stdout: str
    stderr: str


class Codex:
    """``codex exec`` with a throwaway ``CODEX_HOME`` and workdir, provider ``mock``."""

    def __init__(
        self, launcher: Path, base_url: str, root: Path, *, name: str = "mock", **provider: Any
    ) -> None:
        """``name``: the provider's display name; ``"OpenAI"`` makes Codex treat it as OpenAI's
        own (remote compaction: a ``compaction_trigger`` item instead of a summarization turn)."""
        self.launcher = launcher
        self.home = root / "codex-home"
        self.workdir = root / "work"
        self.home.mkdir()
        self.workdir.mkdir()
        headers = provider.pop("http_headers", {})
        lines = [
            'model = "mock"',
            'model_provider = "mock"',
            "[model_providers.mock]",
            f"name = {json.dumps(name)}",
            f"base_url = {json.dumps(base_url)}",
            'wire_api = "responses"',
            'env_key = "MOCK_API_KEY"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
        ]
        if headers:
            pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in headers.items())
            lines.append(f"http_headers = {{ {pairs} }}")
        (self.home / "config.toml").write_text("\n".join(lines) + "\n")

    def exec(
        self, *args: str, timeout: float = 120, sandbox: str = "danger-full-access"
    ) -> CodexRun:
        """``codex exec ARGS``; ``sandbox``: Codex's ``--sandbox`` (its own default is
        ``read-only``, where a command that writes fails)."""
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "CODEX_HOME": str(self.home),
            "MOCK_API_KEY": "unused",
            "NO_COLOR": "1",
        }
        command = [
            shutil.which("node") or "node",
            str(self.launcher),
            "exec",
            "--skip-git-repo-check",
            "--sandbox",
            sandbox,  # danger-full-access: the throwaway workdir; bubblewrap may be unusable here
            "-C",
            str(self.workdir),
            *args,
        ]
        done = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        return CodexRun(done.returncode, done.stdout, done.stderr)
