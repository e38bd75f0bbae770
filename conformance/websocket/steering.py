"""Steering in a WebSocket session: each ``response.steer`` the client sent, and the server's
``response.steer.accepted`` / ``.pending`` / ``.failed`` answers judged against it.

The rules are the ``ws.steer.*`` checks of :mod:`conformance.catalog` (sources in
docs/websocket.md). One :class:`Steering` belongs to one
:class:`~conformance.websocket.session.SessionValidator`, which hands itself to each judging
call: the rules report through its ``_report`` (so a folding session's caps apply) and add to
its ``exercised`` set.
It also answers the session's two questions about steering: may a response start its successor
on its own (:meth:`Steering.successor_due`), and which steers a new response settles
(:meth:`Steering.settle`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .. import catalog as C
from ..sections.s2_1_sequence import _Report
from .lanes import LaneResponse, Steer
from .shapes import steer_issues


class SteeringState(Protocol):
    """What the steering rules read and write of the session validator (passed on each call,
    never kept: a steering record holding the session would put every session in a reference
    cycle, as ``conformance.validator.state.Reporter`` explains for the stream validator)."""

    exercised: set[str]

    @property
    def _report(self) -> _Report: ...

    @property
    def _by_id(self) -> Mapping[Any, LaneResponse]: ...


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
        session.exercised.update((C.WS_STEER_SHAPE.id, C.WS_STEER_KNOWN.id))
        if etype != "response.steer.pending":  # accepted or refused: was the target live?
            session.exercised.add(C.WS_STEER_LIVE.id)
        else:
            session.exercised.add(C.WS_STEER_PENDING_AFTER_TERMINAL.id)
        steer = event.get("steer")
        target = steer.get("previous_response_id") if isinstance(steer, Mapping) else None
        issues = steer_issues(event, etype)
        for issue in issues:
            session._report(C.WS_STEER_SHAPE, index, issue.expected, issue.actual, path=issue.path)
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
                C.WS_STEER_KNOWN,
                index,
                f"a `response.steer` for {target} awaiting this answer",
                f"{etype} with none",
            )
            return
        record = waiting[0]
        response = session._by_id.get(target)
        if response is not None and response.lane is not None and sid != response.lane:
            session._report(C.WS_STREAM_ID_ECHOED, index, response.lane, sid, path="stream_id")
        if etype == "response.steer.accepted":
            record.accepted = True
            if not record.live:
                session._report(
                    C.WS_STEER_LIVE,
                    index,
                    "response.steer.failed (response_not_found / response_already_completed)",
                    f"response.steer.accepted for {target}, not running when it was steered",
                )
        elif etype == "response.steer.pending":
            record.settled = True
            if response is None or response.validator.terminal_type != "response.completed":
                session._report(
                    C.WS_STEER_PENDING_AFTER_TERMINAL,
                    index,
                    f"after {target}'s response.completed",
                    "before it" if response is not None else "for a response never seen",
                )
        else:
            record.settled = True
