"""The state every rule of the stream validator reads and writes, and how a rule reports.

:class:`StreamState` declares the fields that :class:`~conformance.validator.StreamValidator`
initialises; each concern (lifecycle, items, parts, values) is a module of plain
functions over it, its event handlers ``(state, event, index)`` named in the validator's one
handler table (``core._tables``), and the concerns call each other only through the functions
in their ``__all__``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..bodies.objects import ResponseChecker
from ..catalog.registry import Check, Violation
from ..schema import SchemaValidator
from ..sections.s1_7_hosted_tools import ToolRules
from .exercised import Coverage
from .model import Item, Phase

if TYPE_CHECKING:
    from .fastpath import FastPath

__all__ = ["Handler", "Reporter", "StreamState"]


class StreamState:
    """The fields of one stream's judgement (initialised by ``StreamValidator.__init__``)."""

    __slots__ = (
        "_closed",
        "_created_at",
        "_error_at",
        "_error_pending",
        "_handlers",
        "_incomplete_item",
        "_item_ids",
        "_items",
        "_known_types",
        "_last_added",
        "_next_output_index",
        "_openresponses",
        "_phase",
        "_predicates",
        "_report",
        "_responses",
        "_schemas",
        "_seen_lifecycle",
        "_seq_started",
        "_too_deep_at",
        "_tool_rules",
        "_top_logprobs",
        "coverage",
        "events",
        "fast",
        "fast_judged",
        "fast_path",
        "next_seq",
        "profiles",
        "response_id",
        "resume_after",
        "terminal",
        "terminal_type",
        "violations",
    )

    profiles: frozenset[str]
    resume_after: int | None
    violations: list[Violation]
    events: int  # events received, decoded or not: the next event's index
    terminal: Mapping[str, Any] | None  # the terminal event's response
    terminal_type: str | None
    response_id: Any
    next_seq: int | None  # the sequence_number the next event must carry (None: not known yet)
    fast: bool  # False: every event judged in full (the reference path)
    fast_judged: int  # events the fast path judged
    fast_path: FastPath | None  # the one seam of the speed work (None: `fast=False`)
    coverage: Coverage | None  # what the rules were applied to, when asked (`exercised`)
    _schemas: SchemaValidator
    _responses: ResponseChecker
    _created_at: Any
    _seq_started: bool
    _phase: Phase
    _seen_lifecycle: set[str]
    _items: dict[int, Item]
    _item_ids: set[Any]
    _next_output_index: int | None
    _last_added: int
    _error_at: int | None
    _error_pending: bool  # an `error` was the last event: `response.failed` is next
    _incomplete_item: int | None
    _too_deep_at: int | None
    _tool_rules: ToolRules
    _top_logprobs: int | None  # alternatives per token the response echoes (`top_logprobs`)
    _closed: bool
    _known_types: frozenset[str]
    _predicates: dict[str, Callable[[dict[str, Any]], bool]]  # the schema's, by event type
    _openresponses: bool  # "openresponses" in profiles
    _handlers: dict[str, Handler]
    _report: Reporter  # where the rules report (a slot: no bound method, no cycle)


class Reporter:
    """Where a stream's rules report: appends a check's violation to the validator's list,
    unless the check belongs to a profile the stream is not judged in. The validator's own
    ``_report``, and what it hands the helpers it owns (:class:`~conformance.sections.s1_7_hosted_tools.ToolRules`):
    it holds the list and the profiles, not the validator. A bound method of the validator
    would make every validator part of a reference cycle, so that nothing it held (each
    stream's parsed items and responses) was freed until a cyclic garbage collection found it."""

    __slots__ = ("profiles", "violations")

    def __init__(self, violations: list[Violation], profiles: frozenset[str]) -> None:
        self.violations = violations
        self.profiles = profiles

    def __call__(
        self,
        check: Check,
        index: int | None,
        expected: Any,
        actual: Any,
        *,
        message: str = "",
        path: str = "",
    ) -> None:
        if check.profile != "core" and check.profile not in self.profiles:
            return
        self.violations.append(
            check.violation(
                expected=expected, actual=actual, event_index=index, message=message, path=path
            )
        )


# An event handler: (the stream's state, event, event index).
Handler = Callable[[StreamState, Mapping[str, Any], int], None]
