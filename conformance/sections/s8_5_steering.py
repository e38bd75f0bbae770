"""§8.5 Steering (docs/spec.md#s8-5; profile ``websocket:steering``): ``live.ws.steering``,
``ws.steer.shape``, ``ws.steer.known``, ``ws.steer.live``, ``ws.steer.pending_after_terminal``.

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

``live.ws.steering``'s rule is the two cases below (:mod:`.cases`, area ``websocket``), over a
judged session (:meth:`Probe.websocket <conformance.suite.probe.Probe.websocket>`) to a target
that declares steering: a response steered as soon as it is created accepts the input and commits
it (an automatic successor continuing it, or ``response.steer.pending``), and a steered response
that calls a tool sends ``response.steer.pending`` naming the call and answers the continuation
that brings its output. A refusal as ``response_already_completed`` after the response ended is
timing (retried); any other fails. Its failing example is a misbehaving server
(tests/suite/broken_ws_servers.py), its near miss the embedded mock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..catalog.registry import Level, register
from ..suite import answers as A
from ..suite.ws_ends import TERMINAL, WsTimeout
from .case_support import LONG_PROMPT
from .cases import case
from .s2_1_sequence import _Report
from .s8_1_frames import WS_UPGRADE, kind
from .s8_4_ws_errors import ShapeIssue
from .ws_case_support import WS_MAX_OUTPUT, answers_of

if TYPE_CHECKING:
    from ..suite.probe import Probe
    from ..suite.ws import WsSession
    from ..websocket.lanes import LaneResponse

__all__ = [
    "WS_STEERING",
    "WS_STEER_KNOWN",
    "WS_STEER_LIVE",
    "WS_STEER_PENDING_AFTER_TERMINAL",
    "WS_STEER_SHAPE",
    "Steer",
    "Steering",
    "declare_examples",
    "steer_issues",
]

WS_STEERING = register(
    "live.ws.steering",
    Level.MUST,
    "§8.5 [SDK] response_steer_event",
    "`response.steer` on a running response is answered: accepted and committed (an automatic "
    "successor continuing it, or `response.steer.pending` when it waits for tool output), or "
    "refused as completed only when it had finished",
    profile="websocket:steering",
)
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
    from ..examples.live import live
    from ..examples.registry import Sample, example
    from ..examples.sessions import Frames, accepted, create, events, mid, pending, serve, steer

    live(
        WS_STEERING.id,
        "ws_steer_dropped",
        "a server that accepts steering input and drops it: no successor continues the steered "
        "response",
    )

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


_STEERING = ("websocket:steering", "websocket")
_STEER_ANSWERS = ("response.steer.accepted", "response.steer.failed")
# A call with long arguments: it still streams when the client steers it (a short call can end
# before the steer arrives, on a fast server).
_REPORT_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "save_report",
    "description": "Save a detailed report.",
    "parameters": {
        "type": "object",
        "properties": {"report": {"type": "string", "minLength": 4000,
                                  "description": "the full report, at least 4000 characters"}},
        "required": ["report"],
        "additionalProperties": False,
    },
}  # fmt: skip


@case(
    "websocket",
    WS_STEERING,
    WS_STEER_SHAPE,
    WS_STEER_KNOWN,
    WS_STEER_LIVE,
    WS_UPGRADE,
    profiles=_STEERING,
    attempts=3,
)
def test_steering_a_running_response(probe: Probe) -> None:
    """Steer a response as soon as it is created ([SDK] response_steer_event.py): a target that
    declares steering accepts the input and commits it — an automatic successor continuing the
    target (`previous_response_id`) once it ends, or `response.steer.pending` after its
    `response.completed` when it waits for tool output. Refused as already completed (the
    response ended before the steer arrived) the case is retried; any other refusal fails."""
    with probe.websocket() as s:
        # A long answer (as the background cases cancel): still running when the steer comes.
        steer = _steer_running(
            s, probe.body(input=LONG_PROMPT, max_output_tokens=2048), "Stop counting and say done."
        )
        if _refused(probe, steer):
            return
        target = steer.target
        committed = _committed(s, target, steer.ended)
        probe.check(
            WS_STEERING, committed is not None,
            expected=f"the accepted input committed: a response continuing {target!r} after it "
            "ends, or response.steer.pending",
            actual="the target ended and no successor or pending event followed",
        )  # fmt: skip
        if committed is not None and committed.get("type") == "response.created":
            s.until(1)  # the successor's end: it is judged like any response


@case(
    "websocket",
    WS_STEERING,
    WS_STEER_PENDING_AFTER_TERMINAL,
    WS_STEER_SHAPE,
    WS_UPGRADE,
    profiles=("websocket:steering", "tools", "websocket"),
    attempts=3,
)
def test_steering_a_response_that_calls_a_tool(probe: Probe) -> None:
    """A steered response that stops for a client tool call keeps the input queued:
    `response.steer.pending` after its `response.completed`, naming the call in `required_input`
    ([SDK] response_steer_pending_event.py); the continuation that brings the call's output
    (same lane, `previous_response_id`) is answered."""
    with probe.websocket() as s:
        body = probe.body(input="Write a detailed report on lighthouses and save it.",
                          tools=[_REPORT_TOOL], tool_choice="required",
                          max_output_tokens=2048)  # fmt: skip
        steer = _steer_running(s, body, "Answer in one short sentence.", wait_end=True)
        if _refused(probe, steer):
            return
        target, ended = steer.target, steer.ended
        final = (steer.terminal or {}).get("response") or {}
        calls = [i for i in A.items_of(final) if i.get("type") == "function_call"]
        probe.require(WS_STEERING, bool(calls), expected="the target calls the tool",
                      actual="no function_call in its output")  # fmt: skip
        pending = _committed(s, target, ended)
        stubs = (pending or {}).get("required_input") or []
        probe.check(
            WS_STEERING,
            pending is not None and pending.get("type") == "response.steer.pending"
            and [c.get("call_id") for c in calls] == [x.get("call_id") for x in stubs],
            expected="response.steer.pending naming the call: "
            f"{[c.get('call_id') for c in calls]}",
            actual=f"{(pending or {}).get('type')} {stubs}",
        )  # fmt: skip
        output = [{"type": "function_call_output", "call_id": c.get("call_id"),
                   "output": '{"saved": true}'} for c in calls]  # fmt: skip
        s.create(probe.body(input=output, previous_response_id=target, tools=[_REPORT_TOOL],
                            max_output_tokens=WS_MAX_OUTPUT))  # fmt: skip
        done = answers_of(s.until(1))
        probe.check(
            WS_STEERING, bool(done) and done[0].get("previous_response_id") == target,
            expected=f"the continuation of {target!r} answered",
            actual=f"{len(done)} answer(s), previous_response_id "
            f"{done[0].get('previous_response_id') if done else None!r}",
        )  # fmt: skip


@dataclass(slots=True)
class _Steered:
    target: object  # the steered response's id
    answer: dict[str, Any]  # response.steer.accepted / .pending / .failed
    ended: bool  # the target's terminal event came before (or, wait_end, after) the answer
    terminal: dict[str, Any] | None  # that terminal event


def _steer_running(
    s: WsSession, body: dict[str, Any], text: str, *, wait_end: bool = False
) -> _Steered:
    """Create ``body``, steer it with ``text`` as soon as its `response.created` names it, and read
    up to the steer's answer (``wait_end``: and, when it was accepted, to the target's end)."""
    s.create(body)
    target = None
    while target is None:
        event = s.recv()
        if event is not None and event.get("type") == "response.created":
            target = event["response"].get("id")
    s.send({"type": "response.steer", "previous_response_id": target, "input": text})
    answer: dict[str, Any] | None = None
    terminal: dict[str, Any] | None = None
    while answer is None or (
        wait_end and answer["type"] == "response.steer.accepted" and terminal is None
    ):
        event = s.recv()
        if event is None:
            continue
        if event.get("type") in _STEER_ANSWERS:
            answer = event
        elif _ends(event, target):
            terminal = event
    return _Steered(target, answer, terminal is not None, terminal)


def _refused(probe: Probe, steer: _Steered) -> bool:
    """A refused steer: retried when the response had already completed (a race the case cannot
    win every time), a failure otherwise. True when the case must stop."""
    if steer.answer["type"] != "response.steer.failed":
        return False
    error = steer.answer.get("error") or {}
    code = error.get("code")
    probe.nondeterministic(
        not (steer.ended and code == "response_already_completed"),
        "the response completed before the steer arrived", exhausted="skip",
    )  # fmt: skip
    probe.check(
        WS_STEERING, False, expected="response.steer.accepted for a running response",
        actual=f"response.steer.failed {code!r}: {error.get('message')}",
    )  # fmt: skip
    return True


def _ends(event: dict[str, Any], rid: object) -> bool:
    return event.get("type") in TERMINAL and (event.get("response") or {}).get("id") == rid


def _committed(s: WsSession, target: object, ended: bool) -> dict[str, Any] | None:
    """After an accepted steer: the successor's `response.created` (previous_response_id =
    ``target``) or the `response.steer.pending`; None when the target ends and the next frame
    (within the timeout) is neither."""
    while True:
        try:
            event = s.recv()
        except WsTimeout:
            return None
        if event is None:
            continue
        etype = event.get("type")
        if etype == "response.steer.pending":
            return event
        if etype == "response.created":
            previous = (event.get("response") or {}).get("previous_response_id")
            return event if ended and previous == target else None
        if _ends(event, target):
            ended = True
