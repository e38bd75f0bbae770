"""What the stream validator remembers: its lifecycle phase, the output items and their parts, and
the fast path's routes (records and enums instead of magic ints and long tuples)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .. import catalog as C
from ..catalog.registry import Check
from ..sections.s2_2_lifecycle import Phase as Phase  # where a stream's lifecycle stands (§2.2)
from .slots import Slots

__all__ = [
    "CONTENT",
    "MISSING",
    "NO_ROUTE",
    "SUMMARY",
    "FastSpec",
    "Frame",
    "Item",
    "Part",
    "Phase",
    "Route",
    "Slot",
]


class Slot(enum.IntEnum):
    """What a fast-path delta writes to: the value is an index into ``ROUTE_KEYS``."""

    CONTENT = 0  # a content part's text (`content_index`)
    SUMMARY = 1  # a reasoning summary part's text (`summary_index`)
    VALUE = 2  # a single-valued stream (function arguments, code, …)


# The event field that names the slot a fast-path delta writes to, by `Slot`; a value stream's
# deltas name none, and must not carry a `command_index`.
ROUTE_KEYS = ("content_index", "summary_index", "command_index")

# A field an event does not carry (distinct from one that is null).
MISSING: Any = object()


@dataclass(slots=True)
class Part:
    """A content part (``content_index``) or a reasoning summary part (``summary_index``)."""

    type: str
    deltas: list[str] = field(default_factory=list)
    done_value: str | None = None  # from `<kind>.done`
    closed: bool = False  # `content_part.done` / `reasoning_summary_part.done` seen
    closed_value: str | None = None
    # Opened before a resume point (SPEC §2.12): its earlier deltas were not seen.
    partial: bool = False
    # `output_text.annotation.added` payloads, in arrival order (SPEC §2.8 applies to them too)
    annotations: Slots[Any] = field(default_factory=Slots)
    # the `logprobs` entries of its `output_text.delta` events, in order (docs/spec.md §7.8)
    logprobs: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class Item:
    output_index: int
    id: Any
    type: Any
    known: bool = True  # False: first named in a resumed stream, its start not seen
    done: bool = False
    done_item: Mapping[str, Any] | None = None
    parts: Slots[Part] = field(default_factory=Slots)
    summaries: Slots[Part] = field(default_factory=Slots)
    # family (+ sub-index) -> [deltas, done value or None]
    values: dict[tuple[str, int], tuple[list[str], list[str | None]]] = field(default_factory=dict)
    opened: set[tuple[str, int]] = field(default_factory=set)  # by `<family>.added`
    interleave_reported: bool = False
    opened_incomplete: bool = False  # `output_item.added` said `incomplete` (docs/spec.md §7.4)
    identity: tuple[Any, Any] = (None, None)  # `call_id`, `name` as `output_item.added` gave them


@dataclass(frozen=True, slots=True)
class Frame:
    """What differs between the two kinds of parts an item holds, content parts (SPEC §2.7) and
    reasoning summary parts (SPEC §2.10): one state machine judges both."""

    key: str  # the event field that names the part
    noun: str
    added: str  # the event that opens one
    done: str  # the event that closes one
    index_check: Check
    added_check: Check
    order_check: Check
    fill: str  # the type of a part opened before a resume point


CONTENT = Frame(
    "content_index",
    "part",
    "content_part.added",
    "content_part.done",
    C.PART_INDEX_CONTIGUOUS,
    C.PART_ADDED_BEFORE_USE,
    C.PART_AFTER_PART_DONE,
    "?",
)
SUMMARY = Frame(
    "summary_index",
    "summary part",
    "reasoning_summary_part.added",
    "reasoning_summary_part.done",
    C.SUMMARY_INDEX,
    C.SUMMARY_PART_ADDED,
    C.SUMMARY_AFTER_PART_DONE,
    "summary_text",
)


class FastSpec(NamedTuple):
    """How the fast path may judge one delta type (see :mod:`.fastpath`)."""

    slot: Slot
    kind: str  # the part type (content), "" (summary) or the value family it writes to
    valid: Callable[[dict[str, Any]], bool]  # the event's compiled schema predicate
    fits: frozenset[str] | None  # the item types the event may name (None: any)
    decode: Callable[[bytes], Any] | None  # the typed decoder (None: the shape is not covered)
    get: Callable[[Any], Any]  # reads the slot key from a decoded event (see `Route.get`)


class Route(NamedTuple):
    """Where a delta of one type may go on the fast path until the full path next judges an
    event: the fields it must carry and the list its text joins."""

    output_index: Any
    item_id: Any
    key: str  # the event field that names the slot (`ROUTE_KEYS`)
    index: Any  # the slot's index, or `MISSING` when the event must not carry `key`
    valid: Callable[[dict[str, Any]], bool]
    target: list[str]
    decode: Callable[[bytes], Any] | None
    get: Callable[[Any], Any]  # reads `key` from a typed event


def _never(event: object) -> bool:
    return False


# The route of a delta type that must take the full path (compared by identity).
NO_ROUTE: Route = Route(MISSING, MISSING, "", MISSING, _never, [], None, _never)
