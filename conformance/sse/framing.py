"""Bytes to verdicts: the SSE framing layer in front of :class:`StreamValidator`.

:class:`SSEStreamValidator` is fed raw response-body bytes in any chunking. It decodes them
(:mod:`conformance.sse`), checks the framing rules of SPEC §1 (the ``event:`` name equals the
body's ``type``, ``data`` is one JSON object, ``[DONE]`` last and — in the ``openresponses``
profile — present, no ``id:``), parses each payload and hands it to the stream validator. It is
sans-I/O like the validator, so the CLI, the live suite and the load tests all drive it the same way.
The framing checks, their reports and their marks sit in their section modules
(:mod:`conformance.sections.s1_1_framing`, ``s1_1_json_numbers``, ``s5_limits``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
import orjson

from ..catalog.registry import Check, Violation
from ..errors import ConformanceError
from ..sections import s1_1_framing as framing_rules
from ..sections import s1_1_json_numbers as number_rules
from ..sections import s5_limits as limit_rules
from ..sections.s1_1_json_numbers import JSONNumberError, judge_numbers
from ..validator import StreamValidator
from ..validator.fastpath import FastPath, Lane
from ..validator.model import MISSING
from .decoder import Record, SSEDecoder, SSELimitError

__all__ = [
    "DEFAULT_MAX_EVENTS",
    "DEFAULT_MAX_EVENT_BYTES",
    "MAX_JSON_DEPTH",
    "JSONDepthError",
    "JSONNumberError",
    "SSEStreamValidator",
    "json_too_deep",
    "parse_json",
]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_EVENTS = 1_000_000


MAX_JSON_DEPTH = 64
"""The judge's nesting bound on every JSON it reads (SSE data, bodies, WebSocket frames, cassettes,
``check FILE``), the same value as the servers' (docs/limits.md), checked before parsing: arrays
and objects nested in one another, ``[]`` 1 level, ``{"a": [1]}`` 2. The deepest document of the
recorded corpus nests 11 levels; past 64 a client's own parsers are near their limits (orjson
writes 254 levels, Python's recursive walkers stop near 1,000 frames)."""

# A JSON string, or an unterminated one up to the end; then any innermost empty pair.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*\\?(?:"|\Z)', re.S)
_ONLY_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_INNERMOST = re.compile(rb"\[\]|\{\}")


class JSONDepthError(ConformanceError, ValueError):
    """JSON nested past :data:`MAX_JSON_DEPTH` (or too deeply for the parsers to go)."""


def _shallow(data: bytes) -> bool:
    """No ``{`` after the first byte and at most one ``[``: nested two levels at most, found with
    three ``memchr`` scans, where counting the brackets reads every byte."""
    return data.find(b"{", 1) < 0 and data.find(b"[", data.find(b"[") + 1) < 0


# JSON nested past the bound has that many opening brackets and as many closing ones at least.
_SHORTEST_TOO_DEEP = 2 * MAX_JSON_DEPTH + 1


def json_too_deep(data: str | bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """``data`` nests arrays and objects past ``limit`` outside its strings. Text with no more
    opening brackets than ``limit`` (the count bounds the depth) is passed at once; else JSON
    orjson reads (a C parser bounded at 1,024 levels) is walked for its depth, and other text
    (not JSON to orjson, or deeper than it goes) is judged lexically
    (:func:`_lexically_too_deep`)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _lexically_too_deep(raw, limit)
    return nests_past(value, limit)


def nests_past(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """A parsed JSON value nests arrays and objects past ``limit`` (``[]`` is 1 level); a walk
    without recursion that stops at the first container too deep."""
    if type(value) is not dict and type(value) is not list:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if type(node) is dict else node:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def _lexically_too_deep(raw: bytes, limit: int) -> bool:
    """Before any parse: the strings are cut out, every byte but a bracket dropped, and the
    innermost pairs removed ``limit`` times (each pass is one level): a pair still left is one
    level too many."""
    brackets = _STRING.sub(b"", raw).translate(None, _ONLY_BRACKETS)
    if brackets.count(b"[") + brackets.count(b"{") <= limit:
        return False
    for _ in range(limit):
        brackets = _INNERMOST.sub(b"", brackets)
        if not brackets:
            return False
    return _INNERMOST.search(brackets) is not None


def parse_json(text: str | bytes) -> Any:
    """JSON as RFC 8259 has it: msgspec (as fast as orjson, and integers beyond 64 bits kept
    exact where orjson rounds them to a double), falling back to the standard library for what
    msgspec refuses but JSON allows (a lone surrogate escape); raises ``ValueError`` on text
    that is not JSON, its subclass :class:`JSONNumberError` on a number JSON does not have
    (``NaN``, ``Infinity``: ``sse.data.json_number``; ``1e400`` is JSON and reads as infinity), and :class:`JSONDepthError`
    on JSON nested past :data:`MAX_JSON_DEPTH`. Text with more opening brackets than the bound
    is judged for depth before it is walked anywhere: after the C parsers read it (they are
    bounded), or lexically when it is not JSON to them."""
    if isinstance(text, str):
        candidate = text.count("[") + text.count("{") > MAX_JSON_DEPTH
    else:
        candidate = text.count(b"[") + text.count(b"{") > MAX_JSON_DEPTH
    try:
        value = _parse(text)
    except JSONDepthError:
        raise
    except ValueError:
        if candidate and json_too_deep(text):
            raise _too_deep() from None
        raise
    if candidate and nests_past(value):
        raise _too_deep()
    return value


def _too_deep() -> JSONDepthError:
    return JSONDepthError(
        f"JSON nested too deeply: more than {MAX_JSON_DEPTH} levels (the judge's limit)"
    )


def _parse(text: str | bytes) -> Any:
    try:
        return _decode(text)
    except msgspec.DecodeError:
        pass
    except RecursionError:
        try:
            return orjson.loads(text)  # msgspec nests as deep as Python recurses, orjson 1,024
        except orjson.JSONDecodeError:
            pass
    try:
        return judge_numbers(text)
    except RecursionError:
        raise JSONDepthError("JSON nested too deeply to parse") from None


_decode = msgspec.json.Decoder().decode


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
        "_closed", "_decoder", "_events", "_fast", "_first_raw", "_found", "_id_reported",
        "_lane", "_max_event_bytes", "_missing_name", "_openresponses", "_room",
        "_taken", "_taken_bytes", "_unmarked", "aborted", "applied", "done_seen", "framing",
        "keep_events", "on_delta", "on_event", "profiles", "tallied", "tallied_nonempty", "tally",
        "validator",
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
        # The validator's fast path, which takes SSE records itself (`_judge`); not when the
        # caller wants each event as a dict (`on_event`), nor with `fast=False`.
        fast_path = self.validator.fast_path
        self._fast: FastPath | None = fast_path if on_event is None else None
        self._found: list[Violation] = []  # what `_judge_record` found, for `_judge`
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
        # (the block's head `event: <raw name>\ndata: `, its length, raw name, name, whether the
        # type is tallied, the fast path's `Lane`) of the route the last chunk ended on
        # (`FastPath.judge_records`); None once the stream is aborted or closed.
        self._lane: _Lane | None = None
        self.framing: list[Violation] = []
        self.done_seen = False
        self.aborted: str | None = None  # why decoding stopped early (a judge limit)
        self._missing_name = 0
        self._id_reported = False
        self._closed = False
        # The framing checks this stream put to the test (`coverage=True`): each rule (§1.1, §5:
        # conformance.sections) marks itself applied where it evaluates, once per stream;
        # `_unmarked` until the first event that marks them all (`_note_event`).
        self.applied: set[str] | None = set() if coverage else None
        self._unmarked = coverage

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
        """The checks this stream put to the test, framing included (needs ``coverage=True``):
        the stream validator's, every one reported, and those the framing rules marked applied
        (:attr:`applied`)."""
        out = self.validator.exercised | {v.check_id for v in self.framing}
        if self.applied:
            out |= self.applied
        return out

    def feed(self, chunk: bytes) -> list[Violation]:
        """Feed raw body bytes; returns the violations they reveal."""
        lane = self._lane
        if lane is not None and self._room:  # never once the stream is aborted or closed
            # One event in the chunk (a server flushes each event), of the type the previous
            # chunk ended on: taken without the decoder's match (`SSEDecoder.lane_room`) and
            # handed to the fast path's lane. The decoder's canonical block,
            # tested here (a call less per delta): the chunk is one block that begins with
            # `head`, without a CR, within the size bound. Tested with a slice, indexing and
            # `in` (memchr): `startswith`, `endswith` and `find` parse their arguments as a
            # tuple, which costs more than the tests. (`head` holds no CR or LF but its own,
            # and ends in a space: the two LFs at the end lie past it.)
            head, cut, raw_name, name, tallied, take = lane
            size = len(chunk)
            if (
                type(chunk) is bytes
                and chunk[:cut] == head
                and chunk[-1] == 10
                and chunk[-2] == 10
                and size <= self._max_event_bytes
            ):
                data = chunk[cut:-2]
                if 10 not in data and 13 not in data:
                    self._room -= 1
                    self._taken += 1
                    self._taken_bytes += size
                    delta = take(data)
                    if delta is MISSING:
                        return self._judge([(raw_name, data)])  # the record `feed_records` gives
                    if tallied:
                        self.tallied += 1
                        if delta:
                            self.tallied_nonempty += 1
                    if self.keep_events:
                        self._keep_raw(data)
                    if self.on_delta is not None:
                        self.on_delta(name, delta)
                    return []
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
        if self._missing_name:  # §1.1 (conformance.sections)
            out += framing_rules.judge_missing_names(
                self._framing, self._missing_name, self._openresponses
            )
        if self._openresponses:
            if not self.done_seen and self.aborted is None and not cancelled:
                out.append(framing_rules.judge_done_missing(self._framing))  # §1.1
            if self.applied is not None:
                framing_rules.note_closed(self.applied)
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

    def _note_event(self, named: bool) -> None:
        """An event judged (§1.1, §5: conformance.sections): its record was decoded within the
        bounds, its payload parsed, its `event:` line read; ``named``: the line was held to the
        payload's `type` (a payload that is not an object counts, as the table before said: an
        event not counted as nameless)."""
        applied = self.applied
        if applied is None or not self._unmarked:
            return
        framing_rules.note_event(applied, self._openresponses)
        number_rules.note_event(applied)
        limit_rules.note_event(applied)
        if named:
            framing_rules.note_named(applied)
            self._unmarked = False

    def _abort(self, exc: SSELimitError) -> list[Violation]:
        self.aborted = str(exc)
        self._lane = None
        return [limit_rules.judge_limit(self._framing, exc, self.validator.events)]  # §5

    def _judge(self, records: list[Record]) -> list[Violation]:
        """Judge decoded records: through the validator's fast path when it has one (it takes
        the deltas that continue their route, typed, and hands back every other record to
        `_judge_record`), else each by `_judge_record`."""
        found = self._found = []
        fast = self._fast
        self._lane = None
        if fast is None or self.done_seen:
            for record in records:
                self._judge_record(record)
            return found
        extra = self.keep_events or self.on_delta is not None or bool(self.tally)
        lane = fast.judge_records(
            self.validator, records, self._judge_record, self._taken_delta if extra else None
        )
        if lane is not None:
            # The last record's route still holds: the next chunk may continue it (`feed`).
            raw_name, take = lane
            head = b"event: " + raw_name + b"\ndata: "
            name = self._name(raw_name)
            self._lane = (head, len(head), raw_name, name, name in self.tally, take)
            if self._taken:
                self._settle_lane()
            self._room = self._decoder.lane_room()
        return found

    def _taken_delta(self, record: tuple[Any, ...], delta: Any) -> None:
        """What some callers ask of a delta the fast path took (`tally`, `keep_events`,
        `on_delta`)."""
        name = self._name(record[0])
        if name in self.tally:
            self.tallied += 1
            if delta:
                self.tallied_nonempty += 1
        if self.keep_events:
            self._keep_raw(record[1])
        if self.on_delta is not None:
            self.on_delta(name, delta)

    def _keep_raw(self, data: bytes) -> None:
        if self._first_raw is None:
            self._first_raw = len(self._events)
        self._events.append(_Raw(data))

    def _judge_record(self, record: Record) -> bool:
        """One record on the full path, into `_found`; False once ``[DONE]`` was seen (no later
        record may take the fast path). The common event — `event: <type>` and `data: <JSON
        object>` whose type is that name, before any [DONE] — is parsed and fed here; everything
        else goes through `_judge_one`, which applies every framing rule."""
        if len(record) == 2 and not self.done_seen:
            raw_name, data = record
            try:
                event = _decode(data)
            except (msgspec.DecodeError, RecursionError):
                event = None
            else:  # past the nesting bound: the full path below reports it (sse.limit.depth)
                # (the opening brackets counted with one `translate`, where two counts read
                # every byte twice)
                if (
                    len(data) > _SHORTEST_TOO_DEEP
                    and not _shallow(data)
                    and len(data) - len(data.translate(None, b"[{")) > MAX_JSON_DEPTH
                    and nests_past(event)
                ):
                    event = None
            if type(event) is dict and raw_name is not None:
                name = _NAMES.get(raw_name) or self._name(raw_name)
                if event.get("type") == name:
                    if self.keep_events:
                        self._events.append(event)
                    if self.on_event is not None:
                        self.on_event(event)
                    if name in self.tally:
                        self.tallied += 1
                        if event.get("delta"):
                            self.tallied_nonempty += 1
                    if self.on_delta is not None and name.endswith(".delta"):
                        self.on_delta(name, event.get("delta"))
                    if self._unmarked:  # the stream's first event: the framing rules held
                        self._note_event(named=True)
                    self._found += self.validator.feed(event)
                    return True
        self._found += self._judge_one(record)
        return not self.done_seen

    def _settle_lane(self) -> None:
        """Report the chunks the lane took to the decoder (`SSEDecoder.count_taken`)."""
        self._decoder.count_taken(self._taken, self._taken_bytes)
        self._taken = self._taken_bytes = 0

    def _name(self, raw: bytes) -> str:
        """An event name as text, remembered for the next events and streams (a server uses a
        few dozen; ever new names are decoded each time, not remembered without bound)."""
        name = _NAMES.get(raw)
        if name is not None:
            return name
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
            out.append(framing_rules.judge_after_done(self._framing, index, data))  # §1.1
            if is_done:
                return out
        elif is_done:
            self.done_seen = True
            if self.applied is not None:
                framing_rules.note_done(self.applied)
            return out
        if sse_id is not None and not self._id_reported and self._openresponses:
            self._id_reported = True
            out.append(framing_rules.judge_id(self._framing, index, sse_id))  # §1.1
        try:
            event = parse_json(data)
        except ValueError as exc:
            validator.skip()  # keep indices aligned with the events received
            if self.keep_events:
                self._events.append(data)  # so that events[event_index] is this one
            if isinstance(exc, JSONDepthError):
                v = limit_rules.judge_too_deep(self._framing, index, data, str(exc))  # §5
            elif isinstance(exc, JSONNumberError):
                v = number_rules.judge_number(self._framing, index, data, str(exc))  # §1.1
            else:
                v = framing_rules.judge_not_json(self._framing, index, data, str(exc))  # §1.1
            out.append(v)
            self._note_event(named=True)
            return out
        if not isinstance(event, dict):
            validator.skip()
            if self.keep_events:
                self._events.append(event)
            out.append(framing_rules.judge_not_an_object(self._framing, index, data))  # §1.1
            self._note_event(named=True)
            return out
        if name is None:
            self._missing_name += 1
            self._note_event(named=False)
        else:
            self._note_event(named=True)
            if name != event.get("type"):
                etype = event.get("type")
                out.append(framing_rules.judge_name(self._framing, index, etype, name))  # §1.1
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


_Lane = tuple[bytes, int, bytes, str, bool, Lane]

# Event names as text, by their bytes; shared by every stream (see `SSEStreamValidator._name`).
_NAMES: dict[bytes, str] = {}


class _Raw:
    """A kept event judged from its typed object: its JSON bytes, parsed when read."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data
