"""§8.4 Errors (docs/spec.md#s8-4): ``ws.error.status``, ``ws.error.code``.

An ``error`` event without a ``sequence_number`` refuses a request (or is connection-scoped): a
WebSocket protocol error. [OAPI] ``ResponseWsError`` makes its ``status`` ("the HTTP status code
associated with a WebSocket protocol error") optional and ``ErrorPayload.code`` a string or null
(``ws.error.shape`` holds them to that). Clients branch on both: codex-rs
(``codex-api/src/endpoint/responses_websocket.rs``, ``map_wrapped_websocket_error_event``) turns
``error.code`` ``previous_response_not_found`` / ``websocket_connection_limit_reached`` into a retry,
and any other error into an HTTP error of ``status`` (its retry, re-authentication and fallback
rules are by status) — without ``status`` it is only an unclassified provider failure; the Agents
SDK retries on ``code == "server_is_overloaded"``; the openai SDK's README tells users to handle
``previous_response_not_found``, ``invalid_stream_id``, ``websocket_stream_limit_reached`` and
``websocket_connection_limit_reached`` "through the original error event". The schema allows
their absence. ``status``: no recording contradicts it, so a SHOULD. ``code``: OpenAI's own HTTP
refusals carry ``code: null`` in 23 of the 51 error bodies recorded in the corpus (the same
``ErrorPayload`` a WebSocket refusal carries), so a missing code is INFO; the codes clients branch
on are required where they are documented, by the live cases (``previous_response_not_found``,
§8.7). (An error inside a response's stream is judged by §1.2.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Report

__all__ = ["WS_ERROR_CODE", "WS_ERROR_STATUS", "declare_examples", "judge_error_fields"]

WS_ERROR_STATUS = register(
    "ws.error.status",
    Level.SHOULD,
    "§8.4 [OAPI] ResponseWsError.status; codex-rs responses_websocket.rs",
    "an `error` event that refuses a request (no `sequence_number`) carries `status`, the integer "
    "HTTP status (4xx or 5xx) of the refusal",
    profile="websocket",
)
WS_ERROR_CODE = register(
    "ws.error.code",
    Level.INFO,
    "§8.4 [OAPI] ErrorPayload.code; codex-rs responses_websocket.rs; [SDK] README",
    "an `error` event that refuses a request (no `sequence_number`) names its `error.code`, a "
    "non-empty string",
    profile="websocket",
)
_IDS = (WS_ERROR_STATUS.id, WS_ERROR_CODE.id)


class ErrorState(Protocol):
    """What the rule reads and writes of the session validator."""

    exercised: set[str]

    @property
    def _report(self) -> _Report: ...


def judge_error_fields(state: ErrorState, event: Mapping[str, Any], index: int) -> None:
    """A protocol ``error`` event's ``status`` and ``error.code`` (one with a
    ``sequence_number`` belongs to a response's stream: not judged here)."""
    if "sequence_number" in event:
        return
    state.exercised.update(_IDS)
    status = event.get("status")
    if not (type(status) is int and 400 <= status <= 599):
        state._report(
            WS_ERROR_STATUS,
            index,
            "an integer HTTP status, 400-599",
            "absent" if status is None else repr(status),
            path="status",
        )
    error = event.get("error")
    code = error.get("code") if isinstance(error, Mapping) else None
    if not (isinstance(code, str) and code):
        state._report(
            WS_ERROR_CODE,
            index,
            "a string code (e.g. `previous_response_not_found`)",
            "absent" if code is None else repr(code),
            path="error.code",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.registry import Sample, example

    def session(
        status: int | None = 400, code: str | None = "previous_response_not_found"
    ) -> list[tuple[str, Any]]:
        """A continuation of an unknown `store: false` response, refused."""
        refused = {"type": "response.create", "model": "m", "input": "hi", "store": False,
                   "previous_response_id": "resp_gone"}  # fmt: skip
        error = {"type": "invalid_request_error", "code": code, "param": "previous_response_id",
                 "message": "Previous response with id 'resp_gone' not found."}  # fmt: skip
        event: dict[str, Any] = {"type": "error", "error": error}
        if status is not None:
            event["status"] = status
        return [("client", refused), ("server", event)]

    example(
        WS_ERROR_STATUS.id,
        Sample("session", lambda: session(status=None), "no `status`"),
        Sample("session", session, "`status: 400`"),
    )
    example(
        WS_ERROR_CODE.id,
        Sample("session", lambda: session(code=None), "`error.code: null` (the schema allows it)"),
        Sample("session", session, "`error.code: previous_response_not_found`"),
    )
