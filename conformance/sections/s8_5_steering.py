"""§8.5 Steering (docs/spec.md#s8-5; profile ``websocket:steering``): ``ws.steer.shape``,
``ws.steer.known``, ``ws.steer.live``, ``ws.steer.pending_after_terminal``.

``response.steer {previous_response_id, input}`` is answered by ``response.steer.accepted``,
``.pending`` (after the target's ``response.completed``) or ``.failed`` ([SDK]
``response_steer_{accepted,pending,failed}_event.py``, whose required fields
:func:`steer_issues` holds each answer to). A steering event answers a steer the client sent;
steering is accepted only for a response of this connection still running when it was steered.

One :class:`Steering` belongs to one :class:`~conformance.websocket.session.SessionValidator`,
which hands itself to each judging call: the rules report through its ``_report`` (so a folding
session's caps apply) and add the checks they evaluate to its ``exercised`` set. It also answers
the session's two questions about steering: may a response start its successor on its own
(:meth:`Steering.successor_due`), and which steers a new response settles
(:meth:`Steering.settle`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Report
from .s8_1_frames import kind
from .s8_4_ws_errors import ShapeIssue

if TYPE_CHECKING:
    from ..websocket.lanes import LaneResponse

__all__ = [
    "WS_STEER_KNOWN",
    "WS_STEER_LIVE",
    "WS_STEER_PENDING_AFTER_TERMINAL",
    "WS_STEER_SHAPE",
    "Steer",
    "Steering",
    "declare_examples",
    "steer_issues",
]

WS_STEER_SHAPE = register(
    "ws.steer.shape",
    Level.MUST,
    "§8.5 [SDK] response_steer_{accepted,pending,failed}_event",
    "`response.steer.accepted` / `.pending` / `.failed` have the fields the SDK's types require",
    profile="websocket:steering",
)
WS_STEER_KNOWN = register(
    "ws.steer.known",
    Level.MUST,
    "§8.5 [SDK] response_steer_event",
    "a steering event answers a `response.steer` the client sent for that `previous_response_id`",
    profile="websocket:steering",
)
WS_STEER_LIVE = register(
    "ws.steer.live",
    Level.MUST,
    "§8.5 [SDK] response_steer_failed_event (response_not_found, response_already_completed)",
    "steering is accepted only for a response of this connection that had not finished when the "
    "client steered it",
    profile="websocket:steering",
)
WS_STEER_PENDING_AFTER_TERMINAL = register(
    "ws.steer.pending_after_terminal",
    Level.MUST,
    "§8.5 [SDK] response_steer_pending_event",
    "`response.steer.pending` follows its target's `response.completed`, for a steer it accepted",
    profile="websocket:steering",
)


@dataclass(slots=True)
class Steer:
    """One ``response.steer`` the client sent."""

    index: int
    target: str
    live: bool  # the target was running on this connection when the client steered it
    accepted: bool = False
    settled: bool = False


class SteeringState(Protocol):
    """What the steering rules read and write of the session validator (passed on each call,
    never kept: a steering record holding the session would put every session in a reference
    cycle, as ``conformance.validator.state.Reporter`` explains for the stream validator)."""

    exercised: set[str]

    @property
    def _report(self) -> _Report: ...

    @property
    def _by_id(self) -> Mapping[Any, LaneResponse]: ...

    def _steer_echoed(self, response: LaneResponse | None, sid: str | None, index: int) -> None:
        """§8.2: a steering answer comes on the lane of the response it steers."""


class Steering:
    """The steers of one session and the judging of the server's answers to them."""

    def __init__(self) -> None:
        self.steers: list[Steer] = []

    def sent(self, index: int, target: str, live: bool) -> None:
        """The client steered ``target`` at frame ``index``; ``live``: it was running then."""
        self.steers.append(Steer(index, target, live))

    def successor_due(self, current: LaneResponse) -> bool:
        """An accepted steer of ``current`` may start a successor response on its own."""
        return any(
            s.accepted and not s.settled and s.target == current.response_id for s in self.steers
        )

    def settle(self, parent: Any) -> None:
        """A response continuing ``parent`` opened: its ``response.created`` commits the queued
        steering input ([SDK])."""
        for steer in self.steers:
            if steer.accepted and steer.target == parent:
                steer.settled = True

    def answer(
        self,
        session: SteeringState,
        event: Mapping[str, Any],
        etype: str,
        sid: str | None,
        index: int,
    ) -> None:
        """Judge one ``response.steer.*`` event the server sent on lane ``sid``."""
        session.exercised.update((WS_STEER_SHAPE.id, WS_STEER_KNOWN.id))
        if etype != "response.steer.pending":  # accepted or refused: was the target live?
            session.exercised.add(WS_STEER_LIVE.id)
        else:
            session.exercised.add(WS_STEER_PENDING_AFTER_TERMINAL.id)
        steer = event.get("steer")
        target = steer.get("previous_response_id") if isinstance(steer, Mapping) else None
        issues = steer_issues(event, etype)
        for issue in issues:
            session._report(WS_STEER_SHAPE, index, issue.expected, issue.actual, path=issue.path)
        if issues:
            return
        waiting = [s for s in self.steers if s.target == target and not s.settled]
        if etype == "response.steer.pending":
            waiting = [s for s in waiting if s.accepted]
        else:
            waiting = [s for s in waiting if not s.accepted] or (
                [s for s in waiting if s.accepted] if etype == "response.steer.failed" else []
            )
        if not waiting:
            session._report(
                WS_STEER_KNOWN,
                index,
                f"a `response.steer` for {target} awaiting this answer",
                f"{etype} with none",
            )
            return
        record = waiting[0]
        response = session._by_id.get(target)
        session._steer_echoed(response, sid, index)  # §8.2: on the steered response's lane
        if etype == "response.steer.accepted":
            record.accepted = True
            if not record.live:
                session._report(
                    WS_STEER_LIVE,
                    index,
                    "response.steer.failed (response_not_found / response_already_completed)",
                    f"response.steer.accepted for {target}, not running when it was steered",
                )
        elif etype == "response.steer.pending":
            record.settled = True
            if response is None or response.validator.terminal_type != "response.completed":
                session._report(
                    WS_STEER_PENDING_AFTER_TERMINAL,
                    index,
                    f"after {target}'s response.completed",
                    "before it" if response is not None else "for a response never seen",
                )
        else:
            record.settled = True


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


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples), in
    the ``websocket:steering`` profile."""
    from ..examples.registry import Sample, example
    from ..examples.sessions import Frames, accepted, create, events, mid, pending, serve, steer

    def session(build: Callable[[], Frames]) -> Sample:
        return Sample("session", build, profiles=("core", "websocket:steering"))

    # ID -> (failing session, passing near miss)
    cases: dict[str, tuple[Callable[[], Frames], Callable[[], Frames]]] = {
        WS_STEER_SHAPE.id: (
            lambda: (
                lambda e: [
                    create(),
                    *mid(
                        e,
                        steer("resp_a"),
                        (
                            "server",
                            {
                                "type": "response.steer.accepted",
                                "steer": {"previous_response_id": "resp_a"},
                            },
                        ),
                    ),
                ]
            )(events("resp_a")),
            lambda: (
                lambda e: [
                    create(),
                    *mid(e, steer("resp_a"), accepted("resp_a")),
                    *serve(events("resp_b")),
                ]
            )(events("resp_a")),
        ),
        WS_STEER_KNOWN.id: (
            lambda: (lambda e: [create(), *mid(e, accepted("resp_a"))])(events("resp_a")),
            lambda: (
                lambda e: [
                    create(),
                    *mid(e, steer("resp_a"), accepted("resp_a")),
                    *serve(events("resp_b")),
                ]
            )(events("resp_a")),
        ),
        WS_STEER_LIVE.id: (
            lambda: [
                create(),
                *serve(events("resp_a")),
                steer("resp_a"),
                accepted("resp_a"),
                *serve(events("resp_b")),
            ],
            lambda: [
                create(),
                *serve(events("resp_a")),
                steer("resp_a"),
                (
                    "server",
                    {
                        "type": "response.steer.failed",
                        "sequence_number": 0,
                        "steer": {"previous_response_id": "resp_a", "input": "also"},
                        "error": {
                            "type": "invalid_request_error",
                            "code": "response_already_completed",
                            "message": "done",
                        },
                    },
                ),
            ],
        ),
        WS_STEER_PENDING_AFTER_TERMINAL.id: (
            lambda: (
                lambda e: [
                    create(),
                    *mid(e, steer("resp_a"), accepted("resp_a"), pending("resp_a")),
                ]
            )(events("resp_a")),
            lambda: (
                lambda e: [
                    create(),
                    *mid(e, steer("resp_a"), accepted("resp_a")),
                    pending("resp_a"),
                ]
            )(events("resp_a")),
        ),
    }
    for check_id, (failing, passing) in cases.items():
        example(check_id, session(failing), session(passing))
