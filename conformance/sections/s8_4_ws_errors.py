"""§8.4 Errors (docs/spec.md#s8-4): ``ws.error.shape``, ``ws.error.status``, ``ws.error.code``.

Every ``error`` event is a ``ResponseWsError`` ([OAPI]; ``ErrorPayload``'s ``code`` and ``param``
a string or null, ``status`` an HTTP status): ``ws.error.shape``, judged by
:func:`judge_error_shape` for each ``error`` the session validator reads (under the
``openresponses`` profile a refusal is [OR]'s ``WebSocketErrorEvent`` instead).

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
from typing import Any, NamedTuple, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Report
from .s8_1_frames import kind

__all__ = [
    "WS_ERROR_CODE",
    "WS_ERROR_SHAPE",
    "WS_ERROR_STATUS",
    "ShapeIssue",
    "declare_examples",
    "error_issues",
    "judge_error_fields",
    "judge_error_shape",
]

WS_ERROR_SHAPE = register(
    "ws.error.shape",
    Level.MUST,
    "§8.4 [OAPI] ResponseWsError, ErrorPayload; [OR] WebSocketErrorEvent",
    "an `error` event is `{type: error, error: {type, code, message, param}, status?, "
    "sequence_number?, stream_id?}` (`code`, `param` may be null; `status` an HTTP status); "
    "under `openresponses` a refusal is [OR]'s `{type: error, status, error: {code, message, "
    "type?, param?}}`",
    profile="websocket",
)

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


class ShapeIssue(NamedTuple):
    """One field of an event that does not have its type's shape."""

    expected: Any
    actual: Any
    path: str


def error_issues(event: Mapping[str, Any], *, openresponses: bool = False) -> list[ShapeIssue]:
    """What makes an ``error`` event not a ``ResponseWsError`` — or, under the ``openresponses``
    profile, a refusal (no ``sequence_number``) not [OR]'s ``WebSocketErrorEvent``."""
    error = event.get("error")
    if not isinstance(error, Mapping):
        return [ShapeIssue("an `error` object", kind(error), "error")]
    if openresponses and "sequence_number" not in event:
        return _openresponses_refusal_issues(event, error)
    out: list[ShapeIssue] = []
    for key in ("type", "message"):
        if not isinstance(error.get(key), str):
            out.append(ShapeIssue("a string", kind(error.get(key)), f"error.{key}"))
    for key in ("code", "param"):
        if key not in error:
            out.append(ShapeIssue("present (null allowed)", "absent", f"error.{key}"))
        elif error[key] is not None and not isinstance(error[key], str):
            out.append(ShapeIssue("a string or null", kind(error[key]), f"error.{key}"))
    status = event.get("status")
    if status is not None and not (type(status) is int and 100 <= status <= 599):
        out.append(ShapeIssue("an HTTP status", status, "status"))
    seq = event.get("sequence_number")
    if seq is not None and type(seq) is not int:
        out.append(ShapeIssue("an integer", kind(seq), "sequence_number"))
    return out


def _openresponses_refusal_issues(
    event: Mapping[str, Any], error: Mapping[str, Any]
) -> list[ShapeIssue]:
    """[OR] ``WebSocketErrorEvent`` (added 2026-04-24; llm-comply 0.5.0's bundled
    ``specs/openresponses.json``): ``status`` an integer, ``error.code`` and ``error.message``
    strings, all required; ``error.type`` and ``error.param`` optional (``param`` a string or
    null). docs/spec.md §8.4."""
    out: list[ShapeIssue] = []
    status = event.get("status")
    if not (type(status) is int and 100 <= status <= 599):
        out.append(ShapeIssue("an HTTP status ([OR] requires it)", kind(status), "status"))
    for key in ("code", "message"):
        if not isinstance(error.get(key), str):
            out.append(
                ShapeIssue("a string ([OR] requires it)", kind(error.get(key)), f"error.{key}")
            )
    if "type" in error and not isinstance(error["type"], str):
        out.append(ShapeIssue("a string", kind(error["type"]), "error.type"))
    param = error.get("param")
    if param is not None and not isinstance(param, str):
        out.append(ShapeIssue("a string or null", kind(param), "error.param"))
    return out


def judge_error_shape(
    state: ErrorState, event: Mapping[str, Any], index: int, *, openresponses: bool
) -> None:
    """An ``error`` event's shape (any ``error`` the session reads: a refusal, a connection's,
    a response's own)."""
    state.exercised.add(WS_ERROR_SHAPE.id)
    for issue in error_issues(event, openresponses=openresponses):
        state._report(WS_ERROR_SHAPE, index, issue.expected, issue.actual, path=issue.path)


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
    from ..examples.sessions import error as refusal

    example(
        WS_ERROR_SHAPE.id,
        Sample(
            "session",
            lambda: [
                ("client", "{oops"),
                (
                    "server",
                    {"type": "error", "status": 400, "error": {"message": "bad JSON", "code": "x"}},
                ),
            ],
        ),
        Sample("session", lambda: [("client", "{oops"), refusal("invalid_json")]),
    )

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
