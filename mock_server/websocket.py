"""The mock's faults and request log for WebSocket mode (reference_impl.service.websocket serves it).

Each ``response.create`` over a socket is one *request* to the fault plan, as a ``POST`` is over
HTTP: its attempt number counts the same create text seen before on any connection, the plan comes
from ``--fault`` or the upgrade's ``x-mock-fault`` header, and it is logged in
``MockServer.requests`` (method ``WS``). What each fault does over a socket:

- a status fault (``429@1``): an ``error`` event with that ``status`` and OpenAI's body, on the
  lane; the connection stays open;
- ``error=N``: the engine fails after N tokens (``error`` + ``response.failed``, as over SSE);
- ``drop=N``: the server closes the connection (code 1011) after N events of the response, with no
  terminal event;
- ``slow=S``: the response starts S seconds late.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from starlette.websockets import WebSocket

from mock_server.engine import SCENARIO_HEADER
from mock_server.faults import FaultSyntaxError, error_body
from mock_server.middleware import MockMiddleware, RecordedRequest
from mock_server.scenarios import SCENARIOS
from reference_impl.engine import EngineHints
from reference_impl.errors import APIError
from reference_impl.service.websocket import Admission

__all__ = ["websocket_admission"]


def websocket_admission(
    middleware: MockMiddleware, ws: WebSocket, raw: bytes, body: Mapping[str, Any]
) -> Admission:
    headers = {k.lower(): v for k, v in ws.headers.items()}
    try:
        plan = middleware._plan_for(headers)
    except FaultSyntaxError as bad:
        return Admission(error=APIError(400, str(bad), param="x-mock-fault"))
    scenario = headers.get(SCENARIO_HEADER)
    if scenario is not None and scenario not in SCENARIOS:
        message = f"Unknown mock scenario {scenario!r}; known: {', '.join(SCENARIOS)}."
        return Admission(error=APIError(400, message, param=SCENARIO_HEADER))
    fingerprint = hashlib.sha256(b"\0".join([b"WS", ws.url.path.encode(), raw])).digest()
    with middleware._lock:
        attempt = middleware.attempts.next(fingerprint)
    seed = middleware.seed.to_bytes(8, "big", signed=True)
    injection = plan.injection(attempt, seed + fingerprint)
    with middleware._lock:
        middleware.requests.append(
            RecordedRequest(
                "WS",
                ws.url.path,
                ws.url.query,
                headers,
                raw,
                attempt,
                injection,
            )
        )
    error: APIError | None = None
    if injection.status is not None:
        detail = error_body(injection.status, attempt, injection.retry_after)["error"]
        assert isinstance(detail, dict)
        error = APIError(
            injection.status,
            str(detail["message"]),
            type=str(detail["type"]),
            code=str(detail["code"]),
        )
    return Admission(
        hints=EngineHints(headers=headers, attempt=attempt, error_after=injection.error_after),
        delay=injection.slow,
        error=error,
        drop_after=injection.drop_after,
    )
