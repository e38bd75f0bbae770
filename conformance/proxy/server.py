"""The proxy's server: its listening socket, every client connection and open exchange, the
pool of upstream connections, and the shutdown that ends them (the connections' protocols are in
:mod:`conformance.proxy.transport`)."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any
from urllib.parse import urlsplit

from .app import ProxyApp
from .exchange import RelayedExchange
from .pool import UpstreamPool
from .transport import ClientConnection

__all__ = ["ProxyServer", "cut_at"]


def cut_at(bound: float) -> float:
    """Seconds after the signal at which a shutdown bounded by ``bound`` cuts the exchanges still
    in flight: its last quarter, at most 2 s, is kept for them to record themselves as cut."""
    return bound - min(2.0, bound / 4)


class ProxyServer:
    """Every client connection, open exchange and upstream connection of one proxy."""

    def __init__(self, app: ProxyApp) -> None:
        self.app = app
        parts = urlsplit(app.upstream)
        secure = parts.scheme == "https"
        self.pool = UpstreamPool(
            parts.hostname or "127.0.0.1",
            parts.port or (443 if secure else 80),
            ssl.create_default_context() if secure else None,
            connect_timeout=min(app.settings.timeout, 10.0),
        )
        self.base_path = parts.path.rstrip("/")
        self.host_header = parts.netloc.rsplit("@", 1)[-1].encode("idna")
        self.connections: set[ClientConnection] = set()
        self.exchanges: dict[asyncio.Task[None], RelayedExchange] = {}
        self.closing = False
        self._ws: Any = None  # uvicorn's WebSocket config and server state, made on first use

    async def serve(self, sock: Any, stop: asyncio.Event, force: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: ClientConnection(self), sock=sock, backlog=2048)
        try:
            await stop.wait()
        finally:
            server.close()
            await self.shutdown(force)

    async def shutdown(self, force: asyncio.Event) -> None:
        """Stop (SIGTERM / SIGINT, docs/proxy.md): the listening socket is already closed (new
        connections are refused); WebSocket sessions are closed now with 1012 and idle
        connections at once; HTTP exchanges in flight may finish until :func:`cut_at` (less after
        a second signal), then are cut and get until the bound to record themselves, so the
        relay is over within ``drain_timeout`` seconds of the signal (the reports are written
        after). Whatever is cut is recorded as cut by the proxy, not failed as the upstream's
        doing."""
        self.closing = True
        self.app.close_exchanges()  # WebSocket sessions: 1012
        if self._ws is not None:
            for ws in list(self._ws[1].connections):
                ws.shutdown()
        for conn in list(self.connections):
            if conn.exchange is None:  # idle, or a request still arriving: nothing to drain
                conn.close()
        loop = asyncio.get_running_loop()
        waiter = asyncio.ensure_future(force.wait())
        rest = {t for t in self.exchanges if not t.done()}
        started, bound = loop.time(), self.app.settings.drain_timeout
        deadline = started + cut_at(bound)
        while rest and not waiter.done() and (left := deadline - loop.time()) > 0:
            done, _ = await asyncio.wait(
                [*rest, waiter], timeout=left, return_when=asyncio.FIRST_COMPLETED
            )
            rest -= done
        for task, exchange in list(self.exchanges.items()):
            if not exchange.body_ended:  # the drain bound passed: cut now
                task.cancel()
        rest = {t for t in [*self.exchanges, *self.app.tasks()] if not t.done()}
        if rest:  # the rest of the bound for the cut ones to record themselves
            deadline = max(started + bound, loop.time() + 0.05)
            while rest and not waiter.done() and (left := deadline - loop.time()) > 0:
                done, _ = await asyncio.wait(
                    [*rest, waiter], timeout=left, return_when=asyncio.FIRST_COMPLETED
                )
                rest -= done
            for task in rest:  # still open: cut now
                task.cancel()
            if rest:
                await asyncio.wait(rest, timeout=0.25)
        waiter.cancel()
        for conn in list(self.connections):
            conn.close()
        self.pool.close()

    def websocket(self) -> tuple[Any, Any]:
        if self._ws is None:
            import uvicorn
            from uvicorn.server import ServerState

            from .ws_protocol import ProxyWebSocketProtocol

            config = uvicorn.Config(
                self.app, log_level="warning", lifespan="off", proxy_headers=False,
                server_header=False, date_header=False, ws_max_size=64 * 1024 * 1024,
                ws=ProxyWebSocketProtocol,
            )  # fmt: skip
            config.load()
            self._ws = (config, ServerState())
        ws: tuple[Any, Any] = self._ws
        return ws
