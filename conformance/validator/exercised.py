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


@dataclass(slots=True)
class Coverage:
    """What one stream held, as far as the rules care: event types, items, parts, annotations."""

    events: int = 0
    types: set[str] = field(default_factory=set)
    lifecycle: int = 0  # lifecycle events seen
    items_added: int = 0
    # Checks whose rule marked itself applied where it evaluated (conformance.sections): their
    # exercise is not inferred from the events here.
    applied: set[str] = field(default_factory=set)

    def see(self, event: Mapping[str, Any], etype: str) -> None:
        """One event the validator judged on its full path."""
        self.events += 1
        self.types.add(etype)
        if etype in _LIFECYCLE:
            self.lifecycle += 1
        elif etype == "response.output_item.added":
            self.items_added += 1

    def see_type(self, etype: str) -> None:
        """A delta type the fast path judged (its item and part were opened on the full path)."""
        self.types.add(etype)

    def exercised(self) -> set[str]:
        """The ``event.*`` and ``stream.*`` checks these events gave work to (the terminal
        response's rules, section modules', marked theirs in ``applied``)."""
        out: set[str] = set(self.applied)
        if not self.events and not self.types:
            return out
        return with_family(out)
