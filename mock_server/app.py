"""The mock server as an ASGI app: the reference protocol layer driven by :class:`MockEngine`,
with deterministic ids, an optional frozen clock, and the fault / recording middleware.

``MockServer(MockSettings(seed=1, frozen_time=FROZEN_TIME)).app`` is the ASGI app to serve;
the same object is the scripting handle (:meth:`MockServer.queue`, :attr:`MockServer.requests`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.types import ASGIApp

from mock_server.agent_script import AgentScript, step_faults
from mock_server.engine import REQUEST_LOG, REQUEST_LOG_BYTES, Chunking, Latency, MockEngine, Script
from mock_server.faults import FaultPlan
from mock_server.ids import DeterministicIds
from mock_server.middleware import (
    DEFAULT_MAX_BODY_BYTES,
    MockMiddleware,
    RecordedRequest,
    request_hints,
)
from mock_server.websocket import websocket_admission
from reference_impl.engine import GenerationRequest
from reference_impl.request.prompts import PromptRegistry
from reference_impl.sealing import Sealer
from reference_impl.server import ServerLimits
from reference_impl.service.app import create_app
from reference_impl.service.websocket import WebSocketLimits
from reference_impl.stores.base import ResponseStore, StoreLimits
from reference_impl.stores.options import DEFAULT_STORE_TTL, replica_for
from reference_impl.stores.options import make_store as reference_store

if TYPE_CHECKING:
    from mock_server.replay import ReplayApp, ReplaySettings

__all__ = [
    "FROZEN_TIME",
    "MockServer",
    "MockSettings",
    "check_store_spec",
    "make_store",
    "seed_sealer",
]

FROZEN_TIME = 1_700_000_000
"""The instant ``--frozen-time`` uses when given no value (2023-11-14T22:13:20Z)."""


@dataclass(frozen=True, slots=True)
class MockSettings:
    seed: int = 0
    scenario: str = "auto"
    latency: Latency = field(default_factory=Latency)
    chunking: Chunking = field(default_factory=Chunking)
    faults: FaultPlan = field(default_factory=FaultPlan)
    frozen_time: float | None = None  # unix seconds every timestamp takes; None = real time
    store: str = "memory"  # "memory", "memory:MAX_RESPONSES", "sqlite:PATH" or "redis://…"
    store_ttl: float | None = DEFAULT_STORE_TTL  # seconds a response is kept; None = forever
    api_key: str | None = None
    request_log: int = REQUEST_LOG  # recent requests kept for `requests` / `generations`
    script: AgentScript | None = None  # agent script for requests that name none (--script)
    request_log_bytes: int = REQUEST_LOG_BYTES  # their bodies' bytes kept (older ones truncated)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # larger request bodies get 413, unread
    # The secret sealed state (encrypted reasoning, compactions) is keyed by; None: the seed.
    state_secret: str | None = None
    prompts: str | None = (
        None  # a prompts file (reference_impl/request/prompts.py) for `prompt` on create
    )
    # Cassettes (docs/cassettes.md): record every exchange into this folder (mock_server/record.py)
    record: str | None = None
    replay: ReplaySettings | None = None  # serve a cassette (mock_server/replay.py)
    replica_id: str | None = None  # enters every id: replicas sharing a store never collide
    store_limits: StoreLimits = field(default_factory=StoreLimits)  # caps (--store-max-*)
    # Timeouts, frame size and shutdown (--head-timeout, ...; reference_impl/server.py)
    server_limits: ServerLimits = field(default_factory=ServerLimits)
    websocket_limits: WebSocketLimits = field(default_factory=WebSocketLimits)  # --ws-*-bytes


def seed_sealer(seed: int) -> Sealer:
    """The sealer of a mock without ``--state-secret-env``: its key a pure function of ``--seed``,
    so sealed ``encrypted_content`` is byte-stable across runs like the rest of its output."""
    return Sealer(f"responses-mock seed {seed}".encode())


def check_store_spec(spec: str) -> tuple[str, str]:
    """``(kind, argument)`` of a store spec; :class:`ValueError` when it is malformed."""
    if spec.startswith(("redis://", "rediss://", "unix://")):
        return "redis", spec
    kind, _, arg = spec.partition(":")
    if (kind == "memory" and (not arg or (arg.isdigit() and int(arg) > 0))) or (
        kind == "sqlite" and arg
    ):
        return kind, arg
    raise ValueError(
        f"bad store {spec!r}: use memory, memory:MAX_RESPONSES, sqlite:PATH or redis://HOST:PORT/DB"
    )


def make_store(
    spec: str, ttl_seconds: float | None = None, limits: StoreLimits | None = None
) -> ResponseStore:
    """``memory`` (the reference default cap), ``memory:N``, ``sqlite:PATH`` or ``redis://…``
    (the reference's stores), each response kept ``ttl_seconds`` after its last write, within
    ``limits``."""
    check_store_spec(spec)
    store: ResponseStore = reference_store(spec, ttl_seconds, limits)
    return store


class MockServer:
    """One mock server's state: engine, store, id counter, attempt counter, request log."""

    def __init__(self, settings: MockSettings | None = None) -> None:
        self.settings = settings = settings or MockSettings()
        self.engine = MockEngine(
            seed=settings.seed,
            scenario=settings.scenario,
            latency=settings.latency,
            chunking=settings.chunking,
            request_log=settings.request_log,
            script=settings.script,
            request_log_bytes=settings.request_log_bytes,
        )
        frozen = settings.frozen_time
        clock: Callable[[], float] = time.time if frozen is None else (lambda: frozen)
        self.store = make_store(settings.store, settings.store_ttl, settings.store_limits)
        # On a shared store (SQLite, Redis) without --replica-id, the store numbers this process.
        self.replica_id = replica_for(self.store, settings.replica_id)
        inner = create_app(
            self.engine,
            store=self.store,
            ids=DeterministicIds(settings.seed, self.replica_id),
            clock=clock,
            api_key=settings.api_key,
            max_body_bytes=settings.max_body_bytes,
            hints=request_hints,
            websocket_limits=settings.websocket_limits,
            websocket_admit=lambda ws, raw, body: websocket_admission(
                self.middleware, ws, raw, body
            ),
            sealer=(
                Sealer(settings.state_secret.encode())
                if settings.state_secret is not None
                else seed_sealer(settings.seed)
            ),
            prompts=PromptRegistry.from_file(settings.prompts) if settings.prompts else None,
        )
        self.replay: ReplayApp | None = None
        if settings.replay is not None:
            from mock_server.replay import ReplayApp

            self.replay = ReplayApp(settings.replay, fallback=inner)
        self.middleware = MockMiddleware(
            self.replay or inner,
            plan=settings.faults,
            seed=settings.seed,
            request_log=settings.request_log,
            request_log_bytes=settings.request_log_bytes,
            max_body_bytes=settings.max_body_bytes,
            step_faults=lambda headers, body: step_faults(headers, body, settings.script),
        )
        self.app: ASGIApp = self.middleware
        if settings.record is not None:
            from mock_server.record import RecordingApp

            self.app = RecordingApp(self.app, settings.record, secrets=[settings.api_key])

    def queue(self, *scripts: Script) -> None:
        """Answer the next generation requests with these scenario names or chunk lists."""
        self.engine.queue(*scripts)

    def queue_text(self, text: str) -> None:
        self.engine.queue_text(text)

    @property
    def requests(self) -> Sequence[RecordedRequest]:
        """The HTTP requests the server received, in order (with their attempt numbers): the
        most recent ``MockSettings.request_log`` of them (1,000 by default), their bodies within
        ``MockSettings.request_log_bytes`` (64 MiB): older bodies beyond it are cut to their first
        bytes, and ``.truncated`` says so (``.json()`` then raises :class:`TruncatedBody`)."""
        return list(self.middleware.requests)

    @property
    def generations(self) -> Sequence[GenerationRequest]:
        """The requests the engine was asked to answer, normalized (the most recent
        ``MockSettings.request_log``, fewer when their bodies outweigh
        ``MockSettings.request_log_bytes``)."""
        return list(self.engine.requests)

    def reset(self) -> None:
        """Forget queued scripts, recorded requests and attempt counts (not stored responses)."""
        self.engine.clear()
        self.middleware.reset()
        if self.replay is not None:
            self.replay.rewind()
