"""§2.2 Lifecycle (docs/spec.md#s2-2): ``stream.lifecycle.*``, ``stream.response.terminal_status``.

The stream opens with ``response.created``, then ``response.in_progress`` (a background stream may
put ``response.queued`` between); each of these appears at most once. One terminal event —
``response.completed``, ``.incomplete`` or ``.failed``, its response's status the event's — ends
the stream, and no protocol event follows it (an undocumented one is ``event.type.known``'s, as
anywhere else). A stream resumed after event N replays only the lifecycle events numbered after N
(§2.12, §7.6).
"""

from __future__ import annotations

import enum
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "LIFECYCLE_AFTER_TERMINAL",
    "LIFECYCLE_CREATED_FIRST",
    "LIFECYCLE_IN_PROGRESS",
    "LIFECYCLE_TERMINAL_PRESENT",
    "LIFECYCLE_UNIQUE",
    "RESPONSE_TERMINAL_STATUS",
    "LifecycleState",
    "Phase",
    "declare_examples",
    "judge_after_terminal",
    "judge_lifecycle",
    "judge_terminal",
    "judge_terminal_present",
    "judge_terminal_status",
    "require_started",
    "resumed_lifecycle",
]

LIFECYCLE_CREATED_FIRST = register(
    "stream.lifecycle.created_first",
    Level.MUST,
    "§2.2 [REC][SDK]",
    "the first event is `response.created`",
)
LIFECYCLE_IN_PROGRESS = register(
    "stream.lifecycle.in_progress_second",
    Level.MUST,
    "§2.2 [REC]",
    "`response.in_progress` follows `response.created` (a background stream may put `response.queued` between)",
)
LIFECYCLE_UNIQUE = register(
    "stream.lifecycle.unique",
    Level.MUST,
    "§2.2, §2.12, §7.6",
    "`response.created`, `response.queued` and `response.in_progress` each appear at most once, in that order",
)
LIFECYCLE_TERMINAL_PRESENT = register(
    "stream.lifecycle.terminal_present",
    Level.MUST,
    "§2.2 [SDK]",
    "the stream ends with exactly one terminal event (`response.completed`, `.incomplete` or `.failed`)",
)
LIFECYCLE_AFTER_TERMINAL = register(
    "stream.lifecycle.after_terminal",
    Level.MUST,
    "§2.2",
    "no event follows the terminal event",
)
RESPONSE_TERMINAL_STATUS = register(
    "stream.response.terminal_status",
    Level.MUST,
    "§2.2, §3.1",
    "the terminal event's `response.status` matches the event (`completed`, `incomplete`, `failed`)",
)

# What each lifecycle rule marks applied where it evaluates (conformance.validator.exercised).
_TERMINAL = (LIFECYCLE_AFTER_TERMINAL.id, RESPONSE_TERMINAL_STATUS.id)

# The status a terminal event's response must have, by event type.
_TERMINAL_STATUS = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}


class Phase(enum.IntEnum):
    """Where a stream's lifecycle stands. The two negative phases remember that a missing
    lifecycle event was already reported, so it is reported once."""

    IN_PROGRESS_MISSING = -2  # an event came before `response.in_progress` (reported)
    CREATED_MISSING = -1  # an event came before `response.created` (reported)
    START = 0
    CREATED = 1
    QUEUED = 2
    IN_PROGRESS = 3  # also where a resumed stream starts


# Members as module globals: on Python 3.11 each `Phase.X` is a descriptor call, ≈8× a global.
_START, _CREATED_PHASE, _QUEUED, _IN_PROGRESS, _CREATED_MISSING, _IN_PROGRESS_MISSING = (
    Phase.START,
    Phase.CREATED,
    Phase.QUEUED,
    Phase.IN_PROGRESS,
    Phase.CREATED_MISSING,
    Phase.IN_PROGRESS_MISSING,
)


class LifecycleState(Protocol):
    """What the rules read and write of the stream validator."""

    resume_after: int | None
    events: int
    terminal_type: str | None
    _phase: Phase
    _seen_lifecycle: set[str]
    _error_at: int | None

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def resumed_lifecycle(resume_after: int | None) -> tuple[Phase, frozenset[str]]:
    """Where a stream's lifecycle starts, and the lifecycle events it may not send at all.

    §2.2 numbers `response.created` 0 and `response.in_progress` 1, or 2 after a background
    stream's `response.queued` at 1. So a stream resumed after 0 may replay `queued` and must
    replay `in_progress`; after 1 it may replay only `in_progress`; after 2 or later neither
    (docs/spec.md §7.6). No resumed stream replays `response.created`."""
    if resume_after is None:
        return Phase.START, frozenset()
    if resume_after == 0:
        return Phase.CREATED, frozenset({"response.created"})
    if resume_after == 1:
        return Phase.IN_PROGRESS, frozenset({"response.created", "response.queued"})
    return Phase.IN_PROGRESS, frozenset(
        {"response.created", "response.queued", "response.in_progress"}
    )


def require_started(state: LifecycleState, etype: str, index: int) -> None:
    """Item, terminal and `error` events need `response.created` then `response.in_progress`."""
    if state._phase is _START:
        coverage = state.coverage
        if coverage is not None:
            coverage.applied.add(LIFECYCLE_CREATED_FIRST.id)
        state._phase = _CREATED_MISSING  # report the missing start once
        state._report(LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
    elif state._phase is _CREATED_PHASE or state._phase is _QUEUED:
        state._phase = _IN_PROGRESS_MISSING
        state._report(
            LIFECYCLE_IN_PROGRESS,
            index,
            "response.in_progress",
            etype,
            message="an event arrived before `response.in_progress`",
        )


def judge_lifecycle(state: LifecycleState, etype: str, index: int) -> None:
    """A `response.created`, `queued` or `in_progress` event: once each, in that order, first."""
    coverage = state.coverage
    if coverage is not None:
        applied = coverage.applied
        applied.add(LIFECYCLE_UNIQUE.id)
        if state.resume_after is None:  # a resumed stream has no `response.created` to open it
            applied.add(LIFECYCLE_CREATED_FIRST.id)
        if etype == "response.created":
            applied.add(LIFECYCLE_IN_PROGRESS.id)
    repeated = etype in state._seen_lifecycle
    if repeated:
        before_resume = etype in resumed_lifecycle(state.resume_after)[1]
        state._report(
            LIFECYCLE_UNIQUE,
            index,
            f"no `{etype}` in a stream resumed after event #{state.resume_after}"
            if before_resume
            else f"one `{etype}`",
            etype,
        )
    state._seen_lifecycle.add(etype)
    if etype == "response.created":
        if state._phase is not _START:
            state._report(LIFECYCLE_CREATED_FIRST, index, "response.created first", etype)
        elif index != 0 and state.resume_after is None:
            state._report(
                LIFECYCLE_CREATED_FIRST,
                index,
                "response.created as event #0",
                f"event #{index}",
            )
        state._phase = max(state._phase, _CREATED_PHASE)
    elif etype == "response.queued":
        if state._phase is _START:
            state._phase = _CREATED_MISSING
            state._report(LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
        elif state._phase >= _IN_PROGRESS and not repeated:
            state._report(
                LIFECYCLE_UNIQUE,
                index,
                "`response.queued` before `response.in_progress`",
                etype,
            )
        state._phase = max(state._phase, _QUEUED)
    else:  # in_progress
        if state._phase is _START:
            state._phase = _CREATED_MISSING
            state._report(LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
        state._phase = _IN_PROGRESS


def judge_terminal(state: LifecycleState, etype: str, index: int) -> bool:
    """A terminal event: the first one ends the stream (and returns True); a second one is no
    more than an event after the terminal one, which :func:`judge_after_terminal` reported."""
    coverage = state.coverage
    if coverage is not None:
        coverage.applied.update(_TERMINAL)
    if state.terminal_type is not None:
        return False
    require_started(state, etype, index)
    state.terminal_type = etype
    return True


def judge_terminal_status(state: LifecycleState, etype: str, status: Any, index: int) -> None:
    """The terminal event's response's status against the event's type."""
    want = _TERMINAL_STATUS[etype]
    if status != want:
        state._report(
            RESPONSE_TERMINAL_STATUS,
            index,
            want,
            status,
            path="response.status",
            message=f"`{etype}` carries a response whose status is {status!r}",
        )


def judge_after_terminal(state: LifecycleState, etype: str, index: int) -> None:
    """A protocol event (a documented or a known non-standard type) after the terminal one.
    An undocumented event real traffic sends there (OpenAI's `response.rate_limits.updated`,
    April 2026) is no protocol event: the caller does not ask, and `event.type.known` (INFO)
    names it, as anywhere else."""
    state._report(
        LIFECYCLE_AFTER_TERMINAL,
        index,
        "no event",
        etype,
        message=f"the stream already ended with {state.terminal_type}",
    )


def judge_terminal_present(state: LifecycleState, *, cancelled: bool) -> None:
    """The end of the stream: it ended with a terminal event, or was cancelled by the caller
    (§2.13 lets a cancelled background stream end without one; the retrieved object's
    ``status: "cancelled"`` is the caller's to check)."""
    coverage = state.coverage
    if coverage is not None:
        coverage.applied.add(LIFECYCLE_TERMINAL_PRESENT.id)
    if state.terminal_type is not None or cancelled:
        return
    if state.events == 0:
        actual = "an empty stream"
    elif state._error_at is not None:
        actual = "the stream ended after an `error` event"
    else:
        actual = "the stream ended without one"
    state._report(
        LIFECYCLE_TERMINAL_PRESENT,
        None,
        "`response.completed`, `response.incomplete` or `response.failed`",
        actual,
    )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import MSG_ID, Event, at, drop, insert, response, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    def resumed(after: int) -> list[Event]:
        return text_stream()[after + 1 :]

    def background() -> list[Event]:
        events = text_stream()
        queued = {"type": "response.queued", "response": response("queued", background=True)}
        for e in events:
            if "response" in e:
                e["response"]["background"] = True
        return insert(events, 1, queued)

    # A documented event after the terminal one fails; OpenAI's undocumented rate-limit event
    # there (April 2026, issue #32) does not.
    after_terminal_delta: Event = {
        "type": "response.output_text.delta", "item_id": MSG_ID, "output_index": 0,
        "content_index": 0, "delta": "x", "logprobs": [],
    }  # fmt: skip
    rate_limits: Event = {
        "type": "response.rate_limits.updated",
        "rate_limits": [
            {"name": "requests", "limit": 500, "remaining": 499, "reset_seconds": 0.12}
        ],
    }

    example(
        LIFECYCLE_CREATED_FIRST.id,
        S(lambda: drop(text_stream(), "response.created")),
        S(lambda: resumed(0), "resumed after `response.created`", resume_after=0),
    )
    example(
        LIFECYCLE_IN_PROGRESS.id,
        S(lambda: drop(text_stream(), "response.in_progress")),
        S(background, "a background stream: created, queued, in_progress"),
    )
    example(
        LIFECYCLE_UNIQUE.id,
        S(lambda: insert(text_stream(), 2, text_stream()[1]), "`response.in_progress` twice"),
        S(text_stream),
    )
    example(
        LIFECYCLE_TERMINAL_PRESENT.id,
        S(lambda: text_stream()[:-1], "the stream ends after `output_item.done`"),
        S(text_stream),
    )
    example(
        LIFECYCLE_AFTER_TERMINAL.id,
        S(
            lambda: insert(text_stream(), 10, after_terminal_delta),
            "text after `response.completed`",
        ),
        S(
            lambda: insert(text_stream(), 10, rate_limits),
            "OpenAI's undocumented `response.rate_limits.updated` after `response.completed` "
            "(April 2026; INFO `event.type.known` only)",
        ),
        also={"stream.item.done_once"},
    )
    example(
        RESPONSE_TERMINAL_STATUS.id,
        S(lambda: at(text_stream(), "response.completed", "response.status", "in_progress")),
        S(text_stream),
    )
