"""WebSocket mode through the proxy (docs/websocket.md): ``GET /v1/responses`` upgraded.

The upstream socket is opened first, with the client's headers (the hop-by-hop and
``Sec-WebSocket-*`` ones excepted) and its subprotocols: a refusal is handed back to the client as
the upstream's HTTP answer, and counts against ``live.ws.upgrade`` under the ``websocket``
profile. Then frames pass both ways as they arrive — each forwarded first, then fed to a
:class:`~conformance.websocket.SessionValidator` — until either side closes; the close code is
passed on. The session is one exchange of the report: its ``ws.*`` and stream verdicts, with its
last frames as evidence.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from starlette.types import Receive, Send
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from ..catalog import live as L
from ..suite.http import HttpExchange
from ..suite.judgeable import AUTH_STATUSES
from ..suite.probe import _declared
from ..websocket import SessionValidator
from .judge import Verdict
from .kinds import websocket_info
from .ledger import KEPT_FINDINGS

if TYPE_CHECKING:
    from .app import ProxyApp

__all__ = ["forward_websocket"]

MAX_FRAME = 64 * 1024 * 1024
_EVIDENCE_FRAMES = 6
# A session constant in memory, however long (docs/proxy.md): its finished responses past the
# latest RETAINED are folded into its verdict as it goes.
RETAINED = 16


async def forward_websocket(app: ProxyApp, scope: MutableMapping[str, Any], receive: Receive,
                            send: Send) -> None:  # fmt: skip
    started = time.monotonic()
    rel = app.relative(scope["path"])
    query = scope.get("query_string", b"").decode("latin-1")
    await receive()  # websocket.connect
    if rel is None:
        await send({"type": "websocket.close", "code": 1008})
        return
    info = websocket_info(rel, query)
    profiles = app.settings.profiles
    ex = HttpExchange("GET", info.shown, None, stream=True)
    verdict = Verdict(info, ex, session_events=0)
    verdict.judged = info.kind != "other"
    headers = [
        (k.decode("latin-1"), v.decode("latin-1"))
        for k, v in app.forwarded_headers(scope["headers"])
        if not k.lower().startswith(b"sec-websocket-")
    ]
    url = ws_upstream(app.upstream, rel, query)
    try:
        upstream = await connect(
            url,
            additional_headers=headers,
            user_agent_header=None,
            subprotocols=scope.get("subprotocols") or None,
            compression=None,
            open_timeout=min(app.settings.timeout, 30.0),
            ping_interval=None,
            max_size=MAX_FRAME,
            proxy=None,
        )
    except InvalidStatus as exc:
        ex.status = exc.response.status_code
        ex.error = f"the upstream refused the upgrade: HTTP {ex.status}"
        await _refuse(send, exc.response.status_code, bytes(exc.response.body or b""))
        if ex.status in AUTH_STATUSES:  # no verdict: the key was refused, not the upgrade
            verdict.judged = False
            verdict.not_judged = f"authentication refused: HTTP {ex.status} to the upgrade"
        else:
            _upgrade_failed(verdict, profiles, ex.error)
        _finish(app, verdict, started)
        return
    except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
        ex.error = f"no WebSocket from the upstream: {type(exc).__name__}: {exc}"[:300]
        await _refuse(send, 502, b'{"error": {"message": "the upstream did not upgrade", '
                      b'"type": "proxy_error", "param": null, "code": "upstream_error"}}')  # fmt: skip
        _upgrade_failed(verdict, profiles, ex.error)
        _finish(app, verdict, started)
        return
    ex.status = 101
    await send({"type": "websocket.accept", "subprotocol": upstream.subprotocol})
    session = SessionValidator(
        profiles=profiles, coverage=True, retain=RETAINED, kept_per_check=KEPT_FINDINGS
    )
    frames: deque[dict[str, str]] = deque(maxlen=_EVIDENCE_FRAMES)
    tape = None
    if app.recorder is not None:
        target = scope["path"] + (f"?{query}" if query else "")
        tape = app.recorder.begin("GET", target, scope["headers"], b"", websocket=True)
        response = upstream.response
        tape.response(101, list(response.headers.raw_items()) if response is not None else [])
    cut = _Cut()
    try:
        await _pump(upstream, session, frames, receive, send, tape, cut)
    finally:
        if tape is not None and app.recorder is not None:
            app.recorder.finish(tape)
        with contextlib.suppress(Exception):
            await upstream.close()
        # Who cut the session decides (docs/proxy.md): the client's leaving or the proxy's own
        # shutdown leaves the responses in flight unfinished, and that is not the upstream's
        # fault; the upstream closing first is, and is judged.
        session.close(cut=cut.by_client or app.closing)
        verdict.session_events = session.events
        verdict.violations = session.all_violations()
        verdict.omitted = dict(session.omitted)
        verdict.exercised = _declared(session.exercised | session.stream_exercised(), profiles)
        verdict.exercised |= {L.WS_UPGRADE.id} & _declared({L.WS_UPGRADE.id}, profiles)
        verdict.exercised |= {v.check_id for v in verdict.violations}
        verdict.evidence = {"url": "/v1" + info.shown, "frames": list(frames)}
        _finish(app, verdict, started)


class _Cut:
    """Which side ended a session first."""

    def __init__(self) -> None:
        self.by_client = False  # the client disconnected while the upstream's side was open
        self.by_upstream = False  # the upstream's side ended (closed, or the connection lost)


async def _pump(
    upstream: ClientConnection,
    session: SessionValidator,
    frames: deque[dict[str, str]],
    receive: Receive,
    send: Send,
    tape: Any = None,
    cut: _Cut | None = None,
) -> None:
    cut = cut or _Cut()

    async def client_to_upstream() -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                if not cut.by_upstream:
                    cut.by_client = True
                await upstream.close(code=message.get("code", 1000) or 1000)
                return
            frame = message.get("text")
            if frame is None:
                frame = message.get("bytes") or b""
            await upstream.send(frame)
            if tape is not None:
                tape.frame(frame, "client", "text" if isinstance(frame, str) else "binary")
            session.client(frame)
            frames.append({"dir": "client", "frame": _shown(frame)})

    async def upstream_to_client() -> None:
        try:
            async for frame in upstream:
                if isinstance(frame, str):
                    await send({"type": "websocket.send", "text": frame})
                else:
                    await send({"type": "websocket.send", "bytes": bytes(frame)})
                if tape is not None:
                    tape.frame(frame, "server", "text" if isinstance(frame, str) else "binary")
                session.server(frame)
                frames.append({"dir": "server", "frame": _shown(frame)})
        except ConnectionClosed:
            pass
        if not cut.by_client:
            cut.by_upstream = True
        code = upstream.close_code or 1000
        with contextlib.suppress(Exception):
            await send({"type": "websocket.close", "code": code if code != 1006 else 1011})

    tasks = [
        asyncio.ensure_future(client_to_upstream()),
        asyncio.ensure_future(upstream_to_client()),
    ]
    try:
        done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if tasks[0] in done:
            # the client closed: let the upstream's last frames and close arrive, briefly
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(tasks[1]), 2.0)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


def ws_upstream(upstream: str, rel: str, query: str) -> str:
    parts = urlsplit(upstream.rstrip("/") + rel)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, parts.path, query, ""))


def _shown(frame: str | bytes) -> str:
    text = frame if isinstance(frame, str) else f"<binary {len(frame)} bytes>"
    return text[:600]


def _upgrade_failed(verdict: Verdict, profiles: frozenset[str], actual: str) -> None:
    if "websocket" in profiles:
        verdict.exercised.add(L.WS_UPGRADE.id)
        verdict.violations.append(
            L.WS_UPGRADE.violation(expected="a WebSocket upgrade", actual=actual)
        )


async def _refuse(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    try:
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body, "more_body": False})
    except RuntimeError:  # a server without the denial-response extension
        await send({"type": "websocket.close", "code": 1011})


def _finish(app: ProxyApp, verdict: Verdict, started: float) -> None:
    verdict.exchange.elapsed = time.monotonic() - started
    app.ledger.record(verdict)
