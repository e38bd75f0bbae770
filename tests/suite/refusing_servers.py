"""Servers that cannot be judged: a key refused everywhere, a gateway that serves one model only
(answering the others as OpenAI, vLLM, LiteLLM, llama.cpp or Ollama do)."""

from __future__ import annotations

import json
from typing import Any

from asgi_body import drain, json_answer
from suite_support import ASGIApp, Receive, Scope, Send, mock_app

from mock_server.middleware import replayed


def wrong_key_everywhere() -> ASGIApp:
    """Every request refused as OpenAI refuses a wrong key."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        await drain(receive)
        await json_answer(send, 401, {"error": {
            "message": "Incorrect API key provided: sk-wrong.", "type": "invalid_request_error",
            "param": None, "code": "invalid_api_key"}})  # fmt: skip

    return app


# How servers and gateways refuse a model they do not serve (judgeable.py cites each source).
UNKNOWN_MODEL: dict[str, tuple[int, Any]] = {
    "openai": (404, {"error": {"message": "The model `nope` does not exist or you do not have "
                               "access to it.", "type": "invalid_request_error", "param": None,
                               "code": "model_not_found"}}),
    "vllm": (404, {"error": {"message": "The model `nope` does not exist.",
                             "type": "NotFoundError", "param": "model", "code": 404}}),
    "vllm-old": (404, {"object": "error", "message": "The model `nope` does not exist.",
                       "type": "NotFoundError", "param": None, "code": 404}),
    "litellm": (400, {"error": {"message": "/responses: Invalid model name passed in model=nope. "
                                "Call `/v1/models` to view available models for your key.",
                                "type": "None", "param": "None", "code": "400"}}),
    "llama.cpp": (400, {"error": {"code": 400, "message": "model not found",
                                  "type": "invalid_request_error"}}),
    "ollama": (404, {"error": {"message": 'model "nope" not found, try pulling it first',
                               "type": "api_error", "param": None, "code": None}}),
}  # fmt: skip


def refusing_model(vendor: str) -> ASGIApp:
    """The mock behind a gateway that serves only the model `mock`."""
    inner = mock_app()
    status, answer = UNKNOWN_MODEL[vendor]

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await inner(scope, receive, send)
            return
        body = await drain(receive)
        try:
            model = json.loads(body).get("model")
        except (ValueError, AttributeError):
            model = None
        if model is not None and model != "mock":
            await json_answer(send, status, answer)
            return
        await inner(scope, replayed(body, receive), send)

    return app
