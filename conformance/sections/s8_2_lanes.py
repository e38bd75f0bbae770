"""§8.2 Lanes (docs/spec.md#s8-2): ``live.ws.responses``, ``live.ws.previous_across_lanes``,
``ws.event.routed``, ``ws.stream_id.echoed``, ``ws.lane.serial``, ``ws.lane.order``,
``ws.request.answered``.

A ``response.create`` may name a lane, ``stream_id`` (1–256 of ``[A-Za-z0-9_.-]``). "Requests with
the same ``stream_id`` are processed FIFO, and events for the response echo the same
``stream_id``"; ``previous_response_id`` may continue a response of another lane ([OAPI]
``ResponsesClientEventResponseCreate.stream_id``, ``ResponsesServerEvent.stream_id``). So every
event of a response created with a ``stream_id`` carries it; a lane runs one response at a time
and answers its requests in the order sent; every create is answered, by a response or an
``error`` event; no event names a lane the client never opened. Events of the default lane carry
no ``stream_id`` ([SDK] README).

The session validator (:class:`~conformance.websocket.session.SessionValidator`) demultiplexes
the events by lane and response; it calls these rules where its routing decides, and each marks
its check in the session's ``exercised`` set where it judges.

The live checks' rules are the cases below (:mod:`.cases`, area ``websocket``, profile
``websocket``), each over a judged session (:meth:`Probe.websocket
<conformance.suite.probe.Probe.websocket>`): a create over the socket is answered, three on one
lane in the order sent, two lanes at once, and a response on one lane continues one of another
(``live.ws.responses``, ``live.ws.previous_across_lanes``; :func:`completed_answers` is
``live.ws.responses``' rule over one read, which the cases of §8.7 use too). Their failing
examples are misbehaving servers (tests/suite/broken_ws_servers.py), their near miss the
embedded mock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..catalog.registry import Level, register
from ..suite import answers as A
from .case_support import SHORT_PROMPT
from .cases import case
from .s2_1_sequence import _Report
from .s8_1_frames import WS_UPGRADE
from .ws_case_support import WEBSOCKET, WS_MAX_OUTPUT, answers_of, describe_last

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "WS_EVENT_ROUTED",
    "WS_LANE_ORDER",
    "WS_LANE_SERIAL",
    "WS_PREVIOUS_ACROSS_LANES",
    "WS_REQUEST_ANSWERED",
    "WS_RESPONSES",
    "WS_STREAM_ID_ECHOED",
    "answers",
    "completed_answers",
    "declare_examples",
    "judge_answered",
    "judge_echo",
    "judge_lane_opened",
    "judge_serial",
    "judge_stream_id",
    "note_opening",
    "report_unrouted",
    "report_unrouted_error",
    "take",
]

WS_EVENT_ROUTED = register(
    "ws.event.routed",
    Level.MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id",
    "every server event belongs to a request the client sent on its lane (or is a connection-scoped "
    "`error`); none names a lane the client never opened",
    profile="websocket",
)
WS_STREAM_ID_ECHOED = register(
    "ws.stream_id.echoed",
    Level.MUST,
    "§8.2 [OAPI] ResponsesServerEvent.stream_id",
    "every event of a response created with a `stream_id` carries that `stream_id`",
    profile="websocket",
)
WS_LANE_SERIAL = register(
    "ws.lane.serial",
    Level.MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id (FIFO)",
    "one lane runs one response at a time: no `response.created` on a lane before its previous "
    "response's terminal event",
    profile="websocket",
)
WS_LANE_ORDER = register(
    "ws.lane.order",
    Level.MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id (FIFO)",
    "a lane's requests are answered in the order they were sent",
    profile="websocket",
)
WS_REQUEST_ANSWERED = register(
    "ws.request.answered",
    Level.MUST,
    "§8.2",
    "every `response.create` is answered, by a response or an `error` event, before the session ends",
    profile="websocket",
)
# Request fields a response echoes: a response that echoes another queued request's value
# answers that request, not the lane's head (ws.lane.order).
WS_RESPONSES = register(
    "live.ws.responses",
    Level.MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate",
    "`response.create` over the socket is answered with a completed response: several in sequence "
    "on one connection, and on two lanes at once",
    profile="websocket",
)
WS_PREVIOUS_ACROSS_LANES = register(
    "live.ws.previous_across_lanes",
    Level.MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id",
    "a response on one lane continues (`previous_response_id`) a response created on another",
    profile="websocket",
)

ECHOED = ("previous_response_id", "instructions", "metadata", "max_output_tokens")


class Requested(Protocol):
    """A ``response.create`` waiting on its lane (the session's ``Request``)."""

    @property
    def index(self) -> int: ...  # its frame number

    @property
    def body(self) -> Mapping[str, Any]: ...


R = TypeVar("R", bound=Requested)


class LaneState(Protocol):
    """What the rules read and write of the session validator."""

    exercised: set[str]

    @property
    def _report(self) -> _Report: ...


def _lane_name(sid: str | None) -> str:
    return "(default)" if sid is None else repr(sid)


def judge_stream_id(state: LaneState, sid: Any, index: int) -> bool:
    """An event's ``stream_id``: absent or a string (False: reported, routed nowhere)."""
    if sid is not None and not isinstance(sid, str):
        state._report(WS_EVENT_ROUTED, index, "a string `stream_id`", sid, path="stream_id")
        return False
    return True


def judge_lane_opened(
    state: LaneState, opened: bool, sid: str | None, etype: str, index: int
) -> bool:
    """A response's event on lane ``sid``: ``opened``, the client opened that lane (False:
    reported)."""
    state.exercised.add(WS_EVENT_ROUTED.id)
    if not opened:
        state._report(
            WS_EVENT_ROUTED,
            index,
            "the `stream_id` of a lane the client opened",
            sid,
            message=f"a {etype} on a lane no `response.create` named",
        )
    return opened


def report_unrouted(state: LaneState, sid: str | None, etype: str, index: int) -> None:
    """An event that would open a response on lane ``sid``, where no request waits."""
    state._report(
        WS_EVENT_ROUTED,
        index,
        "a `response.create` waiting on this lane",
        f"a {etype} with none waiting",
        message="lane " + _lane_name(sid),
    )


def report_unrouted_error(state: LaneState, sid: str | None, index: int) -> None:
    """An ``error`` on lane ``sid`` (named), where no request waits."""
    state._report(
        WS_EVENT_ROUTED,
        index,
        "an `error` for a request waiting on its lane",
        f"an `error` on lane {sid!r} with no request waiting",
    )


def judge_echo(
    state: LaneState, lane: str | None, sid: str | None, index: int, *, mark: bool = True
) -> None:
    """An event of a response opened on ``lane`` came with ``sid`` (``mark``: the response's own
    event; a steering answer's is judged without it, as before)."""
    if lane is None:
        return
    if mark:
        state.exercised.add(WS_STREAM_ID_ECHOED.id)
    if sid != lane:
        state._report(WS_STREAM_ID_ECHOED, index, lane, sid, path="stream_id")


def judge_serial(state: LaneState, running: Any, rid: Any, index: int) -> None:
    """A second response (``rid``) started on a lane while ``running`` runs: reported."""
    state._report(
        WS_LANE_SERIAL,
        index,
        f"the terminal event of {running} first",
        f"response.created of {rid}",
    )


def note_opening(state: LaneState) -> None:
    """A response opens on a lane: is it alone there?"""
    state.exercised.add(WS_LANE_SERIAL.id)


def answers(request: Requested, response: Mapping[str, Any]) -> bool:
    """Whether ``response`` echoes what ``request`` set (fields it left out prove nothing)."""
    for key in ECHOED:
        want = request.body.get(key)
        if want is not None and key in response and response[key] != want:
            return False
    return True


def take(state: LaneState, pending: deque[R], event: Mapping[str, Any], index: int) -> R:
    """The request a new response answers, taken from its lane's ``pending``: the head, unless
    the response echoes a later one (reported)."""
    head = pending[0]
    if len(pending) > 1:
        state.exercised.add(WS_LANE_ORDER.id)
    response = event.get("response")
    if isinstance(response, Mapping) and not answers(head, response):
        for later in list(pending)[1:]:
            if answers(later, response):
                state._report(
                    WS_LANE_ORDER,
                    index,
                    f"the answer to the request at frame #{head.index}",
                    f"the answer to the later request at frame #{later.index}",
                )
                pending.remove(later)
                return later
    return pending.popleft()


def judge_answered(
    state: LaneState,
    creates: int,
    pending: Iterable[tuple[str | None, Iterable[Requested]]],
    *,
    report: bool,
) -> None:
    """The session ended with ``pending`` (lane, requests) unanswered, of ``creates`` sent: each
    reported (``report``: unless the session was cut, when nothing more was owed)."""
    if creates:
        state.exercised.add(WS_REQUEST_ANSWERED.id)
    if not report:
        return
    for sid, requests in pending:
        for request in requests:
            state._report(
                WS_REQUEST_ANSWERED,
                None,
                "a response or an `error` event",
                "nothing before the session ended",
                message=f"`response.create` at frame #{request.index} on lane " + _lane_name(sid),
            )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.live import live
    from ..examples.registry import Sample, example
    from ..examples.sessions import create, error, events, serve, with_metadata

    live(
        WS_RESPONSES.id,
        "ws_answers_drop_metadata",
        "a server whose WebSocket responses echo `metadata: {}`, so no answer names its turn",
    )
    live(
        WS_PREVIOUS_ACROSS_LANES.id,
        "ws_previous_id_dropped",
        "a server whose WebSocket responses carry `previous_response_id: null`",
    )

    def turn(rid: str, n: str) -> list[dict[str, Any]]:
        return with_metadata(events(rid, "a"), {"turn": n})

    cases = {
        WS_EVENT_ROUTED.id: (
            lambda: [create(), *serve(events("resp_a")), *serve(events("resp_b"))],
            lambda: [create(), create(), *serve(events("resp_a")), *serve(events("resp_b"))],
        ),
        WS_STREAM_ID_ECHOED.id: (
            lambda: [
                create("a"),
                *serve(events("resp_a", "a")[:5]),
                *serve(events("resp_a")[5:6]),
                *serve(events("resp_a", "a")[6:]),
            ],
            lambda: [create("a"), *serve(events("resp_a", "a"))],
        ),
        WS_LANE_SERIAL.id: (
            lambda: [
                create("a"),
                create("a"),
                *serve(events("resp_a", "a")[:3]),
                *serve(events("resp_b", "a")),
                *serve(events("resp_a", "a")[3:]),
            ],
            lambda: [
                create("a"),
                create("b"),
                *serve(events("resp_a", "a")[:3]),
                *serve(events("resp_b", "b")),
                *serve(events("resp_a", "a")[3:]),
            ],
        ),
        WS_LANE_ORDER.id: (
            lambda: [
                create("a", metadata={"turn": "1"}),
                create("a", metadata={"turn": "2"}),
                *serve(turn("resp_b", "2")),
                *serve(turn("resp_a", "1")),
            ],
            lambda: [
                create("a", metadata={"turn": "1"}),
                create("a", metadata={"turn": "2"}),
                *serve(turn("resp_a", "1")),
                *serve(turn("resp_b", "2")),
            ],
        ),
        WS_REQUEST_ANSWERED.id: (
            lambda: [create(), create("b"), *serve(events("resp_a"))],
            lambda: [
                create(),
                create("b"),
                *serve(events("resp_a")),
                error("previous_response_not_found", "b"),
            ],
        ),
    }
    for check_id, (failing, passing) in cases.items():
        example(check_id, Sample("session", failing), Sample("session", passing))


def completed_answers(
    probe: Probe, events: list[dict[str, Any]], what: str
) -> list[dict[str, Any]]:
    """``live.ws.responses`` over the events of one read: at least one answer, each with text
    (completed, or cut at ``max_output_tokens``). Returns the answers."""
    done = answers_of(events)
    terminal = [e for e in events if e.get("type", "").startswith("response.") and "response" in e]
    answered = len(done)
    probe.check(
        WS_RESPONSES, answered >= 1 and all(A.output_text(r).strip() for r in done),
        expected=f"{what}: responses with text (completed, or cut at max_output_tokens)",
        actual=f"{answered} completed; last event {terminal[-1]['type'] if terminal else None!r}",
    )  # fmt: skip
    return done


# live.ws.upgrade twice: the case's own mark and its file's both named it (the report lists both).
@case("websocket", WS_UPGRADE, WS_RESPONSES, WS_REQUEST_ANSWERED, WS_UPGRADE, profiles=WEBSOCKET)
def test_create_over_the_socket(probe: Probe) -> None:
    with probe.websocket() as s:
        s.create(probe.body(input=SHORT_PROMPT, max_output_tokens=WS_MAX_OUTPUT))
        completed_answers(probe, s.until(1), "one create")


@case("websocket", WS_RESPONSES, WS_LANE_ORDER, WS_LANE_SERIAL, WS_UPGRADE, profiles=WEBSOCKET)
def test_several_responses_in_sequence_on_one_connection(probe: Probe) -> None:
    with probe.websocket() as s:
        for n in range(3):  # queued at once on the default lane: answered FIFO, one at a time
            s.create(probe.body(input=f"{SHORT_PROMPT} ({n})", max_output_tokens=WS_MAX_OUTPUT,
                                metadata={"turn": str(n)}))  # fmt: skip
        done = completed_answers(probe, s.until(3), "three creates on one lane")
        turns = [r.get("metadata", {}).get("turn") for r in done]
        probe.check(
            WS_RESPONSES, turns == ["0", "1", "2"],
            expected="three answers, in the order sent", actual=f"turns {turns}",
        )  # fmt: skip


@case(
    "websocket",
    WS_RESPONSES,
    WS_STREAM_ID_ECHOED,
    WS_EVENT_ROUTED,
    WS_UPGRADE,
    profiles=WEBSOCKET,
)
def test_two_lanes_at_once(probe: Probe) -> None:
    with probe.websocket() as s:
        s.create(probe.body(input=SHORT_PROMPT, max_output_tokens=WS_MAX_OUTPUT), lane="lane-a")
        s.create(probe.body(input=SHORT_PROMPT, max_output_tokens=WS_MAX_OUTPUT), lane="lane.b")
        events = s.until(2)
        done = completed_answers(probe, events, "two lanes")
        lanes = sorted({str(e.get("stream_id")) for e in events})
        probe.check(
            WS_RESPONSES, len(done) == 2 and lanes == ["lane-a", "lane.b"],
            expected="an answer on each lane", actual=f"{len(done)} on lanes {lanes}",
        )  # fmt: skip


@case("websocket", WS_PREVIOUS_ACROSS_LANES, WS_RESPONSES, WS_UPGRADE, profiles=WEBSOCKET)
def test_previous_response_id_across_lanes(probe: Probe) -> None:
    with probe.websocket() as s:
        s.create(probe.body(input="My favourite colour is teal. Acknowledge it briefly.",
                            max_output_tokens=WS_MAX_OUTPUT), lane="main")  # fmt: skip
        done = completed_answers(probe, s.until(1), "the parent")
        probe.require(WS_PREVIOUS_ACROSS_LANES, bool(done), expected="a parent response")
        parent = done[0]["id"]
        s.create(probe.body(input="What is my favourite colour?", max_output_tokens=WS_MAX_OUTPUT,
                            previous_response_id=parent), lane="fork")  # fmt: skip
        events = s.until(1)
        child = answers_of(events)
        probe.check(
            WS_PREVIOUS_ACROSS_LANES,
            bool(child) and child[0].get("previous_response_id") == parent,
            expected=f"an answer on lane `fork` with previous_response_id {parent!r}",
            actual=repr(child[0].get("previous_response_id")) if child else describe_last(events),
        )
