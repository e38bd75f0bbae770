"""§2.6 Inside an item (docs/spec.md#s2-6), single values and the items events name:
``stream.arguments.order``, ``stream.arguments.added_first``, ``stream.delta.type_fits_item``.

A function call's argument deltas come before the one ``.done``, which comes before
``output_item.done``; the same holds for every single-valued stream (custom tool input, MCP
arguments, interpreter code, patch diffs, shell commands and output). A family with an
``.added`` event (``shell_call_command``) opens each value with it, once (§1.6). An event's
family fits the item it names: argument deltas name function calls, text events messages,
summary events reasoning (:data:`FAMILY_ITEM_TYPES`).

The rules mark the checks applied where they meet the events: an event of a value's family
(``arguments.order``; ``added_first`` for a family :data:`ADDED_FIRST` names), an event of a
family that names an item, looked up by its ``output_index`` on the full path or routed to the
newest open item by the fast path (``type_fits_item``).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "ADDED_FIRST",
    "ARGS_ADDED_FIRST",
    "ARGS_ORDER",
    "DELTA_TYPE_FITS_ITEM",
    "FAMILY_ITEM_TYPES",
    "ValuesState",
    "declare_examples",
    "fits_for",
    "judge_added_again",
    "judge_after_done",
    "judge_done_again",
    "judge_not_added",
    "judge_type_fits",
    "judge_values_done",
    "note_delta_routed",
    "note_item_named",
    "note_value",
]

ARGS_ORDER = register(
    "stream.arguments.order",
    Level.MUST,
    "§2.6",
    "argument/input deltas come before their `.done`, which comes once, before `output_item.done`",
)
ARGS_ADDED_FIRST = register(
    "stream.arguments.added_first",
    Level.MUST,
    "§2.6, §1.6 [SDK]",
    "a value whose family has an `.added` event (`shell_call_command.added`) is opened by it, once, before its deltas and `.done`",
)
DELTA_TYPE_FITS_ITEM = register(
    "stream.delta.type_fits_item",
    Level.MUST,
    "§2.6",
    "an event's kind fits the item it names (argument deltas for function calls, text for messages, …)",
)

# Families whose value is opened by an `.added` event before its deltas ([SDK]).
ADDED_FIRST = frozenset({"response.shell_call_command"})
# Event-name prefix -> the item types such events may name.
FAMILY_ITEM_TYPES: tuple[tuple[str, frozenset[str]], ...] = (
    ("response.output_text.", frozenset({"message"})),
    ("response.refusal.", frozenset({"message"})),
    ("response.reasoning_text.", frozenset({"reasoning"})),
    ("response.reasoning_summary_", frozenset({"reasoning"})),
    ("response.function_call_arguments.", frozenset({"function_call"})),
    ("response.custom_tool_call_input.", frozenset({"custom_tool_call"})),
    ("response.mcp_call_arguments.", frozenset({"mcp_call"})),
    ("response.mcp_call.", frozenset({"mcp_call"})),
    ("response.mcp_list_tools.", frozenset({"mcp_list_tools"})),
    ("response.code_interpreter_call", frozenset({"code_interpreter_call"})),
    ("response.web_search_call.", frozenset({"web_search_call"})),
    ("response.file_search_call.", frozenset({"file_search_call"})),
    ("response.image_generation_call.", frozenset({"image_generation_call"})),
    ("response.apply_patch_call_operation_diff.", frozenset({"apply_patch_call"})),
    ("response.shell_call_command.", frozenset({"shell_call"})),
    ("response.shell_call_output_content.", frozenset({"shell_call_output"})),
)

_FITS: dict[str, frozenset[str] | None] = {}
_VALUE = (ARGS_ORDER.id, ARGS_ADDED_FIRST.id)


def fits_for(etype: str) -> frozenset[str] | None:
    """The item types an event of this name may name (None: any)."""
    try:
        return _FITS[etype]
    except KeyError:
        pass
    fits = next((types for prefix, types in FAMILY_ITEM_TYPES if etype.startswith(prefix)), None)
    if len(_FITS) < 4096:  # event names come from the stream: remember the documented few
        _FITS[etype] = fits
    return fits


class _Item(Protocol):
    type: Any
    values: dict[tuple[str, int], tuple[list[str], list[str | None]]]


class ValuesState(Protocol):
    """What the rules read of the stream validator."""

    @property
    def _report(self) -> _Report: ...


def note_value(coverage: _Coverage, family: str) -> None:
    """An event of a value's ``family`` (its `.added`, a delta, its `.done`): its place in the
    value's order is judged, and its opening for a family that opens values."""
    if family in ADDED_FIRST:
        coverage.applied.update(_VALUE)
    else:
        coverage.applied.add(ARGS_ORDER.id)


def note_item_named(coverage: _Coverage, etype: str) -> None:
    """An event that names an item by its ``output_index``: one of a family that names items
    of some types only is judged against its item's type."""
    if fits_for(etype) is not None:
        coverage.applied.add(DELTA_TYPE_FITS_ITEM.id)


def note_delta_routed(coverage: _Coverage) -> None:
    """The fast path routed a delta type to the newest open item: it found the item of a type
    the delta fits (its route is made once for the deltas that follow)."""
    coverage.applied.add(DELTA_TYPE_FITS_ITEM.id)


def judge_type_fits(
    state: ValuesState, types: frozenset[str], item_type: Any, etype: str, oi: int, index: int
) -> None:
    """An event ``etype``, of a family that names items of the ``types`` only, names item
    ``oi``, of another type ``item_type`` (the caller compares: this is on every event's path)."""
    state._report(
        DELTA_TYPE_FITS_ITEM,
        index,
        f"an item of type {' or '.join(sorted(types))}",
        item_type,
        message=f"`{etype}` names output_index {oi}",
    )


def judge_not_added(state: ValuesState, family: str, etype: str, index: int) -> None:
    """A delta or `.done` of a value whose family opens values, before its `.added` (reported
    once per value: the caller counts it opened)."""
    state._report(
        ARGS_ADDED_FIRST,
        index,
        f"`{family}.added` first",
        etype,
        path="command_index",
    )


def judge_added_again(state: ValuesState, again: bool, etype: str, index: int) -> None:
    """A value's `.added` after its first one (``again``) or after its deltas."""
    state._report(
        ARGS_ADDED_FIRST,
        index,
        f"one `{etype}`, before the deltas",
        "a second one" if again else "after its deltas",
        path="command_index",
    )


def judge_after_done(state: ValuesState, family: str, etype: str, index: int) -> None:
    """A value's delta after its `.done`."""
    state._report(ARGS_ORDER, index, f"no delta after `{family}.done`", etype)


def judge_done_again(state: ValuesState, family: str, index: int) -> None:
    """A value's second `.done`."""
    state._report(ARGS_ORDER, index, f"one `{family}.done`", "a second one")


def judge_values_done(state: ValuesState, item: _Item, index: int) -> None:
    """An item's `output_item.done`: each value streamed in it had its `.done` before."""
    for (family, sub), (deltas, done) in item.values.items():
        if done[0] is None:
            state._report(
                ARGS_ORDER,
                index,
                f"`{family}.done` before `output_item.done`",
                f"{len(deltas)} delta(s) and no `.done`",
                message=f"index {sub}" if sub else "",
            )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import call_stream, drop, find, insert, shell_stream, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S, swap

    example(
        ARGS_ORDER.id,
        S(lambda: swap(call_stream(), find(call_stream(), "response.function_call_arguments.delta", 1)),
          "an argument delta after `function_call_arguments.done`"),
        S(call_stream),
        also={"stream.text.deltas_equal_done"},
    )  # fmt: skip
    example(
        ARGS_ADDED_FIRST.id,
        S(lambda: drop(shell_stream(), "response.shell_call_command.added")),
        S(shell_stream),
    )
    example(
        DELTA_TYPE_FITS_ITEM.id,
        S(lambda: insert(text_stream(), 5, {"type": "response.function_call_arguments.delta",
                                            "item_id": "msg_example", "output_index": 0, "delta": "{"}),
          "an argument delta naming a message"),
        S(text_stream),
    )  # fmt: skip
