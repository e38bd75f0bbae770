"""Which checks a judged stream actually put to the test.

A check *passes* for a target only when its rule was evaluated on something it applies to: the
annotation rule on annotations, the shell-command rule on shell commands, usage arithmetic on a
usage object. Every rule marks the checks it evaluated in :attr:`Coverage.applied`, where it
evaluates them (the section modules, conformance.sections): what a live run reports as
exercised, or "not exercised", comes from those marks, not from a table kept beside the rules.
Every check that reported a violation was evaluated too: callers add those.

:class:`Coverage` also keeps the little the rules' marks depend on: how many events and
``output_item.added`` events the stream validator judged on its full path, and the event types
it judged (a fast-path delta's type included).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..catalog.registry import with_family

__all__ = ["Coverage"]


@dataclass(slots=True)
class Coverage:
    """The checks one stream's rules evaluated, and what their marks depend on."""

    events: int = 0  # events judged on the full path
    types: set[str] = field(default_factory=set)  # event types judged, fast-path deltas' too
    items_added: int = 0  # `output_item.added` events judged
    # Checks whose rule marked itself applied where it evaluated (conformance.sections).
    applied: set[str] = field(default_factory=set)

    def see(self, event: Mapping[str, Any], etype: str) -> None:
        """One event the validator judged on its full path (after its rules)."""
        self.events += 1
        self.types.add(etype)
        if etype == "response.output_item.added":
            self.items_added += 1

    def see_type(self, etype: str) -> None:
        """A delta type the fast path judged (its item and part were opened on the full path)."""
        self.types.add(etype)

    def exercised(self) -> set[str]:
        """The ``event.*`` and ``stream.*`` checks the rules evaluated (a refinement's parent
        with it)."""
        return with_family(set(self.applied))
