"""§2.9 The output is the items (docs/spec.md#s2-9): ``stream.item.closed_before_terminal``,
``stream.output.equals_items``.

The terminal response's ``output`` is the list of ``output_item.done`` items, in order ([SDK]
raises "Cannot complete response with unfinished output items"). On ``response.completed`` and
``response.incomplete`` every added item is done before the terminal event; on
``response.failed`` an item may stay open (a failure can strike mid-item), and the items that
were finished must be in the output as sent. Opaque fields are exempt from the comparison
(:mod:`.s2_9_opaque` judges them: a non-empty string in both places).

*Several MCP servers in one response* (issue #32): the terminal output closes an
``mcp_list_tools`` item left without its ``output_item.done`` when it holds an item of that ``id``
and ``type`` at the item's ``output_index`` (:func:`closed_by_terminal`: paired by index, never by
type alone), compared by ``id`` and ``type``. A resumed stream (§2.12) lacks the items finished
before its resume point: each item it saw finish is compared at its ``output_index``.

Both rules run at the terminal event: :func:`judge_closed_before_terminal` (marked applied on a
``completed`` or ``incomplete`` terminal of a stream that added items) and :func:`judge_output`
(marked applied where the terminal output is compared with finished items).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from ..catalog.render import short
from .s2_1_sequence import _Coverage, _Report
from .s2_9_opaque import OPAQUE_FIELDS, deep_equal_except_opaque, judge_opaque_pair

__all__ = [
    "ITEM_CLOSED_BEFORE_TERMINAL",
    "OUTPUT_EQUALS_ITEMS",
    "OutputState",
    "closed_by_terminal",
    "declare_examples",
    "first_difference",
    "judge_closed_before_terminal",
    "judge_output",
]

ITEM_CLOSED_BEFORE_TERMINAL = register(
    "stream.item.closed_before_terminal",
    Level.MUST,
    "§2.9 [SDK]",
    "on `response.completed` and `response.incomplete` every added item is done",
)
OUTPUT_EQUALS_ITEMS = register(
    "stream.output.equals_items",
    Level.MUST,
    "§2.9 [SDK]",
    "the terminal response's `output` equals the `output_item.done` items, in order (opaque fields exempt)",
)

# The item type whose `output_item.done` the terminal output may stand in for (docs/spec.md §2.9,
# issue #32): with several MCP servers, OpenAI sends `output_item.done` only for the last
# `mcp_list_tools` (held-back real traffic); each listing is in the terminal output, at its
# `output_index`. No client builds anything from a listing's done event (Codex's history, the
# Vercel provider's tool calls come from other items), and the openai SDK's accumulator
# accepts an unfinished item that the terminal output holds (`_responses.py`, 3.63).
_LISTING = "mcp_list_tools"
_MISSING = object()


class _Item(Protocol):
    output_index: int
    id: Any
    type: Any
    done: bool
    done_item: Any  # the item of its `output_item.done` (None: closed by the terminal output)


class _AddedCoverage(_Coverage, Protocol):
    items_added: int  # `output_item.added` events judged before this one


class OutputState(Protocol):
    """What the rules read and write of the stream validator."""

    resume_after: int | None

    @property
    def coverage(self) -> _AddedCoverage | None: ...

    @property
    def _items(self) -> Mapping[int, _Item]: ...

    @property
    def _report(self) -> _Report: ...


def closed_by_terminal(item: _Item, output: Any) -> bool:
    """Whether an item that never got its `output_item.done` is closed by the terminal output:
    an ``mcp_list_tools`` item (whatever type a stream gave it, compared by equality) whose id and
    type the terminal output holds at the item's `output_index` (paired by index, never by type
    alone)."""
    if item.done or item.type != _LISTING or not isinstance(output, list):
        return False
    if not 0 <= item.output_index < len(output):
        return False
    final = output[item.output_index]
    return isinstance(final, Mapping) and (final.get("id"), final.get("type")) == (
        item.id,
        item.type,
    )


def judge_closed_before_terminal(state: OutputState, output: Any, index: int) -> None:
    """A `response.completed` or `response.incomplete` event (its response's ``output``): every
    item added is done, or closed by the terminal output; applied once the stream added one."""
    coverage = state.coverage
    if coverage is not None and coverage.items_added:
        coverage.applied.add(ITEM_CLOSED_BEFORE_TERMINAL.id)
    for item in state._items.values():
        if not item.done and not closed_by_terminal(item, output):
            state._report(
                ITEM_CLOSED_BEFORE_TERMINAL,
                index,
                f"`output_item.done` for output_index {item.output_index}",
                "the item is still open",
                path="response.output",
            )


def _compared(state: OutputState, items: list[_Item]) -> None:
    """Mark the check applied where finished items meet the terminal output."""
    coverage = state.coverage
    if coverage is not None and items:
        coverage.applied.add(OUTPUT_EQUALS_ITEMS.id)


def first_difference(want: Any, got: Any, path: str = "") -> str:
    """Where two JSON values first differ, opaque fields aside (a finished item and the
    terminal output's, a `.done`'s logprobs and their deltas')."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in want.keys() | got.keys():
            if key in OPAQUE_FIELDS:
                continue
            if want.get(key, _MISSING) != got.get(key, _MISSING):
                return first_difference(want.get(key), got.get(key), f"{path}.{key}")
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if not deep_equal_except_opaque(a, b):
                return first_difference(a, b, f"{path}[{i}]")
    return f"first difference at {path.lstrip('.') or 'the item'}"


def judge_output(
    state: OutputState, response: Mapping[str, Any], index: int, *, failed: bool
) -> None:
    """The terminal output against the done items, in order (KB08)."""
    output = response.get("output")
    if not isinstance(output, list):
        return
    done = [it for _, it in sorted(state._items.items()) if it.done]
    if state.resume_after is not None:
        # A resumed stream (SPEC §2.12) lacks what came before its resume point: items
        # finished by then are not in it at all. Only items seen finished can be compared,
        # by their index (failed or not: positions would pair them with the missing ones).
        _compared(state, done)
        for item in done:
            if item.output_index < len(output):
                judge_opaque_pair(
                    state, item.done_item, output[item.output_index], index,
                    f"response.output[{item.output_index}]",
                )  # fmt: skip
            if item.output_index >= len(output) or not deep_equal_except_opaque(
                output[item.output_index], item.done_item
            ):
                state._report(
                    OUTPUT_EQUALS_ITEMS,
                    index,
                    short(item.done_item),
                    short(output[item.output_index])
                    if item.output_index < len(output)
                    else "missing",
                    path=f"response.output[{item.output_index}]",
                )
        return
    if failed:
        # Open items may stay unfinished on failure; the finished ones must be there as sent.
        _compared(state, done)
        for pos, item in enumerate(done):
            if pos < len(output):
                judge_opaque_pair(
                    state, item.done_item, output[pos], index, f"response.output[{pos}]"
                )
            if pos < len(output) and not deep_equal_except_opaque(output[pos], item.done_item):
                state._report(
                    OUTPUT_EQUALS_ITEMS,
                    index,
                    short(item.done_item),
                    short(output[pos]),
                    path=f"response.output[{pos}]",
                )
        return
    # An item the terminal output closes (closed_by_terminal) counts as finished, as that item.
    done = [
        it for _, it in sorted(state._items.items()) if it.done or closed_by_terminal(it, output)
    ]
    _compared(state, done)
    if len(output) != len(done):
        state._report(
            OUTPUT_EQUALS_ITEMS,
            index,
            f"{len(done)} item(s), as streamed",
            f"{len(output)} item(s)",
            path="response.output",
        )
    for pos, (have, item) in enumerate(zip(output, done, strict=False)):
        if item.done_item is None:  # closed by the terminal output: its id and type are judged
            if isinstance(have, Mapping) and (have.get("id"), have.get("type")) == (
                item.id,
                item.type,
            ):
                continue
            state._report(
                OUTPUT_EQUALS_ITEMS,
                index,
                f"the {item.type} {item.id!r} of output_index {item.output_index}",
                short(have),
                path=f"response.output[{pos}]",
            )
            continue
        judge_opaque_pair(state, item.done_item, have, index, f"response.output[{pos}]")
        if not deep_equal_except_opaque(have, item.done_item):
            state._report(
                OUTPUT_EQUALS_ITEMS,
                index,
                short(item.done_item),
                short(have),
                path=f"response.output[{pos}]",
                message=first_difference(item.done_item, have),
            )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import at, drop, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        ITEM_CLOSED_BEFORE_TERMINAL.id,
        S(lambda: drop(text_stream(), "response.output_item.done"), "no `output_item.done`"),
        S(text_stream),
        also={OUTPUT_EQUALS_ITEMS.id},
    )
    example(
        OUTPUT_EQUALS_ITEMS.id,
        S(
            lambda: at(text_stream(), "response.completed", "response.output", []),
            "`output: []` although an item was streamed",
        ),
        S(text_stream),
    )
