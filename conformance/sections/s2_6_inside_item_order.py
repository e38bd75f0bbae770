"""§2.6 Inside an item (docs/spec.md#s2-6), the order of a part's events, one requirement per ID:
the refinements of ``stream.part.order`` (``opens_empty``, ``after_part_done``,
``delta_after_done``, ``done_once``, ``done_before_part_done``, ``type_stable``) and of
``stream.summary.order`` (``opens_empty``, ``after_part_done``, ``delta_after_done``,
``done_once``, ``done_before_part_done``, ``closed_before_next``, ``closed_before_item``).

A content part runs ``content_part.added`` (empty) → its deltas → its ``<kind>.done`` once →
``content_part.done`` (of the type it was added as), and no event names it after that; a summary
part runs ``reasoning_summary_part.added`` (empty) → its text deltas →
``reasoning_summary_text.done`` once → ``reasoning_summary_part.done``, before the next summary
part is added and before its item's ``output_item.done``.

The parents stay published (:mod:`.s2_6_inside_item_parts`): a parent's outcome folds its
refinements', and an expected failure naming it covers them
(:attr:`conformance.catalog.registry.Check.parent`). The stream validator's part state machine
(validator/parts.py) calls the rules here where a part's event meets its state; a part named
after its close is reported by that machine through the check its ``Frame`` names
(``after_part_done``). The parents' marks say these were applied: a parent's rules all apply
(:func:`conformance.catalog.registry.with_family`).
"""

from __future__ import annotations

from typing import Any

from ..catalog.registry import Level, register
from ..catalog.render import short
from .s2_1_sequence import _Report
from .s2_6_inside_item_parts import PART_ORDER, SUMMARY_ORDER

__all__ = [
    "PART_AFTER_PART_DONE",
    "PART_DELTA_AFTER_DONE",
    "PART_DONE_BEFORE_PART_DONE",
    "PART_DONE_ONCE",
    "PART_OPENS_EMPTY",
    "PART_TYPE_STABLE",
    "SUMMARY_AFTER_PART_DONE",
    "SUMMARY_CLOSED_BEFORE_ITEM",
    "SUMMARY_CLOSED_BEFORE_NEXT",
    "SUMMARY_DELTA_AFTER_DONE",
    "SUMMARY_DONE_BEFORE_PART_DONE",
    "SUMMARY_DONE_ONCE",
    "SUMMARY_OPENS_EMPTY",
    "declare_examples",
    "judge_delta_after_done",
    "judge_done_before_part_done",
    "judge_done_once",
    "judge_opens_empty",
    "judge_summary_closed_before_item",
    "judge_summary_closed_before_next",
    "judge_summary_delta_after_done",
    "judge_summary_done_before_part_done",
    "judge_summary_done_once",
    "judge_summary_opens_empty",
    "judge_type_stable",
]

MUST = Level.MUST

PART_OPENS_EMPTY = register(
    "stream.part.order.opens_empty",
    MUST,
    "§2.6",
    "a content part opens empty: the part in `content_part.added` carries no text",
    parent=PART_ORDER.id,
)
PART_AFTER_PART_DONE = register(
    "stream.part.order.after_part_done",
    MUST,
    "§2.6",
    "no event names a content part after its `content_part.done`",
    parent=PART_ORDER.id,
)
PART_DELTA_AFTER_DONE = register(
    "stream.part.order.delta_after_done",
    MUST,
    "§2.6",
    "no delta follows the part's `<kind>.done` (`output_text.done`, `refusal.done`, …)",
    parent=PART_ORDER.id,
)
PART_DONE_ONCE = register(
    "stream.part.order.done_once",
    MUST,
    "§2.6",
    "a content part's `<kind>.done` comes once",
    parent=PART_ORDER.id,
)
PART_DONE_BEFORE_PART_DONE = register(
    "stream.part.order.done_before_part_done",
    MUST,
    "§2.6",
    "a text, refusal or reasoning-text part's `<kind>.done` comes before its `content_part.done`",
    parent=PART_ORDER.id,
)
PART_TYPE_STABLE = register(
    "stream.part.order.type_stable",
    MUST,
    "§2.6",
    "`content_part.done` carries the part type its `content_part.added` opened",
    parent=PART_ORDER.id,
)
SUMMARY_OPENS_EMPTY = register(
    "stream.summary.order.opens_empty",
    MUST,
    "§2.6",
    "a summary part opens empty: the part in `reasoning_summary_part.added` carries no text",
    parent=SUMMARY_ORDER.id,
)
SUMMARY_AFTER_PART_DONE = register(
    "stream.summary.order.after_part_done",
    MUST,
    "§2.6",
    "no event names a summary part after its `reasoning_summary_part.done`",
    parent=SUMMARY_ORDER.id,
)
SUMMARY_DELTA_AFTER_DONE = register(
    "stream.summary.order.delta_after_done",
    MUST,
    "§2.6",
    "no summary text delta follows the part's `reasoning_summary_text.done`",
    parent=SUMMARY_ORDER.id,
)
SUMMARY_DONE_ONCE = register(
    "stream.summary.order.done_once",
    MUST,
    "§2.6",
    "a summary part's `reasoning_summary_text.done` comes once",
    parent=SUMMARY_ORDER.id,
)
SUMMARY_DONE_BEFORE_PART_DONE = register(
    "stream.summary.order.done_before_part_done",
    MUST,
    "§2.6",
    "`reasoning_summary_text.done` comes before its `reasoning_summary_part.done`",
    parent=SUMMARY_ORDER.id,
)
SUMMARY_CLOSED_BEFORE_NEXT = register(
    "stream.summary.order.closed_before_next",
    MUST,
    "§2.6",
    "a summary part is closed by `reasoning_summary_part.done` before the next one is added",
    parent=SUMMARY_ORDER.id,
)
SUMMARY_CLOSED_BEFORE_ITEM = register(
    "stream.summary.order.closed_before_item",
    MUST,
    "§2.6",
    "every summary part is closed before its reasoning item's `output_item.done`",
    parent=SUMMARY_ORDER.id,
)


# --- a content part ---------------------------------------------------------------------------


def judge_opens_empty(report: _Report, text_field: str, held: Any, index: int) -> None:
    """A `content_part.added` whose part holds text (``held``, in its ``text_field``)."""
    report(
        PART_OPENS_EMPTY,
        index,
        f'part.{text_field} == ""',
        short(held),
        path=f"part.{text_field}",
        message="a part opens empty; clients append the deltas to it",
    )


def judge_delta_after_done(report: _Report, family: str, etype: str, index: int) -> None:
    """A text delta for a part whose ``<family>.done`` came already."""
    report(
        PART_DELTA_AFTER_DONE, index, f"no delta after `{family}.done`", etype, path="content_index"
    )


def judge_done_once(report: _Report, etype: str, index: int) -> None:
    """A part's second ``<kind>.done``."""
    report(PART_DONE_ONCE, index, f"one `{etype}`", "a second one", path="content_index")


def judge_done_before_part_done(report: _Report, done_event: str, index: int) -> None:
    """A `content_part.done` for a text part whose ``done_event`` never came."""
    report(
        PART_DONE_BEFORE_PART_DONE,
        index,
        f"`{done_event}` before `content_part.done`",
        "response.content_part.done",
        path="content_index",
    )


def judge_type_stable(report: _Report, added: str, closed: Any, index: int) -> None:
    """A `content_part.done` whose part type (``closed``) is not the one added."""
    report(PART_TYPE_STABLE, index, f"part.type {added} (as added)", closed, path="part.type")


# --- a summary part ---------------------------------------------------------------------------


def judge_summary_closed_before_next(report: _Report, open_index: int, index: int) -> None:
    """A `reasoning_summary_part.added` while summary part ``open_index`` is open."""
    report(
        SUMMARY_CLOSED_BEFORE_NEXT,
        index,
        f"`reasoning_summary_part.done` for summary_index {open_index}",
        "a new summary part opened",
        path="summary_index",
    )


def judge_summary_opens_empty(report: _Report, held: Any, index: int) -> None:
    """A `reasoning_summary_part.added` whose part holds text (``held``)."""
    report(
        SUMMARY_OPENS_EMPTY,
        index,
        'part.text == ""',
        short(held),
        path="part.text",
        message="a summary part opens empty",
    )


def judge_summary_delta_after_done(report: _Report, etype: str, index: int) -> None:
    """A summary text delta after the part's `reasoning_summary_text.done`."""
    report(
        SUMMARY_DELTA_AFTER_DONE,
        index,
        "no delta after `reasoning_summary_text.done`",
        etype,
        path="summary_index",
    )


def judge_summary_done_once(report: _Report, index: int) -> None:
    """A summary part's second `reasoning_summary_text.done`."""
    report(
        SUMMARY_DONE_ONCE,
        index,
        "one `reasoning_summary_text.done`",
        "a second one",
        path="summary_index",
    )


def judge_summary_done_before_part_done(report: _Report, etype: str, index: int) -> None:
    """A `reasoning_summary_part.done` before the part's `reasoning_summary_text.done`."""
    report(
        SUMMARY_DONE_BEFORE_PART_DONE,
        index,
        "`reasoning_summary_text.done` before `reasoning_summary_part.done`",
        etype,
        path="summary_index",
    )


def judge_summary_closed_before_item(report: _Report, si: int, index: int) -> None:
    """An `output_item.done` while summary part ``si`` is open."""
    report(
        SUMMARY_CLOSED_BEFORE_ITEM,
        index,
        f"`reasoning_summary_part.done` for summary_index {si}",
        "`output_item.done` while the summary part is open",
        path=f"item.summary[{si}]",
    )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    import copy

    from ..examples.build import (
        Event,
        at,
        drop,
        find,
        insert,
        numbered,
        reasoning_stream,
        text_stream,
    )
    from ..examples.registry import example
    from ..examples.stream_samples import S, late_delta

    def dup(events: list[Event], etype: str) -> list[Event]:
        i = find(events, etype)
        return insert(events, i + 1, events[i])

    def after(events: list[Event], etype: str, anchor: str) -> list[Event]:
        """An empty delta of type ``etype`` right after the first ``anchor`` event."""
        late = dict(events[find(events, etype)], delta="")
        return insert(events, find(events, anchor) + 1, late)

    def two_summaries(overlap: bool) -> list[Event]:
        """A reasoning item with two summary parts; with ``overlap`` the second opens before
        the first is closed."""
        events = reasoning_stream()
        first = [e for e in events if e["type"].startswith("response.reasoning_summary_")]
        second = [dict(e, summary_index=1) for e in copy.deepcopy(first)]
        end = find(events, "response.reasoning_summary_part.done") + 1
        events[end:end] = second
        if overlap:
            done = find(events, "response.reasoning_summary_part.done")
            events.insert(
                find(events, "response.reasoning_summary_part.added", 1) + 1, events.pop(done)
            )
        for item in (
            events[find(events, "response.output_item.done")]["item"],
            events[-1]["response"]["output"][0],
        ):
            item["summary"] = item["summary"] * 2
        return numbered(events)

    example(
        PART_OPENS_EMPTY.id,
        S(lambda: at(text_stream(), "response.content_part.added", "part.text", "Hel"),
          "the part opens holding text"),
        S(text_stream),
    )  # fmt: skip
    example(
        PART_AFTER_PART_DONE.id,
        S(lambda: after(text_stream(), "response.output_text.delta", "response.content_part.done"),
          "an (empty) delta after the part's `content_part.done`"),
        S(text_stream),
    )  # fmt: skip
    example(
        PART_DELTA_AFTER_DONE.id,
        S(lambda: late_delta(text_stream(), "response.output_text"),
          "an (empty) delta after the part's `output_text.done`"),
        S(text_stream),
    )  # fmt: skip
    example(
        PART_DONE_ONCE.id,
        S(lambda: dup(text_stream(), "response.output_text.done"), "`output_text.done` twice"),
        S(text_stream),
    )
    example(
        PART_DONE_BEFORE_PART_DONE.id,
        S(lambda: drop(text_stream(), "response.output_text.done"), "no `output_text.done`"),
        S(text_stream),
    )
    example(
        PART_TYPE_STABLE.id,
        S(lambda: at(text_stream(), "response.content_part.done", "part",
                     {"type": "refusal", "refusal": "Hello"}),
          "`content_part.done` says `refusal` for an `output_text` part"),
        S(text_stream),
        also={"stream.text.done_equals_part"},
    )  # fmt: skip
    example(
        SUMMARY_OPENS_EMPTY.id,
        S(lambda: at(reasoning_stream(), "response.reasoning_summary_part.added", "part.text",
                     "Th"),
          "the summary part opens holding text"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        SUMMARY_AFTER_PART_DONE.id,
        S(lambda: after(reasoning_stream(), "response.reasoning_summary_text.delta",
                        "response.reasoning_summary_part.done"),
          "an (empty) summary delta after the part's `reasoning_summary_part.done`"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        SUMMARY_DELTA_AFTER_DONE.id,
        S(lambda: late_delta(reasoning_stream(), "response.reasoning_summary_text"),
          "an (empty) summary delta after its `.done`"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        SUMMARY_DONE_ONCE.id,
        S(lambda: dup(reasoning_stream(), "response.reasoning_summary_text.done"),
          "`reasoning_summary_text.done` twice"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        SUMMARY_DONE_BEFORE_PART_DONE.id,
        S(lambda: drop(reasoning_stream(), "response.reasoning_summary_text.done"),
          "no `reasoning_summary_text.done`"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        SUMMARY_CLOSED_BEFORE_NEXT.id,
        S(lambda: two_summaries(True), "summary part 1 is added while part 0 is open"),
        S(lambda: two_summaries(False)),
        also={"stream.summary.index"},
    )
    example(
        SUMMARY_CLOSED_BEFORE_ITEM.id,
        S(
            lambda: drop(reasoning_stream(), "response.reasoning_summary_part.done"),
            "the reasoning item is closed with its summary part open",
        ),
        S(reasoning_stream),
    )
