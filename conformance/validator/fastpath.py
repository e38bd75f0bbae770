"""The fast path for delta events, most of any stream.

:meth:`FastPath.feed_fast` either proves that a delta breaks no rule — it names the newest open
item, continues that item's latest part or value with the next sequence number, and passes its
schema — and records it, or changes nothing and returns False so that the full path judges it.
Every rule still runs on every event; only the order differs (tests/conformance/validator/test_fast_path.py
judges every mutant of every recording both ways). The framing layer
(:class:`~conformance.SSEStreamValidator`) follows the same routes with typed decoders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any

from ..schema import SchemaValidator
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

__all__ = ["FastPath", "fast_table"]

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


class FastPath(StreamState):
    """``feed_fast`` (try one delta), ``route`` (where deltas of a type may go) and
    ``_fast_pick`` (the item they may name, after each event the full path judged)."""

    __slots__ = ()

    def _fast_pick(self) -> Item | None:
        """The item a fast-path delta may name: the newest one, open and seen from its start, in
        a stream where nothing about a delta's framing can be wrong but what `feed_fast`
        checks; None when the full path must judge every event."""
        if (
            self._phase is not _IN_PROGRESS
            or self._error_pending
            or self.terminal_type is not None
            or self._closed
            or not self._seq_started
        ):
            return None
        item = self._items.get(self._last_added)
        if item is None or item.done or not item.known or type(item.type) is not str:
            return None
        return item

    def feed_fast(self, event: dict[str, Any], etype: Any) -> bool:
        """Judge a delta event that names the newest open item and continues its latest part
        with the next sequence number, and passes its schema: record it and return True.
        Anything else returns False having changed nothing, for the full path to judge.

        Equalities come first and the schema predicate last: it checks the type of every field
        compared here (an int compares equal to a float or a bool, which it refuses), and nothing
        is recorded before it has passed."""
        route = self._fast_routes.get(etype)
        if route is None:
            if self._fast_item is None:
                return False
            route = self._fast_route(etype)
        if route is NO_ROUTE:
            return False
        seq = event.get("sequence_number")
        oi, item_id, key, index, valid, target, _decode, _get = route
        if (
            seq != self.next_seq
            or event.get("output_index") != oi
            or event.get("item_id", MISSING) != item_id
            or event.get(key, MISSING) != index
            or not valid(event)
        ):
            return False
        self.next_seq = seq + 1  # type: ignore[operator]  # an int: the predicate passed
        target.append(event["delta"])
        self.events += 1
        self.fast_judged += 1
        return True

    # The interface of a framing layer that judges deltas itself, from typed objects
    # (`SSEStreamValidator`): it asks `fast_types` which event types may take a route and
    # `route` where one goes; for an event that continues the route it appends the delta to
    # `route.target` and advances `next_seq`, `events` and `fast_judged` as `feed_fast` would;
    # every other event goes to `feed_fast` or `feed_full`. Routes are forgotten by every
    # event the full path judges, so `route` (or `routes` first) is asked again after each.

    @property
    def fast_types(self) -> Mapping[str, FastSpec]:
        """The delta types the fast path may judge (empty with ``fast=False``)."""
        return self._fast

    def route(self, etype: str) -> Route:
        """Where a delta of this type may go now (`NO_ROUTE`: it must be fed)."""
        route = self._fast_routes.get(etype)
        return route if route is not None else self._fast_route(etype)

    @property
    def routes(self) -> Mapping[str, Route]:
        """The routes :meth:`route` made since the full path last judged an event, by type: a
        hot loop looks here first, and asks :meth:`route` only for a type it lacks. One mapping
        for the validator's life (emptied, never replaced); read it, do not change it."""
        return self._fast_routes

    def _fast_route(self, etype: str) -> Route:
        """Where a delta of this type may go on the fast path until the full path next judges
        an event (which forgets every route); `NO_ROUTE` when it must take the full path."""
        item = self._fast_item
        spec = self._fast.get(etype)
        if (
            spec is not None
            and "openresponses" in self.profiles
            and etype not in OPENRESPONSES_EVENTS
        ):
            spec = None  # its type is judged on the full path (docs/spec.md §7.10)
        route = NO_ROUTE
        if self.coverage is not None:
            self.coverage.see_type(etype)
        if (
            spec is not None
            and item is not None
            and not self._tool_rules.passes_delta(etype, item.id)
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
                    # `tuple.__new__`: a NamedTuple's own `__new__` is Python code, and a
                    # route is made after nearly every event the full path judges.
                    route = _new_tuple(
                        Route, (item.output_index, item_id, key, index, valid, target, decode, get)
                    )
        self._fast_routes[etype] = route
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
        # The typed decoder reads what the route compares (`SSEStreamValidator._judge`).
        also = ("sequence_number", "output_index", "item_id", ROUTE_KEYS[slot], "delta")
        get: Callable[[Any], Any] = GETTERS[slot]
        if kind == "output_text":
            # A text delta with logprobs takes the full path (docs/spec.md §7.8): the decoder
            # refuses them, or where it cannot, the route's getter sends the delta off it.
            decode = schemas.event_decoder(etype, also=also, missing=MISSING, empty=("logprobs",))
            if decode is None:
                get = _text_index
                decode = schemas.event_decoder(etype, also=also, missing=MISSING)
        else:
            decode = schemas.event_decoder(etype, also=also, missing=MISSING)
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
