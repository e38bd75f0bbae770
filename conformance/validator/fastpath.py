"""The validator's one seam for speed: :class:`FastPath`, which judges delta events, most of any
stream, without the full path — or declines, having changed nothing.

A delta may skip the full path when it names the newest open item, continues that item's latest
part or value with the next sequence number, and passes its schema: every rule the full path
would apply to it then holds, so it is recorded (its text joins the part's) and counted. Anything
else goes to the full path. Every rule still runs on every event; only the order differs.

There are three ways in, all here: :meth:`FastPath.feed` (a parsed event), :meth:`FastPath.judge_records`
(SSE records, each delta decoded straight into a typed object that both parses it and checks its
schema, the rest handed back to the caller) and the :data:`Lane` it returns (one record at a
time, for the framing layer's one-event chunks). ``StreamValidator(fast=False)`` has no fast path at all: the
reference path, every event judged in full. The contract is equivalence: the two give the same
verdicts on every mutant of every recording (tests/conformance/validator/test_fast_path.py,
tests/conformance/sse/test_sse_lane.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

from ..schema import SchemaValidator
from ..sections.s2_6_inside_item_parts import note_kind_routed
from ..sections.s2_6_inside_item_values import note_delta_routed
from .model import MISSING, NO_ROUTE, ROUTE_KEYS, FastSpec, Item, Phase, Route, Slot
from .state import StreamState
from .tables import (
    ADDED_FIRST,
    CHANNELS,
    OPENRESPONSES_EVENTS,
    PART_TEXT,
    VALUE_STREAMS,
    fits_for,
)

__all__ = ["TOLERATED", "FastPath", "Lane", "Record", "fast_table"]

# The one property outside its schema that real deltas carry (every delta of the recorded corpus
# but two, tests/data/openai-recorded/streams): the typed decoders are closed
# (`SchemaValidator.event_decoder(closed=True)`), refusing any other key, and read this one as a
# string. So a delta they accept nests a few levels at most — never past the judge's nesting
# bound (``MAX_JSON_DEPTH``, conformance/sse/framing.py) — and the fast path need not look for
# deep JSON: whatever the decoder refuses (an unknown key, a non-empty `logprobs`, a value of the
# wrong type) takes the full path, which checks the bound.
TOLERATED = ("obfuscation",)


# Members as module globals: on Python 3.11 each `Phase.X` is a descriptor call, ≈8× a global.
_IN_PROGRESS = Phase.IN_PROGRESS
_CONTENT_SLOT, _SUMMARY_SLOT, _VALUE_SLOT = Slot.CONTENT, Slot.SUMMARY, Slot.VALUE

_new_tuple = tuple.__new__

# Reads a route's slot key from a typed event, by `Slot`.
GETTERS = tuple(attrgetter(key) for key in ROUTE_KEYS)


def _text_index(event: Any) -> Any:
    """A typed `output_text.delta`'s `content_index`, or `MISSING` (off the route) when it carries
    logprobs: those are judged on the full path (docs/spec.md §7.8). Only for a decoder that
    could not refuse them itself (`event_decoder(empty=...)`)."""
    return MISSING if event.logprobs else event.content_index


def _without_logprobs(
    predicate: Callable[[dict[str, Any]], bool],
) -> Callable[[dict[str, Any]], bool]:
    def valid(event: dict[str, Any]) -> bool:
        return not event.get("logprobs") and predicate(event)

    return valid


# A decoded SSE record: (raw event name or None, data bytes), or the full (name, data, id, retry).
Record = tuple[Any, ...]


# Takes one record's data of the route a lane was made for: its delta when taken, MISSING
# (nothing changed) when it must be judged otherwise.
Lane = Callable[[bytes], Any]


def _lane(
    state: StreamState,
    oi: Any,
    item_id: Any,
    index: Any,
    target: list[str],
    decode: Callable[[bytes], Any],
    get: Callable[[Any], Any],
) -> Lane:
    """:meth:`FastPath.judge_records` for the next records of one route, one at a time, while
    nothing else fed the validator (a closure: a load client's chunk is often one delta, and
    it costs less than a method's lookups)."""
    expect = state.events

    def take(data: bytes) -> Any:
        nonlocal expect
        if state.events != expect:
            return MISSING  # the full path judged an event since (routes were made afresh)
        try:
            typed = decode(data)
        except (ValueError, RecursionError):
            return MISSING
        if (
            typed
            and typed.sequence_number == state.next_seq
            and typed.output_index == oi
            and typed.item_id == item_id
            and get(typed) == index
        ):
            state.next_seq = typed.sequence_number + 1
            delta = typed.delta
            target.append(delta)
            expect = state.events = expect + 1
            state.fast_judged += 1
            return delta
        return MISSING

    return take


class FastPath:
    """One stream's fast path (``StreamValidator.fast_path``): where each delta type may go
    (its route) until the full path next judges an event, which calls :meth:`forget`."""

    # It holds no reference to its validator (each method is handed the state it judges): a
    # cycle would keep every judged stream alive until a cyclic collection
    # (tests/conformance/validator/test_no_cycles.py).
    __slots__ = ("_by_raw", "_item", "_raw_types", "_routes", "_specs", "types")

    def __init__(self, specs: Mapping[str, FastSpec], raw_types: Mapping[bytes, str]) -> None:
        self._specs = specs
        self.types = specs.keys()  # the delta types it may judge: the others need not ask
        self._raw_types = raw_types  # the types of `specs`, by their SSE event name's bytes
        self._item: Item | None = None
        self._routes: dict[str, Route] = {}  # by event type
        self._by_raw: dict[bytes, Route] = {}  # the same, by the raw SSE event name

    def forget(self, state: StreamState) -> None:
        """After every event the full path judged: routes are made afresh, for deltas that name
        the newest item, open and seen from its start, in a stream where nothing about a
        delta's framing can be wrong but what the fast path checks (none when the full path
        must judge every event)."""
        item = None
        if (
            state._phase is _IN_PROGRESS
            and not state._error_pending
            and state.terminal_type is None
            and not state._closed
            and state._seq_started
        ):
            item = state._items.get(state._last_added)
            if item is not None and (item.done or not item.known or type(item.type) is not str):
                item = None
        self._item = item
        if self._routes:
            self._routes.clear()
        if self._by_raw:
            self._by_raw.clear()

    def close(self) -> None:
        self._item = None
        self._routes.clear()
        self._by_raw.clear()

    def feed(self, state: StreamState, event: dict[str, Any], etype: str) -> bool:
        """Judge a parsed delta event that continues its route: record it and return True.
        Anything else returns False having changed nothing, for the full path to judge.

        Equalities come first and the schema predicate last: it checks the type of every field
        compared here (an int compares equal to a float or a bool, which it refuses), and nothing
        is recorded before it has passed."""
        route = self._routes.get(etype)
        if route is None:
            if self._item is None or etype not in self._specs:
                return False
            route = self._route(state, etype)
        if route is NO_ROUTE:
            return False
        seq = event.get("sequence_number")
        oi, item_id, key, index, valid, target, _decode, _get = route
        if (
            seq != state.next_seq
            or event.get("output_index") != oi
            or event.get("item_id", MISSING) != item_id
            or event.get(key, MISSING) != index
            or not valid(event)
        ):
            return False
        state.next_seq = seq + 1  # type: ignore[operator]  # an int: the predicate passed
        target.append(event["delta"])
        state.events += 1
        state.fast_judged += 1
        return True

    def judge_records(
        self,
        state: StreamState,
        records: list[Record],
        rest: Callable[[Record], bool],
        taken: Callable[[Record, Any], None] | None = None,
    ) -> tuple[bytes, Lane] | None:
        """Judge a run of SSE records in order: a delta that continues its route is decoded
        into a typed object (`SchemaValidator.event_decoder`), which both parses it and checks
        its schema, and recorded as :meth:`feed` would record it (then ``taken(record, delta)``,
        when given); every other record — bytes the typed decoder refuses, a delta off its
        route, every other event — goes to ``rest(record)``, the caller's full judgement, which
        returns False once no later record may take the fast path (after ``[DONE]``).

        When the last record was taken, returns its raw event name and a :data:`Lane` for the
        next record of that name (the framing layer's one-event chunks); else None."""
        raw_types = self._raw_types
        if len(records) == 1:
            # A chunk of one event, as a server flushes them: when it is not a delta the fast
            # path may judge, it goes to `rest` without setting up the loop.
            record = records[0]
            if len(record) != 2 or record[0] not in raw_types:
                rest(record)
                return None
        by_raw = self._by_raw
        seq = state.next_seq
        run = 0  # records taken since the counters were last written back
        last: bytes | None = None  # the raw name of the previous record, while it shares a route
        decode: Any = None
        oi: Any = None
        item_id: Any = None
        index: Any = None
        target: list[str] = []
        get: Any = None
        fast = True
        for record in records:
            if fast and len(record) == 2:
                raw = record[0]
                if raw is not None:
                    if raw != last:
                        last = raw
                        route = by_raw.get(raw)
                        if route is None:
                            name = raw_types.get(raw)
                            route = NO_ROUTE if name is None else self._raw_route(state, raw, name)
                        oi, item_id, _key, index, _valid, target, decode, get = route
                    if decode is not None:
                        try:
                            typed: Any = decode(record[1])
                        except (ValueError, RecursionError):
                            typed = False
                        if (
                            typed
                            and typed.sequence_number == seq
                            and typed.output_index == oi
                            and typed.item_id == item_id
                            and get(typed) == index
                        ):
                            seq = typed.sequence_number + 1
                            target.append(typed.delta)
                            run += 1
                            if taken is not None:
                                taken(record, typed.delta)
                            continue
            if run:
                state.events += run
                state.fast_judged += run
                run = 0
            state.next_seq = seq
            last = None
            if fast:
                fast = rest(record)
            else:
                rest(record)
            seq = state.next_seq
        if run:
            state.events += run
            state.fast_judged += run
            state.next_seq = seq
        if last is None or decode is None:
            return None
        # The last record was taken (`rest` forgets `last`): its route may take the next chunk.
        return last, _lane(state, oi, item_id, index, target, decode, get)

    def _raw_route(self, state: StreamState, raw: bytes, name: str) -> Route:
        """:meth:`_route` by the raw SSE event name (of a type the fast path may judge)."""
        route = self._routes.get(name)
        if route is None:
            route = self._route(state, name)
        self._by_raw[raw] = route
        return route

    def _route(self, state: StreamState, etype: str) -> Route:
        """Where a delta of this type may go on the fast path until the full path next judges
        an event (which forgets every route); `NO_ROUTE` when it must take the full path."""
        item = self._item
        spec = self._specs.get(etype)
        if spec is not None and state._openresponses and etype not in OPENRESPONSES_EVENTS:
            spec = None  # its type is judged on the full path (docs/spec.md §7.10)
        route = NO_ROUTE
        if state.coverage is not None:
            state.coverage.see_type(etype)
        if (
            spec is not None
            and item is not None
            and not state._tool_rules.passes_delta(etype, item.id)
        ):
            spec = None  # the tool rules would report it: the full path judges it
        if item is not None and spec is not None:
            slot, kind, valid, fits, decode, get = spec
            key = ROUTE_KEYS[slot]
            if fits is None or item.type in fits:
                target: list[str] | None = None
                index: Any = MISSING
                item_id = item.id
                if slot is _VALUE_SLOT:
                    if kind in ADDED_FIRST:
                        # A shell command: keyed by `command_index` too, each one opened by its
                        # `.added`. Deltas go to the newest one, while it is open; they name
                        # no item ([OAPI] ResponseShellCallCommandDeltaStreamingEvent), so one
                        # that does (`item_id`, checked on the full path) is off the route.
                        for key_, (deltas, done) in reversed(item.values.items()):
                            if key_[0] == kind:
                                if key_ in item.opened and done[0] is None:
                                    target, index, item_id = deltas, key_[1], MISSING
                                break
                    else:
                        # A value stream: one value, and no `command_index` on its deltas.
                        value = item.values.get((kind, 0))
                        if value is not None and value[1][0] is None:
                            target = value[0]
                else:
                    parts = item.parts if slot is _CONTENT_SLOT else item.summaries
                    if parts:
                        part = parts[-1]
                        if (
                            not part.closed
                            and part.done_value is None
                            and (slot is _SUMMARY_SLOT or part.type == kind)
                        ):
                            target, index = part.deltas, len(parts) - 1
                if target is not None:
                    if state.coverage is not None:  # §2.6: the item's type, the part's kind
                        note_delta_routed(state.coverage)
                        if slot is _CONTENT_SLOT:
                            note_kind_routed(state.coverage)
                    # `tuple.__new__`: a NamedTuple's own `__new__` is Python code, and a
                    # route is made after nearly every event the full path judges.
                    route = _new_tuple(
                        Route, (item.output_index, item_id, key, index, valid, target, decode, get)
                    )
        self._routes[etype] = route
        return route


def fast_table(schemas: SchemaValidator) -> dict[str, FastSpec]:
    """The delta types the fast path may judge, and how (built once per schema validator)."""
    valid = _delta_predicates(schemas)
    specs: dict[str, tuple[Slot, str]] = {}
    for family, (_field, kind) in PART_TEXT.items():
        specs[family + ".delta"] = (_CONTENT_SLOT, kind)
    specs["response.reasoning_summary_text.delta"] = (_SUMMARY_SLOT, "")
    for family in VALUE_STREAMS:
        if family not in CHANNELS:
            specs[family + ".delta"] = (_VALUE_SLOT, family)
    fast: dict[str, FastSpec] = {}
    for etype, (slot, kind) in specs.items():
        predicate = valid.get(etype)
        if predicate is None:
            continue
        if kind == "output_text":
            predicate = _without_logprobs(predicate)
        # The typed decoder reads what the route compares (`SSEStreamValidator._judge`), and is
        # closed (see `TOLERATED`): the route compares the values of `also` that the decoder
        # does not type (`command_index` and `item_id` where the schema has none) with an int,
        # a string or `MISSING`, so a delta it takes nests no deeper than its schema's types.
        also = ("sequence_number", "output_index", "item_id", ROUTE_KEYS[slot], "delta")
        get: Callable[[Any], Any] = GETTERS[slot]
        if kind == "output_text":
            # A text delta with logprobs takes the full path (docs/spec.md §7.8): the decoder
            # refuses them, or where it cannot, the route's getter sends the delta off it.
            decode = schemas.event_decoder(
                etype,
                also=also,
                missing=MISSING,
                empty=("logprobs",),
                closed=True,
                tolerate=TOLERATED,
            )
            if decode is None:
                get = _text_index
                decode = schemas.event_decoder(
                    etype, also=also, missing=MISSING, closed=True, tolerate=TOLERATED
                )
        else:
            decode = schemas.event_decoder(
                etype, also=also, missing=MISSING, closed=True, tolerate=TOLERATED
            )
        fast[etype] = FastSpec(slot, kind, predicate, fits_for(etype), decode, get)
    return fast


_PREDICATES: dict[int, tuple[SchemaValidator, dict[str, Callable[[dict[str, Any]], bool]]]] = {}


def _delta_predicates(
    schemas: SchemaValidator,
) -> dict[str, Callable[[dict[str, Any]], bool]]:
    """The compiled schema predicates of the delta events, once per schema validator."""
    cached = _PREDICATES.get(id(schemas))
    if cached is None or cached[0] is not schemas:
        table = {}
        for etype in schemas.event_types():
            if etype.endswith(".delta"):
                predicate = schemas.event_predicate(etype)
                if predicate is not None:
                    table[etype] = predicate
        cached = _PREDICATES[id(schemas)] = (schemas, table)
    return cached[1]
