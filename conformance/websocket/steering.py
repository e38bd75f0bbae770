"""Steering in a WebSocket session: each ``response.steer`` the client sent, and the server's
``response.steer.accepted`` / ``.pending`` / ``.failed`` answers judged against it.

The rules are the ``ws.steer.*`` checks of :mod:`conformance.catalog` (sources in
docs/websocket.md). One :class:`Steering` belongs to one
:class:`~conformance.websocket.session.SessionValidator`: it reports through the session's
``_report`` (so a folding session's caps apply) and adds to the session's ``exercised`` set.
It also answers the session's two questions about steering: may a response start its successor
on its own (:meth:`Steering.successor_due`), and which steers a new response settles
(:meth:`Steering.settle`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .. import catalog as C
from ..catalog.registry import Check
from .lanes import LaneResponse, Steer
from .shapes import steer_issues


class Report(Protocol):
    """The session's way to record one violation (``SessionValidator._report``)."""

    def __call__(
        self,
        check: Check,
        index: int | None,
        expected: Any,
        actual: Any,
        *,
        message: str = "",
        path: str = "",
    ) -> None: ...


class Steering:
    """The steers of one session and the judging of the server's answers to them."""

    def __init__(self, report: Report, exercised: set[str]) -> None:
        self._report = report
        self._exercised = exercised  # the session's own set, added to in place
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
        event: Mapping[str, Any],
        etype: str,
        sid: str | None,
        index: int,
        by_id: Mapping[Any, LaneResponse],
    ) -> None:
        """Judge one ``response.steer.*`` event the server sent on lane ``sid``."""
        self._exercised.update((C.WS_STEER_SHAPE.id, C.WS_STEER_KNOWN.id))
        if etype != "response.steer.pending":  # accepted or refused: was the target live?
            self._exercised.add(C.WS_STEER_LIVE.id)
        else:
            self._exercised.add(C.WS_STEER_PENDING_AFTER_TERMINAL.id)
        steer = event.get("steer")
        target = steer.get("previous_response_id") if isinstance(steer, Mapping) else None
        if not self._shape(event, etype, index):
            return
        waiting = [s for s in self.steers if s.target == target and not s.settled]
        if etype == "response.steer.pending":
            waiting = [s for s in waiting if s.accepted]
        else:
            waiting = [s for s in waiting if not s.accepted] or (
                [s for s in waiting if s.accepted] if etype == "response.steer.failed" else []
            )
        if not waiting:
            self._report(
                C.WS_STEER_KNOWN,
                index,
                f"a `response.steer` for {target} awaiting this answer",
                f"{etype} with none",
            )
            return
        record = waiting[0]
        response = by_id.get(target)
        if response is not None and response.lane is not None and sid != response.lane:
            self._report(C.WS_STREAM_ID_ECHOED, index, response.lane, sid, path="stream_id")
        if etype == "response.steer.accepted":
            record.accepted = True
            if not record.live:
                self._report(
                    C.WS_STEER_LIVE,
                    index,
                    "response.steer.failed (response_not_found / response_already_completed)",
                    f"response.steer.accepted for {target}, not running when it was steered",
                )
        elif etype == "response.steer.pending":
            record.settled = True
            if response is None or response.validator.terminal_type != "response.completed":
                self._report(
                    C.WS_STEER_PENDING_AFTER_TERMINAL,
                    index,
                    f"after {target}'s response.completed",
                    "before it" if response is not None else "for a response never seen",
                )
        else:
            record.settled = True

    def _shape(self, event: Mapping[str, Any], etype: str, index: int) -> bool:
        issues = steer_issues(event, etype)
        for issue in issues:
            self._report(C.WS_STEER_SHAPE, index, issue.expected, issue.actual, path=issue.path)
        return not issues
