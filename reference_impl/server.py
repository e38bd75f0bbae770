"""Run an app with uvicorn: in the foreground (:func:`serve`, or :func:`bind` then
:func:`serve_socket` as the CLIs do) or in a thread (:class:`ServerThread`).

Both bind 127.0.0.1 by default: a test server is not for the network. :class:`ServerThread` picks a free port when
given port 0 and waits until uvicorn reports it started (no sleeps), for tests and plugins.
"""

from __future__ import annotations

import signal
import socket
import threading
from types import TracebackType
from typing import Any

import uvicorn
from starlette.types import ASGIApp

__all__ = ["ServerThread", "bind", "serve", "serve_socket"]


def serve(app: ASGIApp, host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Serve ``app`` until interrupted; ``options`` go to ``uvicorn.Config``."""
    options.setdefault("log_level", "info")
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, **options)).run()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, made as uvicorn makes its own: the address family and protocol from
    ``getaddrinfo`` (an IPPROTO_TCP socket, on whose connections asyncio turns Nagle's algorithm
    off), ``SO_REUSEADDR``, inheritable. Raises ``OSError`` when the address cannot be bound."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve_socket(app: ASGIApp, sock: socket.socket, log_level: str = "warning") -> None:
    """Print ``listening on http://HOST:PORT`` and serve ``app`` on ``sock`` until SIGINT or
    SIGTERM; a clean shutdown returns normally (exit status 0)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    # The socket already listens, so a parent process may connect as soon as it reads this line.
    print(f"listening on http://{shown}:{port}", flush=True)
    config = uvicorn.Config(app, log_level=log_level, lifespan="on")
    # uvicorn shuts down gracefully on SIGINT/SIGTERM and then re-raises the signal to the handler
    # that was installed before it; a no-op one there makes a clean shutdown exit 0.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)
    uvicorn.Server(config).run(sockets=[sock])


class ServerThread:
    """``with ServerThread(app) as server: server.base_url`` → ``http://127.0.0.1:<port>``."""

    def __init__(
        self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0, **options: Any
    ) -> None:
        options.setdefault("log_level", "warning")
        options.setdefault("lifespan", "on")
        self.config = uvicorn.Config(app, host=host, port=port, **options)
        self.server = uvicorn.Server(self.config)
        self._thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)

    @property
    def port(self) -> int:
        for server in self.server.servers:
            for sock in server.sockets:
                return int(sock.getsockname()[1])
        raise RuntimeError("the server is not listening")

    @property
    def base_url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> ServerThread:
        self._thread.start()
        started = threading.Event()

        def poll() -> None:
            while not self.server.started and self._thread.is_alive():
                started.wait(0.005)

        poller = threading.Thread(target=poll)
        poller.start()
        poller.join(timeout)
        if not self.server.started:
            self.stop()
            raise RuntimeError("uvicorn did not start")
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self._thread.join(timeout)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
