"""The HTTP edges of the reference app: JSON and error responses, the ``/v1/conversations``
routes over a :class:`~reference_impl.service.responses.ResponsesService`, and the handlers that turn Starlette's
404 / 405 and any unexpected exception into OpenAI's error shape. Split from
:mod:`reference_impl.service.responses`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..drain import SHUTDOWN_CODE
from ..errors import APIError, internal_error

if TYPE_CHECKING:
    from .responses import ResponsesService

__all__ = [
    "FAILURE_STATUS",
    "conversation_routes",
    "error_response",
    "http_error",
    "json_response",
    "server_error",
]


# How an engine failure maps to HTTP on a non-stream request.
FAILURE_STATUS = {
    "rate_limit_exceeded": 429,
    "invalid_prompt": 400,
    "context_length_exceeded": 400,
    "invalid_request": 400,  # an engine that refuses the request as asked (the mock's scripts)
    SHUTDOWN_CODE: 503,  # stopped at a shutdown's drain bound: another server may answer it
}


def json_response(
    data: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(orjson.dumps(data), status, headers=headers, media_type="application/json")


def error_response(error: APIError) -> Response:
    return json_response(error.body(), error.status, error.headers)


def conversation_routes(service: ResponsesService) -> list[Route]:
    """``/v1/conversations`` and its items (reference_impl/service/conversations.py)."""
    api = service.conversations
    ep = service.endpoint

    def include(request: Request) -> list[str]:
        query = request.query_params
        return [*query.getlist("include"), *query.getlist("include[]")]

    async def create(request: Request) -> Response:
        return json_response(await api.create(request))

    async def retrieve(request: Request) -> Response:
        return json_response(await api.retrieve(request.path_params["conversation_id"]))

    async def update(request: Request) -> Response:
        return json_response(await api.update(request, request.path_params["conversation_id"]))

    async def delete(request: Request) -> Response:
        return json_response(await api.delete(request.path_params["conversation_id"]))

    async def list_items(request: Request) -> Response:
        conversation_id = request.path_params["conversation_id"]
        page = await api.list_items(conversation_id, request.query_params, include(request))
        return json_response(page)

    async def add_items(request: Request) -> Response:
        conversation_id = request.path_params["conversation_id"]
        return json_response(await api.add_items(request, conversation_id, include(request)))

    async def retrieve_item(request: Request) -> Response:
        params = request.path_params
        return json_response(await api.retrieve_item(params["conversation_id"], params["item_id"]))

    async def delete_item(request: Request) -> Response:
        params = request.path_params
        return json_response(await api.delete_item(params["conversation_id"], params["item_id"]))

    base = "/v1/conversations"
    return [
        Route(base, ep(create), methods=["POST"]),
        Route(base + "/{conversation_id}", ep(retrieve), methods=["GET"]),
        Route(base + "/{conversation_id}", ep(update), methods=["POST"]),
        Route(base + "/{conversation_id}", ep(delete), methods=["DELETE"]),
        Route(base + "/{conversation_id}/items", ep(list_items), methods=["GET"]),
        Route(base + "/{conversation_id}/items", ep(add_items), methods=["POST"]),
        Route(base + "/{conversation_id}/items/{item_id}", ep(retrieve_item), methods=["GET"]),
        Route(base + "/{conversation_id}/items/{item_id}", ep(delete_item), methods=["DELETE"]),
    ]


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        message = f"Method {request.method} is not allowed for {request.url.path}."
        code: str | None = "method_not_allowed"
    elif exc.status_code == 404:
        message = f"Invalid URL ({request.method} {request.url.path})"
        code = "unknown_url"
    else:
        message, code = str(exc.detail), None
    return error_response(APIError(exc.status_code, message, code=code))


async def server_error(request: Request, exc: Exception) -> Response:
    return error_response(internal_error())
