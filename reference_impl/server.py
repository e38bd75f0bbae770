"""Run an app with uvicorn: in the foreground (:func:`serve`, or :func:`bind` then
:func:`serve_socket` as the CLIs do) or in a thread (:class:`ServerThread`).

Both bind 127.0.0.1 by default: a test server is not for the network. :class:`ServerThread` picks a free port when
given port 0 and waits until uvicorn reports it started (no sleeps), for tests and plugins.

:class:`ServerLimits` hardens what uvicorn serves (issue #39; docs/limits.md): head, body and
keep-alive timeouts (:mod:`reference_impl.guard`), WebSocket frame size and flow control
(:mod:`reference_impl.flow`), and a bounded graceful shutdown (:class:`DrainingServer`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import threading
import time
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from . import drain
from .flow import DEFAULT_SEND_TIMEOUT, FlowSettings, FlowWebSocketProtocol
from .guard import GuardedHttpProtocol, GuardTimeouts

__all__ = [
    "DrainingServer",
    "ServerLimits",
    "ServerThread",
    "bind",
    "hardened_config",
    "serve",
    "serve_socket",
]

log = logging.getLogger(__name__)

DEFAULT_DRAIN_TIMEOUT = 30.0
_TAIL = 3.0  # at most: the end of the drain bound kept for terminal events, cleanup and exit


def drain_phases(bound: float) -> tuple[float, float]:
    """When, in seconds after the signal, a shutdown bounded by ``bound`` stops the responses
    still generating, and when it cancels what is left: the last third of the bound (at most
    3 s) is kept for the stopped responses' terminal events, the engine's shutdown and the
    process's exit, so the whole shutdown, signal to exit, fits in ``bound`` (on CPU SGLang
    under load that took up to 1.1 s)."""
    tail = min(_TAIL, bound / 3)
    return bound - tail, bound - tail / 2


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """The flags both servers share (docs/cli.md, docs/limits.md); seconds, 0 = no bound."""

    head_timeout: float = 30.0
    body_timeout: float = 30.0
    keep_alive_timeout: float = 5.0
    drain_timeout: float = DEFAULT_DRAIN_TIMEOUT
    ws_send_timeout: float = DEFAULT_SEND_TIMEOUT
    max_frame_bytes: int = 8 * 1024 * 1024  # a WebSocket message; HTTP's body limit


def hardened_config(
    app: ASGIApp, limits: ServerLimits | None = None, **options: Any
) -> uvicorn.Config:
    """A ``uvicorn.Config`` for ``app`` with ``limits`` (default: :class:`ServerLimits`)."""
    limits = limits or ServerLimits()
    options.setdefault("http", GuardedHttpProtocol)  # llhttp, h11 without httptools
    options.setdefault("ws", FlowWebSocketProtocol)
    config = uvicorn.Config(
        app,
        timeout_keep_alive=max(1, round(limits.keep_alive_timeout)),
        ws_max_size=limits.max_frame_bytes,
        timeout_graceful_shutdown=int(limits.drain_timeout) if limits.drain_timeout else None,
        **options,
    )
    config.guard = GuardTimeouts(  # type: ignore[attr-defined]
        limits.head_timeout, limits.body_timeout, limits.keep_alive_timeout
    )
    config.flow = FlowSettings(limits.ws_send_timeout)  # type: ignore[attr-defined]
    config.drain_timeout = limits.drain_timeout  # type: ignore[attr-defined]
    return config


class DrainingServer(uvicorn.Server):
    """uvicorn's server with a bounded graceful shutdown, the same on SIGTERM and SIGINT.

    At the signal it stops accepting at once (the listening sockets close: new connections are
    refused; WebSocket connections get close 1012), lets in-flight requests finish for up to
    ``drain_timeout`` seconds, then stops the responses still generating with a terminal event
    (:mod:`reference_impl.drain`), cancels what is left and returns (exit 0).

    A library that takes SIGTERM from the running loop (SGLang's tokenizer manager does, with
    ``loop.add_signal_handler``, where its request loop starts) would keep the server accepting
    while it drains on its own terms, without a bound: the server takes both signals back at the
    end of its start-up (the app's lifespan starts SGLang's request loop) and at every tick.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.drain_timeout: float = getattr(config, "drain_timeout", DEFAULT_DRAIN_TIMEOUT)
        self.signalled: float | None = None  # time.monotonic() at the first signal

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        # The app's start-up (its lifespan) may have let a library take SIGTERM (SGLang's
        # engine does, reference_impl/sglang/backends.py): take it back before any request.
        self._keep_signals()

    async def on_tick(self, counter: int) -> bool:
        self._keep_signals()
        return await super().on_tick(counter)

    def _keep_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(sig) != self.handle_exit:
                loop.remove_signal_handler(sig)  # another's loop handler, if any
                signal.signal(sig, self.handle_exit)
                log.info("took %s back for the graceful shutdown", signal.Signals(sig).name)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # Ctrl-C twice still forces the exit (uvicorn); SIGTERM twice does too.
        if self.should_exit:
            self.force_exit = True
        elif self.signalled is None:
            self.signalled = time.monotonic()
            self._stop_listening_soon()
        super().handle_exit(sig, frame)

    def _stop_listening_soon(self) -> None:
        # The listening sockets close at the loop's next turn, not at its next tick (up to 0.1 s
        # later, longer while the loop is busy): until then the kernel completes every handshake
        # into the backlog, and a client that connects in that window is accepted after the signal.
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not from the serving loop's thread: shutdown() closes them
            return
        loop.call_soon_threadsafe(self._stop_listening)

    def _stop_listening(self) -> None:
        for server in getattr(self, "servers", ()):
            server.close()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # The bound runs from the signal (or from here, when stopped otherwise) to the exit.
        started = self.signalled if self.signalled is not None else time.monotonic()
        self._stop_listening()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        await asyncio.sleep(0.1)
        stop_at, cancel_at = drain_phases(self.drain_timeout)
        try:
            async with asyncio.timeout(self._left(started, stop_at)):
                await self._wait_tasks_to_complete()
        except TimeoutError:
            stopped = drain.expire()
            log.warning(
                "drain bound of %gs expired: %d response(s) stopped, %d task(s) cancelled",
                self.drain_timeout,
                stopped,
                len(self.server_state.tasks),
            )
            try:
                async with asyncio.timeout(self._left(started, cancel_at)):
                    while self.server_state.tasks and stopped:
                        await asyncio.sleep(0.05)
            except TimeoutError:
                pass
            for task in list(self.server_state.tasks):
                task.cancel(msg="drain bound expired")
            for connection in list(self.server_state.connections):
                transport = getattr(connection, "transport", None)
                if transport is not None:
                    transport.abort()
        if not self.force_exit:
            await self.lifespan.shutdown()

    def _left(self, started: float, at: float) -> float | None:
        """Seconds from now until ``at`` seconds after ``started``; None: no bound."""
        if self.drain_timeout <= 0:
            return None
        return max(0.0, started + at - time.monotonic())


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


def serve_socket(
    app: ASGIApp,
    sock: socket.socket,
    log_level: str = "warning",
    limits: ServerLimits | None = None,
) -> None:
    """Print ``listening on http://HOST:PORT`` and serve ``app`` on ``sock`` until SIGINT or
    SIGTERM; a clean shutdown (:class:`DrainingServer`) returns normally (exit status 0)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    # The socket already listens, so a parent process may connect as soon as it reads this line.
    print(f"listening on http://{shown}:{port}", flush=True)
    config = hardened_config(app, limits, log_level=log_level, lifespan="on")
    # uvicorn shuts down gracefully on SIGINT/SIGTERM and then re-raises the signal to the handler
    # that was installed before it; a no-op one there makes a clean shutdown exit 0.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)
    DrainingServer(config).run(sockets=[sock])


class ServerThread:
    """``with ServerThread(app) as server: server.base_url`` → ``http://127.0.0.1:<port>``."""

    def __init__(
        self,
        app: ASGIApp,
        host: str = "127.0.0.1",
        port: int = 0,
        limits: ServerLimits | None = None,
        **options: Any,
    ) -> None:
        """``limits`` given: served as the CLIs serve (:func:`hardened_config`,
        :class:`DrainingServer`); else plain uvicorn."""
        options.setdefault("log_level", "warning")
        options.setdefault("lifespan", "on")
        if limits is None:
            self.config = uvicorn.Config(app, host=host, port=port, **options)
            self.server = uvicorn.Server(self.config)
        else:
            self.config = hardened_config(app, limits, host=host, port=port, **options)
            self.server = DrainingServer(self.config)
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
