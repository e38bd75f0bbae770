"""``responses-mock --workers N``: N processes serving one port, their state in one shared store.

The parent parses and checks the arguments, reserves the port (a socket bound with
``SO_REUSEPORT`` that never listens, so ``--port 0`` picks one), clears the store's fault-attempt
counts (a fresh run counts from 1, as a fresh single mock does) and starts N worker processes
(``python -m mock_server.workers``). Each loads the settings the parent parsed once — pickled into
a private file named by ``$RESPONSES_MOCK_WORKER_SETTINGS``, never re-parsed — through
:func:`app` (an import-string factory, so ``uvicorn --factory mock_server.workers:app`` serves it
too), binds the port with
``SO_REUSEPORT`` itself, listens, and tells the parent it is ready; the parent prints
``listening on …`` once all are. The kernel spreads new connections evenly over the workers'
sockets (one shared socket, as uvicorn's own ``--workers`` uses, lets asyncio's accept loop of
whichever worker wakes first take a whole burst). SIGINT / SIGTERM stop every worker (exit 0);
a worker that dies stops the others (exit 2).

What the workers share, through the ``sqlite:PATH`` or ``redis://…`` store (required: ``--workers
N>1`` on ``memory`` is a one-line usage error, exit 2 — each worker would have a store of its
own, and a response created on one would be a 404 on another):

* stored responses, conversations, background responses (a cancel reaching another worker stops
  the run: SQLite polls the flag, Redis publishes it; ``cancelled`` is final in both; a live
  ``GET …?stream=true`` on another worker follows the store's event log by polling);
* fault-attempt counts (``429@1``): :class:`~mock_server.faults.SharedAttemptCounter` counts
  every sight of a request in the store, so a plan means the same with one worker or four;
* ids: each worker takes the next replica number from the store (``R.n`` with ``--replica-id
  R``), so workers never hand out the same id. Which worker answers is the kernel's choice, so
  with N > 1 the ids (never the content) differ from run to run.

Not shared: ``MockServer.queue`` scripts and the request log (in-process test handles; the
pytest plugin runs one process).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from starlette.types import ASGIApp

from mock_server.app import MockSettings

__all__ = ["SETTINGS_ENV", "app", "check_workers", "serve_workers"]

SETTINGS_ENV = "RESPONSES_MOCK_WORKER_SETTINGS"
"""The environment variable naming the file the parent's :class:`MockSettings` are pickled in."""

_READY_TIMEOUT = 60.0


def check_workers(workers: int, store: str) -> str | None:
    """Why ``--workers`` cannot run on ``store``; None when it can."""
    if workers < 1:
        return f"--workers: expected at least 1, got {workers}"
    if workers > 1 and not store.startswith(("sqlite:", "redis://", "rediss://", "unix://")):
        return (
            f"--workers {workers} needs a store the workers share: --store sqlite:PATH or "
            f"--store redis://HOST:PORT/DB (got --store {store})"
        )
    if workers > 1 and not hasattr(socket, "SO_REUSEPORT"):
        return f"--workers {workers} needs SO_REUSEPORT, which this platform lacks"
    return None


def _clear_attempts(settings: MockSettings) -> None:
    from reference_impl.stores.options import make_store

    store = make_store(settings.store, settings.store_ttl, settings.store_limits)
    try:
        store.reset_attempts()
    finally:
        asyncio.run(store.close())


def _settings() -> MockSettings:
    # Written by this worker's parent (serve_workers), private to its user: trusted as argv is.
    with open(os.environ[SETTINGS_ENV], "rb") as file:
        settings = pickle.load(file)
    if not isinstance(settings, MockSettings):
        raise TypeError(f"${SETTINGS_ENV}: not a pickled MockSettings")
    return settings


def app() -> ASGIApp:
    """The ASGI app of one worker: the parent's settings, a replica number of its own, fault
    attempts counted in the shared store."""
    from mock_server.app import MockServer
    from mock_server.faults import SharedAttemptCounter
    from mock_server.middleware import quiet_dropped_connections
    from reference_impl.stores.options import make_store

    settings = _settings()
    if settings.replica_id is not None:  # --replica-id R: worker n is R.n
        claimer = make_store(settings.store, settings.store_ttl, settings.store_limits)
        settings = dataclasses.replace(
            settings, replica_id=f"{settings.replica_id}.{claimer.claim_replica()}"
        )
        asyncio.run(claimer.close())
    server = MockServer(settings)
    shared: Any = server.store  # sqlite: or redis:// (check_workers)
    server.middleware.attempts = SharedAttemptCounter(shared)
    quiet_dropped_connections()
    return server.app


def _socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` with ``SO_REUSEPORT`` (and ``SO_REUSEADDR``)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def serve_workers(
    settings: MockSettings, host: str, port: int, workers: int, log_level: str
) -> int:
    """Serve ``host:port`` with ``workers`` processes until SIGINT / SIGTERM (exit status 0; 2
    when the port cannot be bound, the store cannot be opened or a worker dies)."""
    try:
        reserved = _socket(host, port)
    except OSError as error:
        print(f"responses-mock: cannot bind {host}:{port}: {error}", file=sys.stderr)
        return 2
    try:
        _clear_attempts(settings)
    except Exception as error:  # the shared store cannot be opened
        reserved.close()
        print(f"responses-mock: --store {settings.store}: {error}", file=sys.stderr)
        return 2
    bound_host, bound_port = reserved.getsockname()[:2]
    stop: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda number, _frame: stop.append(number))
    with tempfile.NamedTemporaryFile(  # mode 0600: the settings may hold the API key
        prefix="responses-mock-settings-", suffix=".pickle", delete=False
    ) as file:
        pickle.dump(settings, file)
    env = {**os.environ, SETTINGS_ENV: file.name}
    children: list[subprocess.Popen[bytes]] = []
    try:
        pipes = []
        for _ in range(workers):
            read_end, write_end = os.pipe()
            command = [sys.executable, "-m", "mock_server.workers", "--host", str(bound_host),
                       "--port", str(bound_port), "--log-level", log_level,
                       "--ready-fd", str(write_end)]  # fmt: skip
            children.append(subprocess.Popen(command, env=env, pass_fds=(write_end,)))
            os.close(write_end)
            pipes.append(read_end)
        if not _wait_ready(pipes, children, stop):
            return 0 if stop else 2
        shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
        # The line every tool parses, exactly as a single mock prints it; the count on stderr.
        print(f"listening on http://{shown}:{bound_port}", flush=True)
        print(f"responses-mock: {workers} workers", file=sys.stderr, flush=True)
        while not stop:
            dead = [c for c in children if c.poll() is not None]
            if dead:
                print(
                    f"responses-mock: worker {dead[0].pid} exited ({dead[0].returncode}); "
                    "stopping the others",
                    file=sys.stderr,
                )
                return 2
            time.sleep(0.2)
        return 0
    finally:
        _stop(children, settings.server_limits.drain_timeout + 5)
        reserved.close()
        os.unlink(file.name)


def _wait_ready(pipes: list[int], children: list[subprocess.Popen[bytes]], stop: list[int]) -> bool:
    deadline = time.monotonic() + _READY_TIMEOUT
    waiting = set(pipes)
    try:
        while waiting and not stop:
            left = deadline - time.monotonic()
            if left <= 0 or any(c.poll() is not None for c in children):
                print("responses-mock: a worker did not start; stopping", file=sys.stderr)
                return False
            ready, _, _ = select.select(list(waiting), [], [], min(left, 0.2))
            for fd in ready:
                if os.read(fd, 16):
                    waiting.discard(fd)
        return not waiting
    finally:
        for fd in pipes:
            os.close(fd)


def _stop(children: list[subprocess.Popen[bytes]], grace: float = 10.0) -> None:
    """SIGTERM each worker; kill one still running after ``grace`` seconds (its drain bound and
    some)."""
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for child in children:
        try:
            child.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _worker(argv: Sequence[str] | None = None) -> int:
    """One worker process (started by :func:`serve_workers`)."""
    from reference_impl.server import DrainingServer, hardened_config

    parser = argparse.ArgumentParser(prog="mock_server.workers")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    parser.add_argument("--ready-fd", type=int, required=True)
    args = parser.parse_args(argv)
    sock = _socket(args.host, args.port)
    sock.listen(2048)
    asgi = app()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: None)  # uvicorn re-raises after its graceful shutdown
    limits = _settings().server_limits
    config = hardened_config(asgi, limits, log_level=args.log_level, lifespan="on")
    server = DrainingServer(config)

    async def serve() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started:
            os.write(args.ready_fd, b"ready\n")
        os.close(args.ready_fd)
        await task

    asyncio.run(serve())
    return 0


if __name__ == "__main__":
    raise SystemExit(_worker())
