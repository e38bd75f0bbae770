"""The session validator: a sans-I/O judge of one Responses WebSocket connection.

One :class:`SessionValidator` per connection. The caller hands it every frame in the order it
crossed the wire: ``client(frame)`` for what the client sent, ``server(frame)`` for what it
received (a ``str`` text frame, ``bytes`` for a binary one, or an already parsed ``dict``), and
``close()`` at the end. Each returns the violations it reveals.

Server events are demultiplexed by lane (``stream_id``; none is the default lane) and, within a
lane, by response: each response gets its own :class:`~conformance.validator.StreamValidator`, so
a defect inside a response is reported under the same check ID as over SSE. The session's own rules
(frames, lanes, ordering, refusals, errors, steering) are the ``ws.*`` checks; their sources are in
docs/websocket.md and docs/spec.md §8. Nothing here raises on bad input: a frame that is
not text, not JSON or routed nowhere is a violation. A response's finished items are also judged
against the ``response.create`` it answers where a rule needs both
(``response.custom_tool_call.grammar``: a custom tool's input against the request's grammar).

Its records (requests, lanes, responses) are in :mod:`.lanes`. The rules of §8.1 (frames,
``ws.frame.*``), §8.2 (lanes, ``ws.event.routed``, ``ws.stream_id.echoed``, ``ws.lane.*``,
``ws.request.answered``), §8.3 (refusals, ``ws.request.rejected``), §8.4 (errors,
``ws.error.*``) and §8.5 (steering, ``ws.steer.*``, with the steers sent) are in their section
modules (:mod:`conformance.sections`), which it calls where its routing decides.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.registry import Check, Violation
from ..sections.against_request import judge_item_against_request
from ..sections.s5_limits import judge_unparsable
from ..sections.s8_1_frames import judge_frame
from ..sections.s8_2_lanes import (
    judge_answered as judge_all_answered,
)
from ..sections.s8_2_lanes import (
    judge_echo,
    judge_lane_opened,
    judge_serial,
    judge_stream_id,
    note_opening,
    report_unrouted,
    report_unrouted_error,
    take,
)
from ..sections.s8_3_refusals import (
    create_refusal,
    judge_answered,
    judge_unrefused,
    note_refused,
)
from ..sections.s8_4_ws_errors import judge_error_fields, judge_error_shape
from ..sections.s8_5_steering import Steering
from ..sse.framing import JSONDepthError, parse_json
from ..validator import PROFILES, StreamValidator
from .lanes import (
    STEER_EVENTS,
    STREAM_ID,
    Lane,
    LaneResponse,
    Request,
    response_id,
)

# LaneResponse and STREAM_ID live in .lanes; they are still importable from here.
__all__ = ["STREAM_ID", "LaneResponse", "SessionValidator"]


class SessionValidator:
    """Judges one WebSocket session, frame by frame (see the module docstring)."""

    def __init__(
        self,
        *,
        profiles: Iterable[str] = ("core",),
        coverage: bool = False,
        retain: int | None = None,
        kept_per_check: int = 20,
    ) -> None:
        """``coverage``: each response's validator records the stream checks its events
        exercised (``StreamValidator(coverage=True)``; the live suite asks for it).

        ``retain``: a long session constant in memory (the proxy's): past the ``retain`` latest
        responses, one that is not its lane's latest is folded as the session goes — its validator closed, its
        verdicts and exercised checks added to the session's, its ids forgotten (a later event
        naming it is judged as naming an unknown response) — and each check keeps the evidence
        of its first ``kept_per_check`` violations, counting the rest in :attr:`omitted`.
        None: every response is kept to the end (the offline judge)."""
        self._profiles = frozenset(profiles) & PROFILES | {"core"}
        self._coverage = coverage
        self._retain = retain
        self._kept_per_check = kept_per_check
        self.omitted: Counter[str] = Counter()  # check ID -> violations counted, not kept
        self._kept: Counter[str] = Counter()
        self._folded: list[Violation] = []  # the folded responses' stream violations
        self._folded_exercised: set[str] = set()
        self.folded = 0  # responses folded
        self.violations: list[Violation] = []
        self.responses: list[LaneResponse] = []
        self.frames = 0
        self.events = 0  # server events judged
        self._lanes: dict[str | None, Lane] = {None: Lane()}
        self._owed_errors: deque[Request] = deque()  # rejectable events with no lane
        self._by_id: dict[Any, LaneResponse] = {}
        self._items: dict[Any, LaneResponse] = {}  # output item id -> its response
        self._closed = False
        self._creates = 0
        # The ws.* checks this session put to the test (a live run reports the others as not
        # exercised); the stream checks' are each response's validator's.
        self.exercised: set[str] = set()
        self._steering = Steering()

    # ------------------------------------------------------------------ client side

    def client(self, frame: object) -> list[Violation]:
        """Record one frame the client sent (what it owes the server to answer)."""
        index = self._next_frame()
        start = len(self.violations)
        event: object = frame
        if isinstance(frame, bytes | bytearray):
            self._owed_errors.append(Request(index, None, {}, "a binary frame"))
            return []
        if isinstance(frame, str):
            try:
                event = parse_json(frame)
            except ValueError as exc:
                why = "JSON nested too deeply" if isinstance(exc, JSONDepthError) else "not JSON"
                self._owed_errors.append(Request(index, None, {}, why))
                return []
        if not isinstance(event, dict):
            self._owed_errors.append(Request(index, None, {}, "not a JSON object"))
            return []
        etype = event.get("type")
        if etype == "response.create":
            self._on_create(event, index)
        elif etype == "response.steer":
            self._on_steer(event, index)
        else:
            self._owed_errors.append(Request(index, None, event, f"unknown type {etype!r}"))
        return self.violations[start:]

    def _on_create(self, event: Mapping[str, Any], index: int) -> None:
        self._creates += 1
        sid = event.get("stream_id")
        lane_ok = sid is None or (isinstance(sid, str) and STREAM_ID.fullmatch(sid) is not None)
        why = create_refusal(event, lane_ok)  # §8.3: what WebSocket mode must refuse
        if not lane_ok:
            # No usable lane: its error may come on the default lane or echo the raw id.
            self._owed_errors.append(Request(index, None, event, why))
            return
        lane = self._lane(sid)
        lane.opened = True
        lane.pending.append(Request(index, sid, event, why))

    def _on_steer(self, event: Mapping[str, Any], index: int) -> None:
        target = event.get("previous_response_id")
        if not isinstance(target, str):
            self._owed_errors.append(Request(index, None, event, "no `previous_response_id`"))
            return
        running = self._by_id.get(target)
        self._steering.sent(index, target, running is not None and not running.finished)

    # ------------------------------------------------------------------ server side

    def server(self, frame: object) -> list[Violation]:
        """Judge one frame the server sent."""
        if type(frame) is dict:
            # The hot path (most frames are deltas of a running response): a delta on a lane
            # whose response runs goes straight to that response's validator. Everything the
            # full path would decide is settled: the lane is open, its response is running and
            # named, it echoes the lane's stream_id, and the event carries no response object.
            ftype = frame.get("type")
            if type(ftype) is str and ftype.endswith(".delta"):
                lane = self._lanes.get(frame.get("stream_id"))
                if lane is not None and not lane.interleaved and lane.opened:
                    current = lane.current
                    if (
                        current is not None
                        and current.validator.terminal_type is None
                        and current.response_id is not None
                        and "response" not in frame
                    ):
                        if self._closed:
                            raise RuntimeError("frame after close()")
                        self.frames += 1
                        self.events += 1
                        current.validator.feed(frame)  # its findings are the response's
                        return []
        index = self._next_frame()
        start = len(self.violations)
        try:
            event = judge_frame(self, frame, index, parse_json)  # §8.1: text, one JSON object
        except JSONDepthError as exc:
            judge_unparsable(self._report, index, str(exc))  # §5 (conformance.sections)
            return self.violations[start:]
        if event is None:
            return self.violations[start:]
        self.events += 1
        sid = event.get("stream_id", None)
        etype: str = event["type"]
        if not judge_stream_id(self, sid, index):  # §8.2
            return self.violations[start:]
        if etype in STEER_EVENTS:
            self._steering.answer(self, event, etype, sid, index)
        elif etype == "error":
            self._on_error(event, sid, index)
        else:
            self._on_stream_event(event, etype, sid, index)
        return self.violations[start:]

    def _on_stream_event(
        self, event: dict[str, Any], etype: str, sid: str | None, index: int
    ) -> None:
        lane = self._lanes.get(sid)
        opened = lane is not None and (sid is None or lane.opened)
        if not judge_lane_opened(self, opened, sid, etype, index):  # §8.2
            return
        assert lane is not None
        target = self._stray(event) if sid is None and self._idle(lane) else None
        if target is None:
            target = self._owner(lane, event) if lane.interleaved else None
        if target is None:
            target = self._route(lane, sid, event, etype, index)
        if target is None:
            return
        judge_echo(self, target.lane, sid, index)  # §8.2: the lane's stream_id echoed
        target.validator.feed(event)
        if target.response_id is None and isinstance(event.get("response"), dict):
            rid = event["response"].get("id")
            if isinstance(rid, str):
                target.response_id = rid
                self._by_id.setdefault(rid, target)
        if etype == "response.output_item.added" and isinstance(event.get("item"), dict):
            item_id = event["item"].get("id")
            self._items[item_id] = target
            if self._retain is not None:
                target.items.append(item_id)
        elif etype == "response.output_item.done" and isinstance(event.get("item"), dict):
            self._against_request(target, event["item"], index)

    def _against_request(self, target: LaneResponse, item: Mapping[str, Any], index: int) -> None:
        """A finished item against the ``response.create`` its response answers (a custom
        tool's input against the request's grammar, a reasoning item's state against its
        ``include``); an automatic successor has no request."""
        request = target.request
        if request is None or item.get("type") not in ("custom_tool_call", "reasoning"):
            return
        found, applied = judge_item_against_request(request.body, item, index)
        self.exercised |= applied
        self.violations += found

    def _idle(self, lane: Lane) -> bool:
        current = lane.current
        return not lane.pending and (current is None or current.finished)

    def _stray(self, event: Mapping[str, Any]) -> LaneResponse | None:
        """The named lane's response an event without ``stream_id`` belongs to, if one does."""
        owner = self._items.get(event.get("item_id")) or self._by_id.get(response_id(event))
        if owner is not None and owner.lane is not None:
            return owner
        running = [
            lane.current
            for sid, lane in self._lanes.items()
            if sid is not None and lane.current is not None and not lane.current.finished
        ]
        return running[0] if len(running) == 1 else None

    def _owner(self, lane: Lane, event: Mapping[str, Any]) -> LaneResponse | None:
        """On a lane that ran two responses at once, the one an event names."""
        rid = response_id(event)
        if rid is not None:
            return self._by_id.get(rid)
        item = event.get("item")
        return self._items.get(
            event.get("item_id", item.get("id") if isinstance(item, dict) else None)
        )

    def _route(
        self, lane: Lane, sid: str | None, event: Mapping[str, Any], etype: str, index: int
    ) -> LaneResponse | None:
        current = lane.current
        rid = response_id(event)
        if current is not None and not current.finished:
            if etype != "response.created" or rid in (None, current.response_id):
                return current
            if current.response_id is None:
                return current  # nothing named the running response yet: the stream checks judge it
            # A second response started on the lane while the first one runs.
            lane.interleaved = True
            judge_serial(self, current.response_id, rid, index)  # §8.2
        elif (
            current is not None
            and not lane.pending
            and not self._steering.successor_due(current)
            and (etype != "response.created" or rid in (None, current.response_id))
        ):
            # More events after the terminal one: the stream checks name it, as over SSE.
            return current
        note_opening(self)  # §8.2: a response opens on the lane: is it alone?
        if lane.pending:
            request = take(self, lane.pending, event, index)  # §8.2: in the order sent?
            judge_answered(self, request, index)  # §8.3: a response to a request to refuse?
            return self._open(lane, sid, request, index)
        if current is not None and self._steering.successor_due(current):
            return self._open(lane, sid, None, index)
        report_unrouted(self, sid, etype, index)  # §8.2
        if etype == "response.created":
            return self._open(lane, sid, None, index)  # judged on its own all the same
        return None

    def _open(
        self, lane: Lane, sid: str | None, request: Request | None, index: int
    ) -> LaneResponse:
        limit = None if request is None else request.body.get("max_output_tokens")
        validator = StreamValidator(
            profiles=self._profiles,
            max_output_tokens=limit if type(limit) is int else None,
            coverage=self._coverage,
        )
        response = LaneResponse(sid, request, validator, first_frame=index)
        # The successor's `response.created` commits the queued steering input ([SDK]).
        parent = (
            lane.current.response_id
            if request is None and lane.current
            else (None if request is None else request.body.get("previous_response_id"))
        )
        self._steering.settle(parent)
        lane.current = response
        self.responses.append(response)
        if self._retain is not None and len(self.responses) > 2 * self._retain:
            self._fold()
        return response

    def _fold(self) -> None:
        """Fold the finished responses older than the ``retain`` latest (see ``__init__``)."""
        assert self._retain is not None
        old, recent = self.responses[: -self._retain], self.responses[-self._retain :]
        current = {id(lane.current) for lane in self._lanes.values()}
        keep: list[LaneResponse] = []
        for response in old:
            if id(response) in current:  # its lane's latest: events may still come
                keep.append(response)
                continue
            # Finished, or superseded on its lane long ago (2 × retain responses): what it
            # lacks now it lacks at the session's end, a cut session's too.
            response.validator.close()
            self._folded += self._capped(response.validator.violations)
            if self._coverage:
                self._folded_exercised |= response.validator.exercised
            self.folded += 1
            if self._by_id.get(response.response_id) is response:
                del self._by_id[response.response_id]
            for item_id in response.items:
                if self._items.get(item_id) is response:
                    del self._items[item_id]
        self.responses = keep + recent

    def _capped(self, violations: Iterable[Violation]) -> list[Violation]:
        """The violations a folding session keeps: each check's first ``kept_per_check``."""
        out = []
        for v in violations:
            if self._kept[v.check_id] < self._kept_per_check:
                self._kept[v.check_id] += 1
                out.append(v)
            else:
                self.omitted[v.check_id] += 1
        return out

    def _steer_echoed(self, response: LaneResponse | None, sid: str | None, index: int) -> None:
        """A steering answer comes on the lane of the response it steers (§8.2; the steering
        rules, :mod:`conformance.sections.s8_5_steering`, ask)."""
        if response is not None:
            judge_echo(self, response.lane, sid, index, mark=False)

    # ------------------------------------------------------------------ errors

    def _on_error(self, event: Mapping[str, Any], sid: str | None, index: int) -> None:
        judge_error_shape(self, event, index, openresponses="openresponses" in self._profiles)
        lane = self._lanes.get(sid)
        running = lane is not None and lane.current is not None and not lane.current.finished
        if lane is not None and lane.pending and "sequence_number" not in event:
            # [OAPI] ResponseWsError: only an error "emitted by the response stream" has a
            # sequence_number; one without refuses a request. While a response runs, that is
            # one refused as it arrived (the newest); otherwise the lane's head, refused as it
            # came up.
            refused = lane.pending.pop() if running else lane.pending.popleft()
            note_refused(self, refused)
            judge_error_fields(self, event, index)  # a refusal: §8.4's status and code
            return
        if running:
            # Inside a running response: the stream checks judge it (SPEC §1, as over SSE).
            assert lane is not None and lane.current is not None
            lane.current.validator.feed(dict(event))
            return
        if lane is not None and lane.pending:
            # A stream's own `error` (it has a sequence_number) opening the head's response.
            self._on_stream_event(dict(event), "error", sid, index)
            return
        if self._owed_errors:
            self._owed_errors.popleft()
            note_refused(self)
            judge_error_fields(self, event, index)
            return
        if lane is not None and lane.current is not None and "sequence_number" in event:
            # A stream's `error` after its terminal event: the stream checks name it, as over SSE.
            lane.current.validator.feed(dict(event))
            return
        if sid is None:
            judge_error_fields(self, event, index)
            for other in self._lanes.values():
                if other.pending and other.pending[0].rejectable:
                    other.pending.popleft()
                    note_refused(self)
                    return
            return  # a connection-scoped error (SDK README: "connection-scoped errors")
        report_unrouted_error(self, sid, index)  # §8.2

    # ------------------------------------------------------------------ end

    def close(self, *, cut: bool = False) -> list[Violation]:
        """End of the session: every response's end-of-stream checks, every request unanswered.

        ``cut``: the session was ended by the client or by whoever watches it (a proxy shutting
        down), not by the server: a response still in flight may lack its terminal event, and a
        request not answered yet is owed nothing — every other rule still holds (as for a
        stream the client walked away from, docs/proxy.md)."""
        if self._closed:
            return []
        self._closed = True
        start = len(self.violations)
        for response in self.responses:
            response.validator.close(cancelled=cut)
        pending = [(sid, lane.pending) for sid, lane in self._lanes.items()]
        judge_all_answered(self, self._creates, pending, report=not cut)  # §8.2
        if cut:
            judge_unrefused(self, self._owed_errors, report=False)
            return self.violations[start:] + self.stream_violations()
        judge_unrefused(self, self._owed_errors, report=True)
        return self.violations[start:] + self.stream_violations()

    def stream_violations(self) -> list[Violation]:
        """Every response's stream-check violations, in the order the responses opened (those
        of folded responses first, as kept)."""
        live = [v for r in self.responses for v in r.validator.violations]
        if self._retain is None:
            return live
        return self._folded + live

    def stream_exercised(self) -> set[str]:
        """The stream checks the responses' events exercised (needs ``coverage=True``)."""
        out: set[str] = set(self._folded_exercised)
        for response in self.responses:
            out |= response.validator.exercised
        return out

    def all_violations(self) -> list[Violation]:
        return self.violations + self.stream_violations()

    @property
    def ok(self) -> bool:
        return not any(v.check.level.value == "MUST" for v in self.all_violations())

    # ------------------------------------------------------------------ helpers

    def _lane(self, sid: str | None) -> Lane:
        lane = self._lanes.get(sid)
        if lane is None:
            lane = self._lanes[sid] = Lane()
        return lane

    def _next_frame(self) -> int:
        if self._closed:
            raise RuntimeError("frame after close()")
        self.frames += 1
        return self.frames - 1

    def _report(
        self,
        check: Check,
        index: int | None,
        expected: Any,
        actual: Any,
        *,
        message: str = "",
        path: str = "",
    ) -> None:
        if self._retain is not None:
            if self._kept[check.id] >= self._kept_per_check:
                self.omitted[check.id] += 1
                return
            self._kept[check.id] += 1
        self.violations.append(
            check.violation(
                expected=expected, actual=actual, event_index=index, message=message, path=path
            )
        )
