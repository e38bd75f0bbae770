"""The ASGI app of the protocol layer: :func:`create_app` puts a
:class:`~reference_impl.service.responses.ResponsesService` behind Starlette's routes (HTTP and WebSocket mode),
with a straight path for ``POST /v1/responses``."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from ..engine import Engine
from ..flow import ServerBudget
from ..ids import IdFactory, RandomIds
from ..request.prompts import PromptRegistry
from ..sealing import Sealer
from ..stores.base import ResponseStore
from ..stores.memory import MemoryStore
from .responses import Hints, ResponsesService
from .routes import conversation_routes, http_error, server_error
from .sse import SSEResponse, raw_send_scope
from .websocket import Admit, WebSocketLimits, serve_websocket

__all__ = ["create_app"]


class _ResponsesApp(Starlette):
    # POST /v1/responses, the route of every stream, goes straight to its endpoint: the endpoint
    # turns every exception into OpenAI's error response itself, so Starlette's error and
    # exception middleware and its router (~17 µs a request) have nothing to do there.
    create: Callable[[Request], Awaitable[Response | SSEResponse]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw_send_scope(scope, send)  # SSE frames skip the middleware's send wrappers (sse.py)
        create = self.create
        if (
            create is not None
            and not self.user_middleware  # a middleware added later sees every request
            and scope["type"] == "http"
            and scope["path"] == "/v1/responses"
            and scope["method"] == "POST"
            and not scope.get("root_path")
        ):
            scope["app"] = self
            response = await create(Request(scope, receive, send))
            await response(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(
    engine: Engine,
    *,
    store: ResponseStore | None = None,
    ids: IdFactory | None = None,
    clock: Callable[[], float] | None = None,
    api_key: str | None = None,
    max_body_bytes: int = 8 * 1024 * 1024,
    hints: Hints | None = None,
    sealer: Sealer | None = None,
    prompts: PromptRegistry | None = None,
    websocket_limits: WebSocketLimits | None = None,
    websocket_admit: Admit | None = None,
) -> Starlette:
    """The Responses app over ``engine``.

    ``store`` defaults to a :class:`~reference_impl.stores.memory.MemoryStore` (10,000 responses, LRU);
    ``ids`` to random OpenAI-like ids; ``clock`` (unix seconds) to ``time.time``; ``api_key`` set
    requires ``Authorization: Bearer <key>``; ``hints(request)`` (an
    :class:`~reference_impl.engine.EngineHints`) becomes
    ``GenerationRequest.hints``; ``sealer`` seals encrypted reasoning and compactions (default:
    a random key per process, see :mod:`reference_impl.sealing`); ``prompts`` are the templates
    ``prompt`` renders (:mod:`reference_impl.request.prompts`). The service is reachable as
    ``app.state.service``. ``GET /v1/responses`` upgraded is WebSocket mode
    (:mod:`reference_impl.service.websocket`), with ``websocket_limits`` per connection and
    ``websocket_admit`` deciding faults per create.
    """
    service = ResponsesService(
        engine,
        store if store is not None else MemoryStore(),
        ids if ids is not None else RandomIds(),
        clock if clock is not None else time.time,
        api_key,
        max_body_bytes,
        hints,
        sealer,
        prompts,
    )
    ep = service.endpoint

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # An engine may set itself up in the serving loop before the first request (optional:
        # ``async def start()``); SGLang's takes SIGTERM there, and the server takes it back
        # once its start-up is over (reference_impl.server.DrainingServer).
        start = getattr(engine, "start", None)
        if start is not None:
            await start()
        yield
        await service.background.aclose()

    create = ep(service.create)
    routes: list[BaseRoute] = [
        Route("/v1/responses", create, methods=["POST"]),
        Route("/v1/responses/input_tokens", ep(service.input_tokens), methods=["POST"]),
        Route("/v1/responses/compact", ep(service.compact), methods=["POST"]),
        Route("/v1/responses/{response_id}", ep(service.retrieve), methods=["GET"]),
        Route("/v1/responses/{response_id}", ep(service.delete), methods=["DELETE"]),
        Route("/v1/responses/{response_id}/cancel", ep(service.cancel), methods=["POST"]),
        Route("/v1/responses/{response_id}/input_items", ep(service.input_items), methods=["GET"]),
        *conversation_routes(service),
        Route("/v1/models", ep(service.models), methods=["GET"]),
        Route("/v1/models/{model_id:path}", ep(service.model), methods=["GET"]),
    ]

    ws_budget = ServerBudget((websocket_limits or WebSocketLimits()).server_bytes)

    async def websocket_mode(ws: WebSocket) -> None:
        await serve_websocket(
            service, ws, limits=websocket_limits, admit=websocket_admit, budget=ws_budget
        )

    routes.append(WebSocketRoute("/v1/responses", websocket_mode))
    app = _ResponsesApp(
        routes=routes,
        exception_handlers={HTTPException: http_error, Exception: server_error},
        lifespan=lifespan,
    )
    app.create = create
    app.state.service = service
    app.state.websocket_budget = ws_budget  # what its WebSocket clients hold (flow.py)
    return app
