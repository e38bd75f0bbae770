"""The clients' stream accumulators (docs/spec.md §9.3), as rules the replay runs: a section
module that mirrors one (:mod:`.s9_openai_node`) declares its check and calls
:func:`stream_accumulator`; the check joins the client's checks
(:data:`.s9_clients.CLIENT_CHECKS`) and :class:`conformance.suite.replay.FlowReplay` judges each
streamed HTTP exchange of the client's flows by the rule. Nothing names the clients here: a new
accumulator touches its own module only (issue #31)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog.registry import Check
from .s9_clients import CLIENT_CHECKS

__all__ = [
    "LIFECYCLE_EVENTS",
    "STREAM_ACCUMULATORS",
    "TERMINAL_EVENTS",
    "StreamAccumulator",
    "stream_accumulator",
]

# The lifecycle events every client accumulator treats apart: they carry the Response snapshot.
TERMINAL_EVENTS = frozenset({"response.completed", "response.failed", "response.incomplete"})
LIFECYCLE_EVENTS = frozenset({"response.created", "response.queued", "response.in_progress"})
LIFECYCLE_EVENTS |= TERMINAL_EVENTS

# The events of one streamed response, in order → the first one the client's accumulator raises
# on, as (its index, the client's message), or None.
Rule = Callable[[Sequence[Any]], tuple[int, str] | None]


@dataclass(frozen=True)
class StreamAccumulator:
    """One client's accumulator: its check, its rule, and what a finding says was expected."""

    check: Check
    problem: Rule
    expected: str


# client → its stream accumulators, in the order their modules registered them.
STREAM_ACCUMULATORS: dict[str, tuple[StreamAccumulator, ...]] = {}


def stream_accumulator(client: str, check: Check, problem: Rule, expected: str) -> None:
    """Register ``client``'s stream accumulator: ``check`` (of the ``client:<client>`` profile)
    joins the client's checks, and the replay judges the client's streams by ``problem``."""
    if check.profile != f"client:{client}":
        raise ValueError(f"{check.id} is not a check of the client:{client} profile")
    STREAM_ACCUMULATORS[client] = (
        *STREAM_ACCUMULATORS.get(client, ()),
        StreamAccumulator(check, problem, expected),
    )
    CLIENT_CHECKS[client] = (*CLIENT_CHECKS[client], check)
