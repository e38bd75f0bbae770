"""Bytes to verdicts: the SSE framing layer in front of :class:`StreamValidator`.

:class:`SSEStreamValidator` is fed raw response-body bytes in any chunking. It decodes them
(:mod:`conformance.sse`), checks the framing rules of SPEC §1 (the ``event:`` name equals the
body's ``type``, ``data`` is one JSON object, ``[DONE]`` last and — in the ``openresponses``
profile — present, no ``id:``), parses each payload and hands it to the stream validator. It is
sans-I/O like the validator, so the CLI, the live suite and the load tests all drive it the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from .. import catalog as C
from ..catalog.registry import Check, Violation
from ..catalog.render import short
from ..errors import ConformanceError
from ..validator import NO_ROUTE, StreamValidator
from .decoder import Record, SSEDecoder, SSELimitError

__all__ = [
    "DEFAULT_MAX_EVENTS",
    "DEFAULT_MAX_EVENT_BYTES",
    "JSONDepthError",
    "SSEStreamValidator",
    "parse_json",
]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_EVENTS = 1_000_000


class JSONDepthError(ConformanceError, ValueError):
    """JSON nested deeper than the parsers go (orjson stops at 1,024 levels, ``json`` near
    Python's recursion limit)."""


def parse_json(text: str | bytes) -> Any:
    """orjson, falling back to the standard library for what orjson refuses but JSON allows
    (integers beyond 64 bits); raises ``ValueError`` on text that is not JSON, and its subclass
    :class:`JSONDepthError` on JSON nested too deeply to parse."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            return json.loads(text)
        except RecursionError:
            raise JSONDepthError("JSON nested too deeply to parse") from None


class SSEStreamValidator:
    """Framing checks plus the stream validator, over raw SSE bytes.

    ``keep_events``: keep every decoded event object in ``events`` (evidence for reports);
    off by default so a load test's memory stays flat. It costs the typed path nothing: a delta
    judged from its typed object is kept as its bytes, and parsed when ``events`` is read.
    ``on_delta``: called with the type and the ``delta`` value of each ``*.delta`` event (None
    when it has none), typed path or not — what a load client times and counts, without a dict
    per event; the lifecycle it needs is on :attr:`validator` (``response_id``, ``terminal``,
    ``terminal_type``).
    ``on_event``: called with each decoded event object before it is judged, so callers need not
    decode the stream a second time. It needs a dict per event, so it turns the typed path off.
    ``fast``: False selects the reference path, every event parsed into a dict and judged in full
    (``StreamValidator(fast=False)``); the fast paths must give the same verdicts.
    ``tally``: event types whose events to count, typed path or not: :attr:`tallied` counts them
    and :attr:`tallied_nonempty` those whose ``delta`` is not empty — what a load client needs of
    the output deltas, read after each :meth:`feed`, for less than a call of ``on_delta`` each.
    """

    # Slots: a stream's judge is made per stream, and its hot paths read these fields per chunk.
    __slots__ = (
        "_closed", "_decoder", "_events", "_first_raw", "_id_reported", "_lane", "_lane_count",
        "_max_event_bytes", "_missing_name", "_names", "_openresponses", "_room", "_taken",
        "_taken_bytes", "_wiring", "aborted", "done_seen", "framing", "keep_events",
        "on_delta", "on_event", "profiles", "tallied", "tallied_nonempty", "tally", "validator",
    )  # fmt: skip

    def __init__(
        self,
        *,
        resume_after: int | None = None,
        profiles: Iterable[str] = ("core",),
        max_output_tokens: int | None = None,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_events: int = DEFAULT_MAX_EVENTS,
        keep_events: bool = False,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        coverage: bool = False,
        on_delta: Callable[[str, Any], None] | None = None,
        fast: bool = True,
        tally: Iterable[str] = (),
    ) -> None:
        self.validator = StreamValidator(
            resume_after=resume_after,
            profiles=profiles,
            max_output_tokens=max_output_tokens,
            coverage=coverage,
            fast=fast,
        )
        self.profiles = self.validator.profiles
        self._openresponses = "openresponses" in self.profiles
        self._decoder = SSEDecoder(max_event_bytes=max_event_bytes, max_events=max_events)
        self.keep_events = keep_events
        self.on_event = on_event
        self.on_delta = on_delta
        self.tally = frozenset(tally)
        self.tallied = 0  # events of a `tally` type
        self.tallied_nonempty = 0  # of those, with a non-empty `delta`
        validator = self.validator
        # What `_judge` calls, bound once per stream (the validator is this stream's own).
        self._wiring = (
            validator.feed_fast,
            validator.feed_full,
            validator.route,
            validator.routes,
            validator.fast_types,
        )
        self._max_event_bytes = max_event_bytes
        # The lane (`feed`) takes one-event chunks itself, as `SSEDecoder.feed_records` would:
        # at most `_room` of them (`SSEDecoder.lane_room`), counted in `_taken` / `_taken_bytes`
        # until they are reported to the decoder (`_settle_lane`), before it is next called.
        self._room = 0
        self._taken = 0
        self._taken_bytes = 0
        # Decoded event objects, one per event received (a non-JSON payload as its raw text), so
        # that a violation's event_index indexes this list; typed-path deltas as `_Raw` bytes
        # from `_first_raw` on, until `events` is read.
        self._events: list[Any] = []
        self._first_raw: int | None = None
        # (the block's head `event: <raw name>\ndata: `, its length, raw name, name, typed
        # decoder, slot getter, output_index, item_id, slot index, target, whether the type is
        # tallied) of the route the last chunk ended on, and the validator's event count then.
        # None once the stream is aborted or closed.
        self._lane: _LaneTuple | None = None
        self._lane_count = 0
        self.framing: list[Violation] = []
        self.done_seen = False
        self.aborted: str | None = None  # why decoding stopped early (a judge limit)
        self._missing_name = 0
        self._id_reported = False
        self._closed = False
        self._names = _NAMES

    @property
    def events(self) -> list[Any]:
        """The decoded event objects (with ``keep_events``), one per event received."""
        first = self._first_raw
        if first is not None:
            self._first_raw = None
            events = self._events
            for i in range(first, len(events)):
                if type(events[i]) is _Raw:
                    events[i] = parse_json(events[i].data)
        return self._events

    @property
    def event_count(self) -> int:
        """How many events :attr:`events` holds (with ``keep_events``), without decoding them."""
        return len(self._events)

    @property
    def violations(self) -> list[Violation]:
        """Every violation so far, framing and stream, in the order found."""
        return sorted(
            self.framing + self.validator.violations,
            key=lambda v: v.event_index if v.event_index is not None else 1 << 62,
        )

    @property
    def exercised(self) -> set[str]:
        """The checks this stream put to the test, framing included (needs ``coverage=True``)."""
        out = self.validator.exercised | {v.check_id for v in self.framing}
        if self.validator.events:
            out |= {
                "sse.data.json", "sse.event_name.present", "sse.limit.event_size",
                "sse.limit.event_count", "sse.limit.depth",
            }  # fmt: skip
            if self.validator.events > self._missing_name:
                out.add("sse.event_name.matches_type")
            if self._openresponses:
                out |= {"sse.event_name.required", "sse.id.absent"}
        if self._openresponses and self._closed:
            out.add("sse.done.required")
        if self.done_seen:
            out.add("sse.done.last")
        return out

    def feed(self, chunk: bytes) -> list[Violation]:
        """Feed raw body bytes; returns the violations they reveal."""
        lane = self._lane
        if lane is not None:  # never once the stream is aborted or closed
            # One event in the chunk (a server flushes each event), of the type the previous
            # chunk ended on: taken without the decoder's match (`SSEDecoder.lane_room`), and
            # when it continues that route, recorded here as `_judge` would record it, without
            # setting up its loop. The lane holds while nothing else fed the validator.
            head, cut, raw_name, name, decode, get, oi, item_id, index, target, tallied = lane
            validator = self.validator
            count = validator.events
            if count == self._lane_count and self._room:
                # The decoder's canonical block, tested here (a call less per delta): the chunk
                # is one block that begins with `head`, without a CR, within the size bound.
                # Tested with a slice, indexing and `in` (memchr): `startswith`, `endswith` and
                # `find` parse their arguments as a tuple, which costs more than the tests.
                # (`head` holds no CR or LF but its own, and ends in a space: the two LFs at
                # the end lie past it.)
                data = None
                size = len(chunk)
                if (
                    type(chunk) is bytes
                    and chunk[:cut] == head
                    and chunk[-1] == 10
                    and chunk[-2] == 10
                    and size <= self._max_event_bytes
                ):
                    data = chunk[cut:-2]
                    if 10 in data or 13 in data:
                        data = None
                    else:
                        self._room -= 1
                        self._taken += 1
                        self._taken_bytes += size
                if data is not None:
                    try:
                        typed_event = decode(data)
                    except (ValueError, RecursionError):
                        typed_event = False
                    if (
                        typed_event
                        and typed_event.sequence_number == validator.next_seq
                        and typed_event.output_index == oi
                        and typed_event.item_id == item_id
                        and get(typed_event) == index
                    ):
                        validator.next_seq = typed_event.sequence_number + 1
                        delta = typed_event.delta
                        target.append(delta)
                        self._lane_count = validator.events = count + 1
                        validator.fast_judged += 1
                        if tallied:
                            self.tallied += 1
                            if delta:
                                self.tallied_nonempty += 1
                        if self.keep_events:
                            if self._first_raw is None:
                                self._first_raw = len(self._events)
                            self._events.append(_Raw(data))
                        if self.on_delta is not None:
                            self.on_delta(name, delta)
                        return []
                    return self._judge([(raw_name, data)])  # the record `feed_records` gives
        if self.aborted is not None or self._closed:
            return []
        if self._taken:
            self._settle_lane()
        self._room = 0
        try:
            decoded = self._decoder.feed_records(chunk)
        except SSELimitError as exc:
            return self._abort(exc)
        if not decoded:
            return []
        return self._judge(decoded)

    def close(self, *, cancelled: bool = False) -> list[Violation]:
        """End of the body; returns end-of-stream violations.

        ``cancelled``: the response was cancelled while this stream was read, so the stream may
        end without a terminal event (SPEC §2.13); every other rule still holds.
        """
        if self._closed:
            return []
        self._closed = True
        out: list[Violation] = []
        if self._taken:
            self._settle_lane()
        self._room = 0
        if self.aborted is None:
            try:
                records = self._decoder.close_records()
            except SSELimitError as exc:
                out += self._abort(exc)
            else:
                if records:  # a final event without its blank line
                    out += self._judge(records)
        if self._missing_name:
            out.append(
                self._framing(
                    C.SSE_EVENT_NAME_PRESENT,
                    None,
                    "an `event:` line on every event",
                    f"{self._missing_name} event(s) without one",
                )
            )
            if self._openresponses:
                out.append(
                    self._framing(
                        C.SSE_EVENT_NAME_REQUIRED,
                        None,
                        "an `event:` line on every event",
                        f"{self._missing_name} event(s) without one",
                    )
                )
        if self._openresponses and not self.done_seen and self.aborted is None and not cancelled:
            out.append(self._framing(C.SSE_DONE_REQUIRED, None, "data: [DONE]", "no [DONE]"))
        out += self.validator.close(cancelled=cancelled)
        self._lane = None  # `feed` takes no lane once closed (`_judge` above may set one)
        return out

    # ------------------------------------------------------------------ internals

    def _framing(
        self, check: Check, index: int | None, expected: Any, actual: Any, message: str = ""
    ) -> Violation:
        v = check.violation(expected=expected, actual=actual, event_index=index, message=message)
        self.framing.append(v)
        return v

    def _abort(self, exc: SSELimitError) -> list[Violation]:
        self.aborted = str(exc)
        self._lane = None
        check = C.SSE_LIMIT_EVENT_SIZE if exc.kind == "event_size" else C.SSE_LIMIT_EVENT_COUNT
        return [
            self._framing(
                check, self.validator.events, f"≤ {exc.limit}", exc.actual, message=str(exc)
            )
        ]

    def _judge(self, records: list[Record]) -> list[Violation]:
        # The hot loop. The common event — `event: <type>` and `data: <JSON object>` whose type
        # is that name, before any [DONE] — is parsed and judged here; everything else goes
        # through `_judge_one`, which applies every framing rule.
        #
        # A delta that continues the validator's current route (`StreamValidator.route`) is
        # first decoded straight into a typed object, which both parses it and checks its
        # schema (`SchemaValidator.event_decoder`); when that object continues the route, the
        # delta is recorded as `StreamValidator.feed_fast` would record it. Anything else —
        # bytes the typed decoder refuses, a delta off the route, and every other event — is
        # parsed into a dict and judged the reference way. Not when the caller wants each
        # event as a dict (`on_event`).
        out: list[Violation] = []
        validator = self.validator
        fast, full, route_for, routes, fast_types = self._wiring
        loads = orjson.loads
        keep = self.keep_events
        events = self._events
        on_event = self.on_event
        on_delta = self.on_delta
        typed = on_event is None and bool(fast_types)
        names = self._names
        tally = self.tally
        # The validator's counters, held in locals between full-path events; a typed delta adds
        # one to both `events` and `fast_judged`, so only their difference (`lead`) is held.
        next_seq = validator.next_seq
        count = validator.events
        lead = validator.fast_judged - count
        tallied = False  # the current route's type is in `tally`
        extra = False  # a typed delta is tallied, kept or reported (`on_delta`)
        n_tallied = self.tallied
        n_nonempty = self.tallied_nonempty
        # The name and route of the previous event (a run of deltas shares them): comparing two
        # names costs less than hashing one. Forgotten whenever the validator is called.
        last_name: bytes | None = None
        name = ""
        # That route's typed decoder (None: no typed route) and the fields a delta must match.
        decode: Any = None
        get: Any = None
        oi: Any = None
        item_id: Any = None
        index: Any = None
        target: list[str] = []
        done_seen = self.done_seen  # set only by `_judge_one`
        self._lane = None
        for record in records:
            if len(record) == 2 and not done_seen:
                raw_name, data = record
                if raw_name is not None:
                    if raw_name != last_name:
                        last_name = raw_name
                        known = names.get(raw_name)
                        name = self._name(raw_name) if known is None else known
                        decode = None
                        if typed and name in fast_types:
                            route = routes.get(name)
                            if route is None:
                                route = route_for(name)
                            if route is not NO_ROUTE:
                                oi, item_id, _key, index, _valid, target, decode, get = route
                                tallied = name in tally
                                extra = tallied or keep or on_delta is not None
                    if decode is not None:
                        try:
                            typed_event = decode(data)
                        except (ValueError, RecursionError):
                            typed_event = False
                        if (
                            typed_event
                            and typed_event.sequence_number == next_seq
                            and typed_event.output_index == oi
                            and typed_event.item_id == item_id
                            and get(typed_event) == index
                        ):
                            next_seq = typed_event.sequence_number + 1
                            target.append(typed_event.delta)
                            count += 1
                            if extra:  # what only some callers ask for
                                delta = typed_event.delta
                                if tallied:
                                    n_tallied += 1
                                    if delta:
                                        n_nonempty += 1
                                if keep:
                                    if self._first_raw is None:
                                        self._first_raw = len(events)
                                    events.append(_Raw(data))
                                if on_delta is not None:
                                    on_delta(name, delta)
                            continue
                last_name = None
                validator.next_seq = next_seq
                validator.events = count
                validator.fast_judged = count + lead
                try:
                    event = loads(data)
                except orjson.JSONDecodeError:
                    self.tallied, self.tallied_nonempty = n_tallied, n_nonempty
                    out += self._judge_one(record)
                    n_tallied, n_nonempty = self.tallied, self.tallied_nonempty
                    next_seq = validator.next_seq
                    count = validator.events
                    lead = validator.fast_judged - count
                    done_seen = self.done_seen
                    continue
                if type(event) is dict and raw_name is not None and event.get("type") == name:
                    if keep:
                        events.append(event)
                    if on_event is not None:
                        on_event(event)
                    if name in tally:
                        n_tallied += 1
                        if event.get("delta"):
                            n_nonempty += 1
                    if on_delta is not None and name.endswith(".delta"):
                        on_delta(name, event.get("delta"))
                    if name not in fast_types or not fast(event, name):
                        out += full(event)
                    next_seq = validator.next_seq
                    count = validator.events
                    lead = validator.fast_judged - count
                    continue
            last_name = None
            validator.next_seq = next_seq
            validator.events = count
            validator.fast_judged = count + lead
            self.tallied, self.tallied_nonempty = n_tallied, n_nonempty
            out += self._judge_one(record)
            n_tallied, n_nonempty = self.tallied, self.tallied_nonempty
            next_seq = validator.next_seq
            count = validator.events
            lead = validator.fast_judged - count
            done_seen = self.done_seen
        validator.next_seq = next_seq
        validator.events = count
        validator.fast_judged = count + lead
        self.tallied, self.tallied_nonempty = n_tallied, n_nonempty
        if decode is not None and last_name is not None:
            # The route still holds (every full-path event forgets `last_name`): the next chunk
            # may continue it (`feed`).
            head = b"event: " + last_name + b"\ndata: "
            self._lane = (
                head, len(head), last_name, name, decode, get, oi, item_id, index, target, tallied
            )  # fmt: skip
            self._lane_count = count
            if self._taken:
                self._settle_lane()
            self._room = self._decoder.lane_room()
        return out

    def _settle_lane(self) -> None:
        """Report the chunks the lane took to the decoder (`SSEDecoder.count_taken`)."""
        self._decoder.count_taken(self._taken, self._taken_bytes)
        self._taken = self._taken_bytes = 0

    def _name(self, raw: bytes) -> str:
        """An event name as text, remembered for the next events and streams (a server uses a
        few dozen; ever new names are decoded each time, not remembered without bound)."""
        name = raw.decode("utf-8", "replace")
        if len(_NAMES) < 1024:
            _NAMES[raw] = name
        return name

    def _judge_one(self, record: Record) -> list[Violation]:
        out: list[Violation] = []
        validator = self.validator
        if len(record) == 2:
            raw_name, raw_data = record
            name = None if raw_name is None else raw_name.decode("utf-8", "replace")
            data = raw_data.decode("utf-8", "replace")
            sse_id = None
        else:
            name, data, sse_id, _retry = record
        index = validator.events
        is_done = data == "[DONE]"
        if self.done_seen:
            out.append(self._framing(C.SSE_AFTER_DONE, index, "nothing after [DONE]", _head(data)))
            if is_done:
                return out
        elif is_done:
            self.done_seen = True
            return out
        if sse_id is not None and not self._id_reported and self._openresponses:
            self._id_reported = True
            out.append(self._framing(C.SSE_ID_ABSENT, index, "no `id:` field", sse_id))
        try:
            event = parse_json(data)
        except ValueError as exc:
            validator.skip()  # keep indices aligned with the events received
            if self.keep_events:
                self._events.append(data)  # so that events[event_index] is this one
            if isinstance(exc, JSONDepthError):
                v = self._framing(
                    C.SSE_LIMIT_DEPTH, index, "JSON the judge can parse", _head(data), str(exc)
                )
            else:
                v = self._framing(
                    C.SSE_DATA_JSON, index, "a JSON object", _head(data), message=str(exc)
                )
            out.append(v)
            return out
        if not isinstance(event, dict):
            validator.skip()
            if self.keep_events:
                self._events.append(event)
            out.append(self._framing(C.SSE_DATA_JSON, index, "a JSON object", _head(data)))
            return out
        if name is None:
            self._missing_name += 1
        elif name != event.get("type"):
            out.append(self._framing(C.SSE_EVENT_NAME_MATCHES, index, event.get("type"), name))
        if self.keep_events:
            self._events.append(event)
        if self.on_event is not None:
            self.on_event(event)
        etype = event.get("type")
        if type(etype) is str:
            if etype in self.tally:
                self.tallied += 1
                if event.get("delta"):
                    self.tallied_nonempty += 1
            if self.on_delta is not None and etype.endswith(".delta"):
                self.on_delta(etype, event.get("delta"))
        out += validator.feed(event)
        return out


_LaneTuple = tuple[
    bytes,
    int,
    bytes,
    str,
    Callable[[bytes], Any],
    Callable[[Any], Any],
    Any,
    Any,
    Any,
    list[str],
    bool,
]

# Event names as text, by their bytes; shared by every stream (see `SSEStreamValidator._name`).
_NAMES: dict[bytes, str] = {}


def _head(text: str) -> str:
    return short(text, 80)


class _Raw:
    """A kept event judged from its typed object: its JSON bytes, parsed when read."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data
