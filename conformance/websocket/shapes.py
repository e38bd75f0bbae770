"""The shapes of the steering answers ([SDK] ``response_steer_{accepted,pending,failed}
_event.py``, checked as ``ws.steer.shape``): what is wrong with one event, which
:class:`~conformance.websocket.session.SessionValidator` reports (an ``error`` event's shape is
§8.4's, :mod:`conformance.sections.s8_4_ws_errors`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..sections.s8_1_frames import kind
from ..sections.s8_4_ws_errors import ShapeIssue

__all__ = ["steer_issues"]


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
