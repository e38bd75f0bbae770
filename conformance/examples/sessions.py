"""What the WebSocket session examples (``session`` samples: ``(dir, frame)`` pairs, as
``responses-conformance check`` reads them, docs/websocket.md) are built from: every response in
them is :func:`.build.text_stream` under a fresh response id, so only the session rule differs.
The ``ws.*`` checks' examples are declared in their section modules (conformance.sections, §8),
with the ``live.ws.*`` checks' misbehaving servers."""

from __future__ import annotations

import json
from typing import Any

from .build import RESP_ID, text_stream

__all__ = [
    "Frames",
    "accepted",
    "create",
    "error",
    "events",
    "mid",
    "pending",
    "serve",
    "steer",
    "with_metadata",
]

Frames = list[tuple[str, Any]]


def events(rid: str, lane: str | None = None) -> list[dict[str, Any]]:
    """A whole text response under id ``rid`` (on lane ``lane``)."""
    text = json.dumps(text_stream()).replace(RESP_ID, rid).replace('"msg_', f'"msg_{rid}_')
    out: list[dict[str, Any]] = json.loads(text)
    if lane is not None:
        for event in out:
            event["stream_id"] = lane
    return out


def create(lane: str | None = None, **body: Any) -> tuple[str, Any]:
    event: dict[str, Any] = {"type": "response.create", "model": "m", "input": "hi", **body}
    if lane is not None:
        event["stream_id"] = lane
    return ("client", event)


def serve(events: list[dict[str, Any]]) -> Frames:
    return [("server", json.dumps(e)) for e in events]


def error(code: str, lane: str | None = None, status: int = 400) -> tuple[str, Any]:
    event: dict[str, Any] = {
        "type": "error",
        "status": status,
        "error": {"type": "invalid_request_error", "code": code, "message": "no", "param": None},
    }
    if lane is not None:
        event["stream_id"] = lane
    return ("server", event)


def steer(target: str) -> tuple[str, Any]:
    return ("client", {"type": "response.steer", "previous_response_id": target, "input": "also"})


def accepted(target: str, lane: str | None = None) -> tuple[str, Any]:
    event: dict[str, Any] = {
        "type": "response.steer.accepted",
        "sequence_number": 0,
        "steer": {"id": "steer_1", "previous_response_id": target},
    }
    if lane is not None:
        event["stream_id"] = lane
    return ("server", event)


def pending(target: str) -> tuple[str, Any]:
    return (
        "server",
        {
            "type": "response.steer.pending",
            "sequence_number": 0,
            "reason": "waiting_for_required_input",
            "required_input": [{"type": "function_call_output", "call_id": "c", "name": "f"}],
            "steer": {"id": "steer_1", "previous_response_id": target},
        },
    )


def mid(events: list[dict[str, Any]], *extra: tuple[str, Any]) -> Frames:
    """``extra`` frames in the middle of a response (after its response.in_progress)."""
    return [*serve(events[:2]), *extra, *serve(events[2:])]


def with_metadata(events: list[dict[str, Any]], metadata: dict[str, str]) -> list[dict[str, Any]]:
    for event in events:
        if isinstance(event.get("response"), dict):
            event["response"]["metadata"] = metadata
    return events
