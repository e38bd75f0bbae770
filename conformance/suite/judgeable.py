"""Could the answer be judged at all? Sans I/O: the status, content type and body of one answer in,
a one-line reason out when it is no answer of a Responses server to judge.

A run, a proxy session or a benchmark that meets one of these has not found a defect: it has
not reached the server it meant to judge, and says so (exit 2) instead of deriving outcomes from
the refusal:

- **authentication refused**: ``401`` or ``403`` — a wrong or missing key, a key without access
  to the route (the 4xx is the gateway's, not an answer to the request's content);
- **a model the server does not serve**: OpenAI's ``model_not_found`` code, and the phrasings of
  the servers and gateways that answer it otherwise — vLLM and SGLang (``404``, "The model `x`
  does not exist.", ``type: NotFoundError``, at the top level in older vLLM), llama.cpp's router
  (``400`` "model not found"), Ollama ("model \\"x\\" not found"), LiteLLM (``400`` "Invalid model
  name passed in model=x"), OpenRouter ("x is not a valid model ID");
- **not a Responses server**: an HTML page (a static file server, a gateway's login page; a
  ``5xx`` page is a server error, and judged), or — for the create endpoint itself — ``404``/``405``/``501`` (no such route) or a
  ``2xx`` body that is not JSON.

A ``404`` in OpenAI's error shape from an endpoint that exists — ``previous_response_not_found``,
an unknown response id — is an answer to the request, and stays a verdict: :func:`refusal` with
``endpoint=False`` (any request but the first create) only names authentication refusals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["AUTH_STATUSES", "model_unknown", "refusal", "unjudgeable_create"]

AUTH_STATUSES = (401, 403)
NO_ROUTE = (404, 405, 501)

# How servers and gateways say "no such model", read from their sources and issue threads:
# vLLM/SGLang serving_engine `_check_model` ("The model `x` does not exist."), llama.cpp's router
# ("model not found"), Ollama ("model \"x\" not found, try pulling it first"), LiteLLM's
# ProxyModelNotFoundError ("Invalid model name passed in model=x"), OpenRouter ("x is not a valid
# model ID"), and OpenAI's own `model_not_found` code ("The model `x` does not exist or you do
# not have access to it.").
_MODEL_PHRASES = re.compile(
    r"model\b[^.\n]{0,200}?\b(?:does not exist|not found|is not (?:available|served|supported))"
    r"|\b(?:invalid|unknown|unsupported) model\b"
    r"|\bno such model\b"
    r"|\bnot a valid model\b",
    re.IGNORECASE,
)
_MODEL_CODES = frozenset({"model_not_found", "invalid_model", "model_not_available"})


def _error_of(body: Any) -> Mapping[str, Any] | None:
    """The error object of an error body: OpenAI's ``{"error": {...}}``, or the top-level object
    older vLLM and some gateways send (``{"object": "error", "message": ...}``)."""
    if not isinstance(body, Mapping):
        return None
    inner = body.get("error")
    if isinstance(inner, Mapping):
        return inner
    if isinstance(inner, str):
        return {"message": inner}
    if body.get("object") == "error" or "message" in body or "detail" in body:
        return body
    return None


def _message(error: Mapping[str, Any]) -> str:
    for key in ("message", "detail", "error"):
        value = error.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping):  # LiteLLM has nested its message in an object
            nested = _message(value)
            if nested:
                return nested
    return ""


def model_unknown(status: int | None, body: Any) -> str | None:
    """The server's words when a 4xx says it does not serve the model, else ``None``."""
    if status is None or not 400 <= status < 500 or status == 429:
        return None
    error = _error_of(body)
    if error is None:
        return None
    code = error.get("code")
    kind = error.get("type")
    message = _message(error)
    if (isinstance(code, str) and code in _MODEL_CODES) or (
        isinstance(kind, str) and kind in _MODEL_CODES
    ):
        return message or str(code)
    if message and _MODEL_PHRASES.search(message):
        return message
    return None


def _is_html(content_type: str, text: str) -> bool:
    if content_type.split(";", 1)[0].strip().lower() in ("text/html", "application/xhtml+xml"):
        return True
    head = text.lstrip()[:64].lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body"))


def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def refusal(status: int | None, content_type: str, body: Any, text: str) -> str | None:
    """Why an answer to *any* request is no answer to judge: authentication refused (401/403),
    or an HTML page below 500; else ``None``. ``body`` is the parsed JSON (``None`` when it is not JSON),
    ``text`` the body's first characters when it is not JSON."""
    if status in AUTH_STATUSES:
        error = _error_of(body)
        said = _message(error) if error is not None else _short(text)
        return f"authentication refused: HTTP {status}" + (f" ({_short(said)})" if said else "")
    if status is not None and status < 500 and body is None and _is_html(content_type, text):
        # a 5xx page (a gateway's 502 in front of a server that crashed) is a server error: judged
        return f"not a Responses server: HTTP {status} with an HTML page"
    return None


def unjudgeable_create(
    status: int | None, content_type: str, body: Any, text: str, *, model: str, what: str,
    is_json: bool = False,
) -> str | None:  # fmt: skip
    """Why the answer to a plain create request (``what``: e.g. ``POST /v1/responses``) shows the
    target cannot be judged, else ``None``: :func:`refusal`, a model it does not serve, no such
    route, or a 2xx body that is not JSON (nor a stream). ``is_json``: the body parsed as JSON —
    a JSON ``null`` (``body`` None) is an answer to judge, a wrong one, not a sign of another
    kind of server (open-responses-server answers every non-streamed create so)."""
    reason = refusal(status, content_type, body, text)
    if reason is not None:
        return reason
    said = model_unknown(status, body)
    if said is not None:
        return f"the server does not serve the model {model!r}: HTTP {status} ({_short(said)})"
    if status in NO_ROUTE:
        return f"not a Responses server: {what} answered HTTP {status}"
    streamed = content_type.startswith("text/event-stream")
    if status is not None and 200 <= status < 300 and body is None and not is_json and not streamed:
        shown = content_type.split(";", 1)[0] or "no content type"
        return f"not a Responses server: {what} answered HTTP {status} with {shown}, not JSON"
    return None
