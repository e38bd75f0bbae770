"""What the WebSocket cases of §8 share (the cases of :mod:`.s8_2_lanes` to
:mod:`.s8_7_connection_state`; :mod:`.cases`): their creates' output cap, the answers among the
events a read returned, and the last event described for a report. The session itself is the
suite's client (:meth:`Probe.websocket <conformance.suite.probe.Probe.websocket>`); what ends a
read is in :mod:`conformance.suite.ws_ends`."""

from __future__ import annotations

from typing import Any

__all__ = ["WEBSOCKET", "WS_MAX_OUTPUT", "answers_of", "describe_last"]

WEBSOCKET = ("websocket",)  # the profile a target declares for the cases to run
WS_MAX_OUTPUT = 64  # output tokens: short answers keep the cases fast on a real model


def answers_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The responses that ended with an answer: completed, or cut at ``max_output_tokens``."""
    return [
        e["response"]
        for e in events
        if e.get("type") in ("response.completed", "response.incomplete")
        and isinstance(e.get("response"), dict)
    ]


def describe_last(events: list[dict[str, Any]]) -> str:
    """The last event's type and error, for a report's ``actual``."""
    if not events:
        return "no events"
    last = events[-1]
    return f"{last.get('type')!r} {str(last.get('error') or '')[:160]}"
