"""The loopback relay in front of the target: every request a client program makes goes through
it, so the harness can count them (a flow's request budget) and show the last ones as evidence.

It is the validating proxy (:mod:`conformance.proxy`) run in a thread of this process on
``127.0.0.1:0``: it forwards bytes unchanged (HTTP, SSE, WebSocket mode), and judges each
exchange as ``responses-conformance proxy`` does — the verdicts are kept beside the client's
(``protocol``), never folded into it: a client that works over a stream the judge fails is still a
client that works.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import threading
import time
from collections import deque
from types import TracebackType
from typing import Any

from cassettes.redaction import Redactor

from ..proxy.app import ProxyApp, ProxySettings
from ..proxy.judge import Verdict
from ..proxy.ledger import Ledger
from ..suite.targets import Target

__all__ = ["Relay", "RelayError"]

KEPT = 6  # the last exchanges kept as evidence
_BODY_CHARS = 600  # of an error body


class RelayError(RuntimeError):
    """The relay could not start (the run is broken: exit 2)."""


class _CountingLedger(Ledger):
    """The proxy's ledger, quiet, that also keeps the start of every refusal's body."""

    def __init__(self, target: Target, redactor: Redactor) -> None:
        super().__init__(target, strict=False, out=io.StringIO(), redactor=redactor, quiet=True)
        self.last: deque[dict[str, Any]] = deque(maxlen=KEPT)
        self.lock = threading.Lock()

    def record(self, verdict: Verdict) -> None:
        with self.lock:
            super().record(verdict)
            ex = verdict.exchange
            row: dict[str, Any] = {
                "n": self.exchanges,
                "request": f"{verdict.info.method} /v1{verdict.info.shown}",
                "status": ex.status,
            }
            if verdict.session_events is not None:
                row["websocket_events"] = verdict.session_events
            if ex.error:
                row["error"] = ex.error
            if ex.status is not None and ex.status >= 400:
                row["body"] = _body_text(ex.body, ex.text)
            failing = verdict.failing(strict=False)
            if failing:
                row["protocol_violations"] = sorted({v.check_id for v in failing})
            self.last.append(row)


def _body_text(body: Any, text: str) -> str:
    if body is None:
        shown = text
    else:
        import json

        shown = json.dumps(body, ensure_ascii=False)
    shown = " ".join(shown.split())
    return shown if len(shown) <= _BODY_CHARS else shown[: _BODY_CHARS - 1] + "…"


class Relay:
    """``with Relay(upstream, target) as relay:`` — clients talk to ``relay.base_url``."""

    def __init__(self, upstream: str, target: Target, redactor: Redactor) -> None:
        self.upstream = upstream.rstrip("/")
        self.ledger = _CountingLedger(target, redactor)
        self.base_url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def requests(self) -> int:
        """Exchanges the relay has finished: requests answered, or cut."""
        return self.ledger.exchanges

    def last(self) -> list[dict[str, Any]]:
        with self.ledger.lock:
            return list(self.ledger.last)

    def protocol(self) -> dict[str, int]:
        """The proxy's own verdicts on what it forwarded (beside the client's, never in it)."""
        with self.ledger.lock:
            return {"exchanges": self.ledger.exchanges, "failing": self.ledger.failed}

    def start(self) -> Relay:
        from ..proxy.cli import bind

        sock = bind("127.0.0.1", 0)
        port = sock.getsockname()[1]
        settings = ProxySettings(upstream=self.upstream, profiles=frozenset({"core"}))
        app = ProxyApp(settings, self.ledger)
        self._thread = threading.Thread(
            target=self._serve, args=(app, sock), name="clients-relay", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(10) or self._error is not None:
            raise RelayError(f"the loopback relay did not start: {self._error}")
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    def _serve(self, app: ProxyApp, sock: Any) -> None:
        from ..proxy.server import ProxyServer

        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            stop, force = asyncio.Event(), asyncio.Event()
            self._stop = stop
            server = ProxyServer(app)
            loop.call_soon(self._ready.set)
            force.set()  # stopping cuts what is still open: the flow is over
            loop.run_until_complete(server.serve(sock, stop, force))
        except BaseException as exc:
            self._error = exc
            self._ready.set()
        finally:
            sock.close()
            loop.close()

    def stop(self) -> None:
        loop, stop, thread = self._loop, self._stop, self._thread
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop.set)
        if thread is not None:
            thread.join(10)
        self._thread = None

    def wait_idle(self, seconds: float = 1.0) -> None:
        """Give exchanges the client has just finished a moment to be recorded."""
        deadline = time.monotonic() + seconds
        last = -1
        while time.monotonic() < deadline:
            now = self.requests
            if now == last:
                return
            last = now
            time.sleep(0.1)

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
