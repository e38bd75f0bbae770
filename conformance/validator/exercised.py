"""Which checks a judged answer actually put to the test.

A check *passes* for a target only when its rule was evaluated on something it applies to: the
annotation rule on annotations, the shell-command rule on shell commands, usage arithmetic on a
usage object. :class:`Coverage` is filled by the stream validator, one call per event it judges on
its full path (never per fast-path delta: a delta's rules are applied at its ``.done``, which takes
the full path), and :meth:`Coverage.exercised` names the stream checks its events gave work to.
The checks of a section module (conformance.sections) are not inferred here: their rule marks
them in ``applied`` where it evaluates them, those of a Response (a streamed terminal, a body)
too. Every check that reported a violation was evaluated too: callers add those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..catalog.registry import with_family

__all__ = ["Coverage"]

_LIFECYCLE = frozenset(
    {
        "response.created",
        "response.queued",
        "response.in_progress",
        "response.completed",
        "response.incomplete",
        "response.failed",
    }
)
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_PART_TEXT = ("response.output_text.", "response.refusal.", "response.reasoning_text.")
_SUMMARY = "response.reasoning_summary_"
_VALUES = (
    "response.function_call_arguments.",
    "response.custom_tool_call_input.",
    "response.mcp_call_arguments.",
    "response.code_interpreter_call_code.",
    "response.apply_patch_call_operation_diff.",
    "response.shell_call_command.",
    "response.shell_call_output_content.",
)
# Event families that name an item (SPEC §2.6 table): their kind must fit the item's type.
_FAMILIES = (
    *_PART_TEXT,
    _SUMMARY,
    *_VALUES,
    "response.mcp_call.",
    "response.mcp_list_tools.",
    "response.code_interpreter_call",
    "response.web_search_call.",
    "response.file_search_call.",
    "response.image_generation_call.",
)
_VALUE_DONE = (
    *(f"{f}done" for f in (*_PART_TEXT, *_VALUES)),
    "response.reasoning_summary_text.done",
)


@dataclass(slots=True)
class Coverage:
    """What one stream held, as far as the rules care: event types, items, parts, annotations."""

    events: int = 0
    types: set[str] = field(default_factory=set)
    lifecycle: int = 0  # lifecycle events seen
    items_added: int = 0
    items_done: int = 0
    annotations: bool = False
    identities: bool = False  # an item opened with a `call_id` or `name` (docs/spec.md §7.9)
    done_logprobs: bool = False  # an `output_text.done` carried logprobs (§7.8)
    terminal: str | None = None
    # Checks whose rule marked itself applied where it evaluated (conformance.sections): their
    # exercise is not inferred from the events here.
    applied: set[str] = field(default_factory=set)

    def see(self, event: Mapping[str, Any], etype: str) -> None:
        """One event the validator judged on its full path."""
        self.events += 1
        self.types.add(etype)
        if etype in _LIFECYCLE:
            self.lifecycle += 1
            if etype in _TERMINAL:
                self.terminal = etype
        elif etype == "response.output_item.added":
            self.items_added += 1
            item = event.get("item")
            if (
                isinstance(item, dict)
                and item.get("type") != "tool_search_call"  # its `call_id` is re-issued (§7.9)
                and any(isinstance(item.get(k), str) and item.get(k) for k in ("call_id", "name"))
            ):
                self.identities = True
        elif etype == "response.output_text.done":
            if event.get("logprobs") and isinstance(event.get("logprobs"), list):
                self.done_logprobs = True
        elif etype == "response.output_item.done":
            self.items_done += 1
            item = event.get("item")
            if isinstance(item, dict):
                self.annotations = self.annotations or _has_annotations(item.get("content"))
        elif etype == "response.content_part.done":
            part = event.get("part")
            self.annotations = self.annotations or _has_annotations([part])
        elif etype == "response.output_text.annotation.added":
            self.annotations = True

    def see_type(self, etype: str) -> None:
        """A delta type the fast path judged (its item and part were opened on the full path)."""
        self.types.add(etype)

    def exercised(self) -> set[str]:
        """The ``event.*`` and ``stream.*`` checks these events gave work to (the terminal
        response's rules, section modules', marked theirs in ``applied``)."""
        out: set[str] = set(self.applied)
        if not self.events and not self.types:
            return out
        types = self.types
        inner = {
            t for t in types if t.startswith(_FAMILIES) or t.startswith("response.content_part.")
        }
        if self.items_added:
            out.add("stream.item.id_prefix")
        if self.items_done and inner:
            out.add("stream.item.content_matches")
        if self.items_added and self.terminal in ("response.completed", "response.incomplete"):
            out.add("stream.item.closed_before_terminal")
        if any(t.endswith(_VALUE_DONE) for t in types):
            out.add("stream.text.deltas_equal_done")
        if types & {"response.content_part.done", "response.reasoning_summary_part.done"}:
            out.add("stream.text.done_equals_part")
        if self.annotations:
            out.add("stream.text.annotations_match")
        if self.terminal is not None and self.items_done:
            out.add("stream.output.equals_items")
        if self.identities and self.items_done:
            out.add("stream.item.call_identity_stable")
        if self.done_logprobs:
            out.add("stream.logprobs.deltas_equal_done")
        return with_family(out)


def _has_annotations(content: Any) -> bool:
    if not isinstance(content, list):
        return False
    return any(isinstance(p, dict) and p.get("annotations") for p in content)
