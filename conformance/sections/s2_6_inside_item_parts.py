"""§2.6 Inside an item (docs/spec.md#s2-6), the item's opening and its parts:
``stream.item.added_state``, ``stream.part.added_before_use``, ``stream.part.content_index``,
``stream.part.order``, ``stream.part.closed``, ``stream.part.kind_matches``,
``stream.summary.part_added``, ``stream.summary.index``, ``stream.summary.order``.

A message or reasoning item opens empty (``content: []``, ``summary: []``, status
``in_progress`` — or ``incomplete``, kept to its ``.done``, when cut before it began: §7.4); a
function call opens with ``arguments: ""`` and its ``call_id`` and ``name`` set. Each content
part runs ``content_part.added`` → its deltas → its ``.done`` → ``content_part.done``, before
the next part starts and before ``output_item.done``; ``content_index`` counts the parts 0, 1, …
and every event of a part carries the part's index. Text events go to ``output_text`` parts,
refusal events to ``refusal`` parts, reasoning-text events to ``reasoning_text`` parts. A
reasoning summary part runs ``reasoning_summary_part.added`` → text deltas →
``reasoning_summary_text.done`` → ``reasoning_summary_part.done``, numbered by
``summary_index`` 0, 1, … ([REC]). The ``.order`` checks are reported by their refinements
(:mod:`.s2_6_inside_item_order`); the shared state machine of both kinds of parts
(validator/parts.py ``open_part``) reports a part not added, named by another index or after
its close through the checks its ``Frame`` names.

The rules mark the checks applied where they meet the events: an ``output_item.added``
(``added_state``), a ``content_part.added`` or an event of a part's text (the part's checks; its
kind too for a text event, on the full path or routed to the open part by the fast path), an
event of a summary part (the summary's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from ..catalog.render import short
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "ITEM_ADDED_STATE",
    "PART_ADDED_BEFORE_USE",
    "PART_CLOSED",
    "PART_INDEX_CONTIGUOUS",
    "PART_KIND_MATCHES",
    "PART_ORDER",
    "SUMMARY_INDEX",
    "SUMMARY_ORDER",
    "SUMMARY_PART_ADDED",
    "InsideItemState",
    "declare_examples",
    "judge_added_state",
    "judge_content_index",
    "judge_done_state",
    "judge_kind",
    "judge_part_open",
    "judge_parts_closed",
    "judge_summary_index",
    "note_item_added",
    "note_kind_routed",
    "note_part_added",
    "note_part_text",
    "note_summary",
]

ITEM_ADDED_STATE = register(
    "stream.item.added_state",
    Level.MUST,
    "§2.6, §7.4 [REC][SDK]",
    'an item opens empty: message `content: []`, reasoning `summary: []`, function call `arguments: ""` with `call_id` and `name` set, status `in_progress` (or `incomplete`, kept to its `.done`, for an item cut before it began)',
)
PART_ADDED_BEFORE_USE = register(
    "stream.part.added_before_use",
    Level.MUST,
    "§2.6 [SDK]",
    "a content part is opened by `content_part.added` before deltas or `.done` events name it",
)
PART_INDEX_CONTIGUOUS = register(
    "stream.part.content_index",
    Level.MUST,
    "§2.6",
    "`content_index` runs 0, 1, … within an item, and every event of a part carries the part's index",
)
PART_ORDER = register(
    "stream.part.order",
    Level.MUST,
    "§2.6",
    "inside a part: `content_part.added` → deltas → `<kind>.done` → `content_part.done` "
    "(refined by the `stream.part.order.*` checks)",
)
PART_CLOSED = register(
    "stream.part.closed",
    Level.MUST,
    "§2.6",
    "every content part is closed by `content_part.done` before the next part or `output_item.done`",
)
PART_KIND_MATCHES = register(
    "stream.part.kind_matches",
    Level.MUST,
    "§2.6",
    "text events go to `output_text` parts, refusal events to `refusal` parts, reasoning text events to `reasoning_text` parts",
)
SUMMARY_PART_ADDED = register(
    "stream.summary.part_added",
    Level.MUST,
    "§2.6 [REC]",
    "reasoning summary text is framed by `reasoning_summary_part.added` / `.done`",
)
SUMMARY_INDEX = register(
    "stream.summary.index",
    Level.MUST,
    "§2.6",
    "`summary_index` runs 0, 1, … within a reasoning item",
)
SUMMARY_ORDER = register(
    "stream.summary.order",
    Level.MUST,
    "§2.6",
    "inside a summary part: `part.added` → text deltas → `text.done` → `part.done`, closed before "
    "the item (refined by the `stream.summary.order.*` checks)",
)

# A content part's checks (its `.order` through its refinements), and a summary part's.
_PART = (PART_ADDED_BEFORE_USE.id, PART_INDEX_CONTIGUOUS.id, PART_ORDER.id, PART_CLOSED.id)
_PART_TEXT = (*_PART, PART_KIND_MATCHES.id)
_SUMMARY = (SUMMARY_PART_ADDED.id, SUMMARY_INDEX.id, SUMMARY_ORDER.id)

# An item opens `in_progress`; one that opens `incomplete` was cut before it began (Azure's
# content filter: docs/spec.md §7.4) and stays so.
_OPENING_STATUSES = ("in_progress", "incomplete")


class _Part(Protocol):
    type: str
    closed: bool


class _Parts(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Any: ...
    def __iter__(self) -> Any: ...


class _Item(Protocol):
    @property
    def parts(self) -> _Parts: ...

    @property
    def summaries(self) -> _Parts: ...


class InsideItemState(Protocol):
    """What the rules read of the stream validator."""

    @property
    def _report(self) -> _Report: ...


def note_item_added(coverage: _Coverage) -> None:
    """An `output_item.added` event, whatever it holds: the item's opening state is judged
    (the validator calls this where it records coverage)."""
    coverage.applied.add(ITEM_ADDED_STATE.id)


def note_part_added(coverage: _Coverage) -> None:
    """A `content_part.added` event: the part's index, its opening and the close of the part
    before it are judged."""
    coverage.applied.update(_PART)


def note_part_text(coverage: _Coverage) -> None:
    """An event of a part's text (a delta, a `.done`, an annotation): the part it names is
    looked up, by its index, open, and of the kind the event writes to."""
    coverage.applied.update(_PART_TEXT)


def note_kind_routed(coverage: _Coverage) -> None:
    """The fast path routed a text delta to the open part: it found the part of the delta's
    kind (its route is made once for the deltas that follow, until the full path judges one)."""
    coverage.applied.add(PART_KIND_MATCHES.id)


def note_summary(coverage: _Coverage) -> None:
    """An event of a reasoning summary part: its part is looked up by ``summary_index``, added
    and open."""
    coverage.applied.update(_SUMMARY)


def judge_added_state(state: InsideItemState, item: Mapping[str, Any], index: int) -> None:
    """An item `output_item.added` opens: empty, so accumulating clients do not double its
    content."""
    itype = item.get("type")
    problems: list[tuple[str, Any, Any]] = []
    if itype == "message":
        if item.get("content") not in ([], None):
            problems.append(("item.content", "[]", short(item.get("content"))))
        if item.get("status") not in _OPENING_STATUSES:
            problems.append(("item.status", "in_progress", item.get("status")))
    elif itype == "reasoning":
        if item.get("summary") not in ([], None):
            problems.append(("item.summary", "[]", short(item.get("summary"))))
        if item.get("content") not in ([], None):
            problems.append(("item.content", "[] or absent", short(item.get("content"))))
    elif itype == "function_call":
        if item.get("arguments") != "":
            problems.append(("item.arguments", '""', short(item.get("arguments"))))
        for key in ("call_id", "name"):
            if not item.get(key):
                problems.append((f"item.{key}", "a non-empty string", item.get(key)))
        if item.get("status") not in _OPENING_STATUSES:
            problems.append(("item.status", "in_progress", item.get("status")))
    for path, expected, actual in problems:
        state._report(ITEM_ADDED_STATE, index, expected, actual, path=path)


def judge_done_state(state: InsideItemState, done_item: Mapping[str, Any], index: int) -> None:
    """The `output_item.done` of an item that opened `incomplete`: `incomplete` is terminal
    ([OR] items are state machines), so an item cut off before it began cannot finish otherwise."""
    if done_item.get("status") != "incomplete":
        state._report(
            ITEM_ADDED_STATE,
            index,
            "incomplete",
            short(done_item.get("status")),
            path="item.status",
            message="the item opened `incomplete`, a terminal status",
        )


def judge_content_index(state: InsideItemState, item: _Item, ci: int, index: int) -> None:
    """A `content_part.added`'s ``content_index`` (≥ 0) in an item seen from its start: the
    next of the item's parts."""
    if ci != len(item.parts):
        state._report(
            PART_INDEX_CONTIGUOUS,
            index,
            len(item.parts),
            ci,
            path="content_index",
            message="parts of an item are numbered 0, 1, … in order",
        )


def judge_part_open(state: InsideItemState, item: _Item, index: int) -> None:
    """A `content_part.added` while the item's last part is still open."""
    parts = item.parts
    if parts and not parts[-1].closed:
        state._report(
            PART_CLOSED,
            index,
            f"`content_part.done` for content_index {len(parts) - 1} first",
            "a new part opened",
            path="content_index",
        )


def judge_parts_closed(state: InsideItemState, item: _Item, index: int) -> None:
    """An item's `output_item.done`: each of its content parts closed before it."""
    for ci, part in enumerate(item.parts):
        if not part.closed:
            state._report(
                PART_CLOSED,
                index,
                f"`content_part.done` for content_index {ci}",
                "`output_item.done` while the part is open",
                path=f"item.content[{ci}]",
            )


def judge_kind(
    state: InsideItemState, part: _Part, kind: str, etype: str, key: str, index: int
) -> None:
    """An event that writes to a part of type ``kind`` names (by the field ``key``) the open
    part ``part``, of another type (the caller compares: this is on every text event's path; a
    part opened before a resume point, of type ``?``, takes any)."""
    state._report(
        PART_KIND_MATCHES,
        index,
        f"a part of type {kind}",
        part.type,
        path=key,
        message=f"`{etype}` writes to a {part.type} part",
    )


def judge_summary_index(state: InsideItemState, item: _Item, si: int, index: int) -> None:
    """A `reasoning_summary_part.added`'s ``summary_index`` (≥ 0) in an item seen from its
    start: the next of the item's summary parts."""
    if si != len(item.summaries):
        state._report(SUMMARY_INDEX, index, len(item.summaries), si, path="summary_index")


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import Event, at, drop, reasoning_stream, retext, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S, late_delta

    def refusal_part() -> list[Event]:
        events = text_stream()
        refusal = {"type": "refusal", "refusal": "Hello"}
        events[3]["part"] = {"type": "refusal", "refusal": ""}
        events[7]["part"] = refusal
        events[8]["item"]["content"] = [refusal]
        events[9]["response"]["output"][0]["content"] = [refusal]
        return events

    example(
        ITEM_ADDED_STATE.id,
        S(lambda: at(text_stream(), "response.output_item.added", "item.status", "completed")),
        S(text_stream),
    )
    example(
        PART_ADDED_BEFORE_USE.id,
        S(lambda: drop(text_stream(), "response.content_part.added")),
        S(text_stream),
    )
    example(
        PART_INDEX_CONTIGUOUS.id,
        S(
            lambda: retext(text_stream(), '"content_index": 0', '"content_index": 1'),
            "the only part has `content_index` 1",
        ),
        S(text_stream),
        also={"stream.item.content_matches"},
    )
    example(
        PART_ORDER.id,
        S(lambda: late_delta(text_stream(), "response.output_text"),
          "an (empty) delta after the part's `output_text.done`"),
        S(text_stream),
    )  # fmt: skip
    example(
        PART_CLOSED.id,
        S(lambda: drop(text_stream(), "response.content_part.done")),
        S(text_stream),
    )
    example(
        PART_KIND_MATCHES.id,
        S(refusal_part, "`output_text` events into a `refusal` part"),
        S(text_stream),
        also={"stream.part.order.done_before_part_done"},
    )
    example(
        SUMMARY_PART_ADDED.id,
        S(lambda: drop(drop(reasoning_stream(), "response.reasoning_summary_part.added"),
                       "response.reasoning_summary_part.done"),
          "summary text without its part events"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        SUMMARY_INDEX.id,
        S(lambda: retext(reasoning_stream(), '"summary_index": 0', '"summary_index": 1')),
        S(reasoning_stream),
        also={"stream.item.content_matches"},
    )
    example(
        SUMMARY_ORDER.id,
        S(lambda: late_delta(reasoning_stream(), "response.reasoning_summary_text"),
          "an (empty) summary delta after its `.done`"),
        S(reasoning_stream),
    )  # fmt: skip
