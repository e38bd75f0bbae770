"""§8.3 Client events and refusals (docs/spec.md#s8-3): ``live.ws.background_rejected``,
``live.ws.after_error``, ``ws.request.rejected``.

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

The live checks' rules are the cases below (:mod:`.cases`, area ``websocket``, profile
``websocket``), each over a judged session (:meth:`Probe.websocket
<conformance.suite.probe.Probe.websocket>`): ``background: true`` is refused with status 400
(``live.ws.background_rejected``), and a malformed client event (not JSON, not an object, an
unknown ``type``, a bad ``stream_id``) is answered with an ``error`` event, after which the
connection is kept or closed (``live.ws.after_error``). No source says whether the server keeps
the connection after the ``error`` event (docs/websocket.md "Not documented"), so either is
accepted — but the error event is required (``ws.request.rejected``) and a connection left open
must still answer. Their failing examples are misbehaving servers
(tests/suite/broken_ws_servers.py), their near miss the embedded mock.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..catalog.registry import Level, register
from ..suite.ws_ends import WsClosed, WsTimeout
from .case_support import SHORT_PROMPT
from .cases import case, params
from .s2_1_sequence import _Report
from .s8_1_frames import WS_UPGRADE
from .s8_4_ws_errors import WS_ERROR_SHAPE
from .ws_case_support import WEBSOCKET, WS_MAX_OUTPUT, answers_of, describe_last

if TYPE_CHECKING:
    from ..suite.probe import Probe
    from ..suite.ws import WsSession

__all__ = [
    "WS_AFTER_ERROR",
    "WS_BACKGROUND_REJECTED",
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
WS_BACKGROUND_REJECTED = register(
    "live.ws.background_rejected",
    Level.MUST,
    "§8.3 [OAPI] ResponsesClientEventResponseCreate",
    "`background: true` over the socket is refused with an `error` event of status 400",
    profile="websocket",
)
WS_AFTER_ERROR = register(
    "live.ws.after_error",
    Level.MUST,
    "§8.3 (no source: the project's decision)",
    "after refusing a malformed client event with an `error` event, the server either keeps "
    "serving the connection or closes it with a close frame (it is never left silent)",
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
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.live import live
    from ..examples.registry import Sample, example
    from ..examples.sessions import create, error, events, serve

    example(
        WS_REQUEST_REJECTED.id,
        Sample("session", lambda: [create(background=True), *serve(events("resp_a"))]),
        Sample("session", lambda: [create(background=True), error("unsupported_parameter")]),
    )
    live(
        WS_BACKGROUND_REJECTED.id,
        "ws_background_accepted",
        "a server that ignores `background: true` over the socket and answers a response",
    )
    live(
        WS_AFTER_ERROR.id,
        "ws_silent_after_error",
        "a server that goes silent (no frame, no close) after its first `error` event",
    )


@case(
    "websocket",
    WS_BACKGROUND_REJECTED,
    WS_REQUEST_REJECTED,
    WS_ERROR_SHAPE,
    WS_UPGRADE,
    profiles=WEBSOCKET,
)
def test_background_is_rejected(probe: Probe) -> None:
    with probe.websocket() as s:
        s.create(probe.body(input=SHORT_PROMPT, background=True, max_output_tokens=WS_MAX_OUTPUT))
        events = s.until(1)
        last = events[-1]
        probe.check(
            WS_BACKGROUND_REJECTED, last.get("type") == "error" and last.get("status") == 400,
            expected="an `error` event with status 400", actual=describe_last(events),
        )  # fmt: skip


_MALFORMED: dict[str, Any] = {
    "not-json": "{this is not json",
    "not-an-object": "[1, 2, 3]",
    "unknown-type": {"type": "response.nonexistent"},
    "bad-stream-id": {"type": "response.create", "stream_id": "has spaces!", "input": "x"},
}


@case(
    "websocket", WS_AFTER_ERROR, WS_REQUEST_REJECTED, WS_ERROR_SHAPE, WS_UPGRADE, profiles=WEBSOCKET
)
@params("kind", list(_MALFORMED))
def test_malformed_client_event_gets_an_error_event(probe: Probe, kind: str) -> None:
    event = _MALFORMED[kind]
    if isinstance(event, dict) and event.get("type") == "response.create":
        event = {**event, "model": probe.model}
    with probe.websocket() as s:
        s.send(event)
        try:
            events = s.until(1)
        except WsClosed as closed:
            # Closing is allowed, after the error event (ws.request.rejected judges that it came).
            probe.check(WS_AFTER_ERROR, closed.code is not None, expected="a close frame",
                        actual="the connection dropped without one")  # fmt: skip
            return
        probe.check(
            WS_AFTER_ERROR, events[-1].get("type") == "error",
            expected="an `error` event", actual=describe_last(events),
        )  # fmt: skip
        _still_serving(probe, s)


def _still_serving(probe: Probe, s: WsSession) -> None:
    s.create(probe.body(input=SHORT_PROMPT, max_output_tokens=WS_MAX_OUTPUT))
    try:
        events = s.until(1)
    except WsTimeout as silent:
        probe.check(WS_AFTER_ERROR, False, expected="the next create answered, or a close",
                    actual=f"silence: {silent}")  # fmt: skip
        return
    except WsClosed as closed:
        probe.check(WS_AFTER_ERROR, closed.code is not None, expected="a close frame",
                    actual="the connection dropped without one")  # fmt: skip
        return
    probe.check(
        WS_AFTER_ERROR, bool(answers_of(events)),
        expected="the connection kept: the next create completes", actual=describe_last(events),
    )  # fmt: skip
