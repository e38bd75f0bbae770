"""The shapes of the session's own server events: ``error`` ([OAPI] ``ResponseWsError``, checked
as ``ws.error.shape``) and the steering answers ([SDK] ``response_steer_{accepted,pending,failed}
_event.py``, checked as ``ws.steer.shape``). Pure functions: each returns what is wrong with one
event, and :class:`~conformance.websocket.session.SessionValidator` reports it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..sections.s8_1_frames import kind

__all__ = ["ShapeIssue", "error_issues", "steer_issues"]


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


def steer_issues(event: Mapping[str, Any], etype: str) -> list[ShapeIssue]:
    """What makes a ``response.steer.accepted`` / ``.pending`` / ``.failed`` event miss the
    fields its SDK type requires."""
    out: list[ShapeIssue] = []
    if type(event.get("sequence_number")) is not int:
        out.append(ShapeIssue("an integer", kind(event.get("sequence_number")), "sequence_number"))
    steer = event.get("steer")
    if not isinstance(steer, Mapping):
        out.append(ShapeIssue("a `steer` object", kind(steer), "steer"))
        return out
    if not isinstance(steer.get("previous_response_id"), str):
        out.append(
            ShapeIssue(
                "a string", kind(steer.get("previous_response_id")), "steer.previous_response_id"
            )
        )
    id_required = etype != "response.steer.failed"  # a failure before one was allocated has none
    if (id_required or "id" in steer) and not isinstance(steer.get("id"), str):
        out.append(ShapeIssue("a string", kind(steer.get("id")), "steer.id"))
    if etype == "response.steer.pending":
        if not isinstance(event.get("reason"), str):
            out.append(ShapeIssue("a string", kind(event.get("reason")), "reason"))
        if not isinstance(event.get("required_input"), list):
            out.append(ShapeIssue("an array", kind(event.get("required_input")), "required_input"))
    if etype == "response.steer.failed":
        if "input" not in steer:
            out.append(ShapeIssue("the uncommitted input", "absent", "steer.input"))
        error = event.get("error")
        if not isinstance(error, Mapping):
            out.append(ShapeIssue("an `error` object", kind(error), "error"))
        else:
            for key in ("code", "message"):
                if not isinstance(error.get(key), str):
                    out.append(ShapeIssue("a string", kind(error.get(key)), f"error.{key}"))
            if error.get("type") != "invalid_request_error":
                out.append(ShapeIssue("invalid_request_error", error.get("type"), "error.type"))
    return out
