"""§8.1 Connection and frames (docs/spec.md#s8-1): ``live.ws.upgrade``, ``ws.frame.text``,
``ws.frame.json``.

``GET /v1/responses`` upgrades to a WebSocket at the base URL with ``http`` → ``ws``, ``https`` →
``wss`` and ``/responses`` appended ([SDK] ``_prepare_url``). ``live.ws.upgrade``'s rule is the
upgrade of every WebSocket case (the cases of :mod:`.s8_2_lanes` to
:mod:`.s8_7_connection_state`, each naming it; :mod:`.cases`): the suite's client
(:meth:`Probe.websocket <conformance.suite.probe.Probe.websocket>`) fails it when the target does
not upgrade, and so does the proxy (:mod:`conformance.proxy.websocket`) for a client's upgrade it
forwards. Its failing example is a misbehaving server (tests/suite/broken_ws_servers.py), its
near miss the embedded mock.

Every server frame of a Responses WebSocket is a text frame holding one JSON object with a string
``type`` ([OAPI] ``ResponsesServerEvent``). The session validator
(:class:`~conformance.websocket.session.SessionValidator`) hands each server frame its hot path
does not take (a delta of a running response, already a parsed object) to :func:`judge_frame`,
which marks both checks in the session's ``exercised`` and returns the event, or None when the
frame is none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..catalog.registry import Level, register
from ..errors import ConformanceError
from .s2_1_sequence import _Report

__all__ = [
    "WS_FRAME_JSON",
    "WS_FRAME_TEXT",
    "WS_UPGRADE",
    "declare_examples",
    "judge_frame",
    "kind",
]

WS_UPGRADE = register(
    "live.ws.upgrade",
    Level.MUST,
    "§8.1 [OAPI] ResponsesClientEvent",
    "`GET /v1/responses` upgrades to a WebSocket (the base URL's scheme mapped http→ws, https→wss)",
    profile="websocket",
)

WS_FRAME_TEXT = register(
    "ws.frame.text",
    Level.MUST,
    "§8, §8.1 [OAPI] ResponsesServerEvent",
    "every server frame is a text frame (a JSON event); no binary frames",
    profile="websocket",
)
WS_FRAME_JSON = register(
    "ws.frame.json",
    Level.MUST,
    "§8.1 [OAPI] ResponsesServerEvent",
    "every server text frame is one JSON object with a string `type`",
    profile="websocket",
)
_IDS = (WS_FRAME_TEXT.id, WS_FRAME_JSON.id)


class FrameState(Protocol):
    """What the rule reads and writes of the session validator."""

    exercised: set[str]

    @property
    def _report(self) -> _Report: ...


def kind(value: object) -> str:
    """What a value is, for a report: a string's head, else its JSON type's Python name."""
    if value is None:
        return "null / absent"
    if isinstance(value, str):
        return repr(value[:60])
    return type(value).__name__


def judge_frame(
    state: FrameState, frame: object, index: int, parse: Callable[[str], Any]
) -> dict[str, Any] | None:
    """One server frame (``bytes``: a binary one; ``str``: a text one, read by ``parse``, the
    judge's JSON parser; else already parsed): the event it holds, or None (reported). JSON
    nested past the parser's bound (its :class:`~conformance.sse.framing.JSONDepthError`, a
    ConformanceError) is no verdict on the frame: it propagates, for the caller to report."""
    state.exercised.update(_IDS)
    if isinstance(frame, bytes | bytearray):
        state._report(WS_FRAME_TEXT, index, "a text frame", f"a {len(frame)}-byte binary frame")
        return None
    event: object = frame
    if isinstance(frame, str):
        try:
            event = parse(frame)
        except ValueError as exc:
            if isinstance(exc, ConformanceError):
                raise
            state._report(WS_FRAME_JSON, index, "one JSON object", f"not JSON ({exc})")
            return None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        state._report(WS_FRAME_JSON, index, "a JSON object with a string `type`", kind(event))
        return None
    return event


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.live import live
    from ..examples.registry import Sample, example
    from ..examples.sessions import create, events, serve

    live(WS_UPGRADE.id, "ws_refuses_upgrade", "a server that refuses the WebSocket upgrade")
    example(
        WS_FRAME_TEXT.id,
        Sample("session", lambda: [create(), ("server", b"\x00\x01"), *serve(events("resp_a"))]),
        Sample("session", lambda: [create(), *serve(events("resp_a"))]),
    )
    example(
        WS_FRAME_JSON.id,
        Sample("session", lambda: [create(), ("server", "{not json"), *serve(events("resp_a"))]),
        Sample(
            "session",
            lambda: [
                create(),
                (
                    "server",
                    ' {"type": "error", "status": 400, "error": {"type": "t", "code": "c",'
                    ' "message": "m", "param": null}} ',
                ),
                create(),
                *serve(events("resp_a")),
            ],
        ),
    )
