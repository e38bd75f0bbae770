"""``responses-mock --workers N``: N processes serving one port (uvicorn's supervisor), their state
in one shared store.

The parent parses and checks the arguments, binds the socket, clears the store's fault-attempt
counts (so a fresh run counts from 1, as a fresh single mock does), then starts N uvicorn worker
processes on that socket; each imports :func:`app` (an import-string factory, as uvicorn's
workers require) and rebuilds the same settings from the argv the parent hands down in
``$RESPONSES_MOCK_WORKER_ARGV`` (JSON). The kernel spreads connections over the workers.

What the workers share, through the ``sqlite:PATH`` or ``redis://…`` store (required: ``--workers
N>1`` on ``memory`` is a usage error, exit 2 — each worker would have a store of its own, and a
response created on one would be a 404 on another):

* stored responses, conversations, background responses (a cancel reaching another worker stops
  the run: SQLite polls the flag, Redis publishes it; ``cancelled`` is final in both);
* fault-attempt counts (``429@1``): :class:`~mock_server.faults.SharedAttemptCounter` counts
  every sight of a request in the store, so a plan means the same with one worker or four;
* ids: each worker takes the next replica number from the store (``R.n`` with ``--replica-id
  R``), so workers never hand out the same id. Which worker answers is the kernel's choice, so
  with N > 1 the ids (not the content) differ from run to run.

Not shared: ``MockServer.queue`` scripts and the request log (in-process test handles; the
pytest plugin runs one process), the background stream a client follows live on another worker
(it is replayed from the store's event log, then followed there by polling).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

from starlette.types import ASGIApp

__all__ = ["ARGV_ENV", "app", "check_workers", "serve_workers"]

ARGV_ENV = "RESPONSES_MOCK_WORKER_ARGV"
"""The environment variable the parent hands its argv down in (JSON list of strings)."""


def check_workers(workers: int, store: str) -> str | None:
    """Why ``--workers`` cannot run on ``store``; None when it can."""
    if workers < 1:
        return f"--workers: expected at least 1, got {workers}"
    if workers > 1 and not store.startswith(("sqlite:", "redis://", "rediss://", "unix://")):
        return (
            f"--workers {workers} needs a store the workers share: --store sqlite:PATH or "
            f"--store redis://HOST:PORT/DB (got --store {store})"
        )
    return None


def _clear_attempts(settings: Any) -> None:
    from reference_impl.store_options import make_store

    store = make_store(settings.store, settings.store_ttl, settings.store_limits)
    try:
        store.reset_attempts()
    finally:
        asyncio.run(store.close())


def app() -> ASGIApp:
    """The ASGI app of one worker (uvicorn ``factory=True``): the parent's settings, a replica
    number of its own, fault attempts counted in the shared store."""
    from mock_server.app import MockServer
    from mock_server.cli import build_parser, settings_from
    from mock_server.faults import SharedAttemptCounter
    from mock_server.middleware import quiet_dropped_connections
    from reference_impl.store_options import make_store

    argv = json.loads(os.environ[ARGV_ENV])
    parser = build_parser()
    settings = settings_from(parser, parser.parse_args(argv))
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


def serve_workers(
    argv: Sequence[str], settings: Any, sock: socket.socket, workers: int, log_level: str
) -> int:
    """Serve on ``sock`` with ``workers`` processes until SIGINT / SIGTERM (exit status 0)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    try:
        _clear_attempts(settings)
    except Exception as error:  # the shared store cannot be opened
        sock.close()
        print(f"responses-mock: --store {settings.store}: {error}", file=sys.stderr)
        return 2
    os.environ[ARGV_ENV] = json.dumps(list(argv))
    config = uvicorn.Config(
        "mock_server.workers:app",
        factory=True,
        workers=workers,
        log_level=log_level,
        lifespan="on",
    )
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    # The socket listens already: connections wait in its backlog until a worker accepts them.
    print(f"listening on http://{shown}:{port} ({workers} workers)", flush=True)
    Multiprocess(config, sockets=[sock]).run()  # SIGINT / SIGTERM: the workers stop, then it
    return 0
