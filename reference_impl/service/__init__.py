"""The Responses service and its ASGI app: what an engine and a store become on the wire.

* :mod:`.app` — :func:`~reference_impl.service.app.create_app`, the Starlette app (HTTP and
  WebSocket mode) around a service;
* :mod:`.responses` — :class:`~reference_impl.service.responses.ResponsesService`, the
  ``/v1/responses`` endpoints over an :class:`~reference_impl.engine.Engine` and a store;
* :mod:`.conversations` — the Conversations API and ``conversation`` on create;
* :mod:`.compaction` — ``POST /v1/responses/compact`` and ``context_management``;
* :mod:`.runner` — the async shell around the assembler: drive an engine, background responses;
* :mod:`.routes` — the HTTP edges: JSON and error responses, the conversation routes, 404 / 405;
* :mod:`.sse` — SSE framing and the streaming ASGI response;
* :mod:`.websocket` — WebSocket mode, the same responses as over SSE;
* :mod:`.steering` — ``response.steer`` over WebSocket mode.
"""
