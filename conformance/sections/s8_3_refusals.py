"""§8.3 Client events and refusals (docs/spec.md#s8-3): ``ws.request.rejected``.

``stream`` is implicit over a Responses WebSocket and ``background`` "is not supported over
WebSocket" ([OAPI] ``ResponsesClientEventResponseCreate``). A client event WebSocket mode does
not accept — not JSON, not an object, an unknown ``type``, ``background: true``, a ``stream_id``
outside ``^[A-Za-z0-9_.-]{1,256}$`` — is answered with an ``error`` event, not a response, and
is answered before the session ends.

The session validator (:class:`~conformance.websocket.session.SessionValidator`) records each
client event it owes an answer, with why WebSocket mode must refuse it (:func:`create_refusal`
for a ``response.create``); these rules judge the answers: a response to one
(:func:`judge_answered`), an ``error`` refusing one (:func:`note_refused`), none at all
(:func:`judge_unrefused`). Each marks the check in the session's ``exercised`` set where it
judges.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Report

__all__ = [
    "WS_REQUEST_REJECTED",
    "create_refusal",
    "declare_examples",
    "judge_answered",
    "judge_unrefused",
    "note_refused",
]

WS_REQUEST_REJECTED = register(
    "ws.request.rejected",
    Level.MUST,
    "§8.3 [OAPI] ResponsesClientEventResponseCreate",
    "a client event WebSocket mode does not accept (not JSON, unknown `type`, `background: true`, a "
    "`stream_id` outside ^[A-Za-z0-9_.-]{1,256}$) is answered with an `error` event, not a response",
    profile="websocket",
)


class Owed(Protocol):
    """A client event the session owes an answer (its ``Request``)."""

    @property
    def index(self) -> int: ...  # its frame number

    @property
    def rejectable(self) -> str: ...  # why WebSocket mode must refuse it ("" = a valid create)


class RefusalState(Protocol):
    """What the rules read and write of the session validator."""

    exercised: set[str]

    @property
    def _report(self) -> _Report: ...


def create_refusal(event: Mapping[str, Any], lane_ok: bool) -> str:
    """Why WebSocket mode must refuse a ``response.create`` ("" when it need not); ``lane_ok``:
    its ``stream_id`` is absent or a lane's name."""
    if not lane_ok:
        return "a `stream_id` outside ^[A-Za-z0-9_.-]{1,256}$"
    if event.get("background") is True:
        return "`background: true`"
    return ""


def judge_answered(state: RefusalState, request: Owed, index: int) -> None:
    """A response (opening at frame ``index``) answers ``request``: reported if it must be
    refused."""
    if request.rejectable:
        state.exercised.add(WS_REQUEST_REJECTED.id)
        state._report(
            WS_REQUEST_REJECTED,
            index,
            "an `error` event",
            f"a response (the request at frame #{request.index} has {request.rejectable})",
        )


def note_refused(state: RefusalState, request: Owed | None = None) -> None:
    """An ``error`` event refused ``request`` (None: one of the client events with no lane,
    each of which must be refused)."""
    if request is None or request.rejectable:
        state.exercised.add(WS_REQUEST_REJECTED.id)


def judge_unrefused(state: RefusalState, owed: Collection[Owed], *, report: bool) -> None:
    """The session ended owing ``owed`` (client events with no lane) an ``error``: each is
    reported (``report``: unless the session was cut, when nothing more was owed)."""
    if not owed:
        return
    state.exercised.add(WS_REQUEST_REJECTED.id)
    if not report:
        return
    for request in owed:
        state._report(
            WS_REQUEST_REJECTED,
            None,
            "an `error` event",
            "nothing before the session ended",
            message=f"the client event at frame #{request.index} ({request.rejectable})",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples)."""
    from ..examples.registry import Sample, example
    from ..examples.sessions import create, error, events, serve

    example(
        WS_REQUEST_REJECTED.id,
        Sample("session", lambda: [create(background=True), *serve(events("resp_a"))]),
        Sample("session", lambda: [create(background=True), error("unsupported_parameter")]),
    )
