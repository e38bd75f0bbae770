"""Deliberately broken Responses servers, and running the suite against them from a user's seat.

Each broken server is the mock's app behind a small ASGI middleware that reproduces one defect of
``../shared/known-bugs.md`` — rewriting requests, JSON bodies or SSE events — so everything else
about it stays conformant and the suite must name the defect by its check ID. These live in the
tests, not in the product mock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from asgi_body import drain

from mock_server.app import MockServer, MockSettings
from mock_server.middleware import replayed
from reference_impl.server import ServerThread

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# (method, path, body) -> body to forward
RequestHook = Callable[[str, str, Any], Any]
# (method, path, status, body) -> (status, body)
JSONHook = Callable[[str, str, int, Any], tuple[int, Any]]
# (method, path, events) -> events; None in the list means "[DONE]"
SSEHook = Callable[[str, str, list[dict[str, Any] | None]], list[dict[str, Any] | None]]


class Rewriter:
    """Buffers the inner app's answer and rewrites it: JSON bodies with ``on_json``, SSE streams
    (parsed into events, re-encoded one frame each) with ``on_sse``; requests with ``on_request``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        on_request: RequestHook | None = None,
        on_json: JSONHook | None = None,
        on_sse: SSEHook | None = None,
    ) -> None:
        self.app = app
        self.on_request = on_request
        self.on_json = on_json
        self.on_sse = on_sse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        body = await drain(receive)
        if self.on_request is not None and body:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            if parsed is not None:
                body = json.dumps(self.on_request(method, path, parsed)).encode()
        start: Message = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, replayed(body, receive), capture)
        await self._answer(method, path, start, b"".join(chunks), send)

    async def _answer(
        self, method: str, path: str, start: Message, data: bytes, send: Send
    ) -> None:
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        ctype = dict((k.lower(), v) for k, v in headers).get(b"content-type", b"")
        status = int(start.get("status", 500))
        frames: list[bytes]
        if ctype.startswith(b"text/event-stream") and self.on_sse is not None:
            frames = [_frame(e) for e in self.on_sse(method, path, _events(data))]
        elif ctype.startswith(b"application/json") and self.on_json is not None:
            status, value = self.on_json(method, path, status, json.loads(data))
            frames = [json.dumps(value).encode()]
        else:
            frames = [data]
        if not ctype.startswith(b"text/event-stream"):
            headers.append((b"content-length", str(sum(map(len, frames))).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        for frame in frames:
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def _events(data: bytes) -> list[dict[str, Any] | None]:
    out: list[dict[str, Any] | None] = []
    for block in data.decode().split("\n\n"):
        payload = "\n".join(
            line[5:].lstrip() for line in block.splitlines() if line.startswith("data:")
        )
        if payload == "[DONE]":
            out.append(None)
        elif payload:
            out.append(json.loads(payload))
    return out


def _frame(event: dict[str, Any] | None) -> bytes:
    if event is None:
        return b"data: [DONE]\n\n"
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def renumber(events: list[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    """Sequence numbers 0, 1, … again after events were dropped (so only the defect shows)."""
    n = 0
    for event in events:
        if event is not None:
            event["sequence_number"] = n
            n += 1
    return events


def mock_app(**settings: Any) -> ASGIApp:
    app: ASGIApp = MockServer(MockSettings(**settings)).app
    return app


@contextmanager
def serve(app: ASGIApp, *, quiet: bool = False) -> Iterator[str]:
    """Serve ``app`` on a free loopback port; yields the base URL (ending in ``/v1``).
    ``quiet``: no server log (a hung app's handlers are cancelled at shutdown, which uvicorn logs
    as errors)."""
    level = "critical" if quiet else "warning"
    with ServerThread(app, timeout_graceful_shutdown=1, log_level=level) as server:
        yield server.base_url + "/v1"


ROOT = Path(__file__).parents[2]


@dataclass
class SuiteRun:
    code: int
    stdout: str
    stderr: str
    report_dir: Path | None

    @property
    def index(self) -> dict[str, Any]:
        assert self.report_dir is not None
        doc: dict[str, Any] = json.loads((self.report_dir / "index.json").read_text())
        return doc

    def outcomes(self, target: str | None = None) -> dict[str, str]:
        targets = self.index["targets"]
        entry = targets[target] if target else next(iter(targets.values()))
        return {cid: c["outcome"] for cid, c in entry["checks"].items()}

    def failing(self, target: str | None = None) -> set[str]:
        return {cid for cid, o in self.outcomes(target).items() if o in ("fail", "xpass")}


def run_suite(
    *args: str,
    report_dir: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 240,
) -> SuiteRun:
    """``responses-conformance run ARGS`` in a fresh interpreter, as a user runs it."""
    command = [sys.executable, "-m", "conformance.cli", "run", *args]
    if report_dir is not None:
        command += ["--report-dir", str(report_dir)]
    environ = {**os.environ, **(env or {})}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=environ, cwd=ROOT,
        check=False,
    )  # fmt: skip
    return SuiteRun(done.returncode, done.stdout, done.stderr, report_dir)
