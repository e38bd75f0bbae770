"""§1.2 The error event (docs/spec.md#s1-2): ``stream.error.followed_by_failed``.

OpenAI sends an ``error`` event nested (``{type: "error", sequence_number, error: {…}}``) and
[OAPI] describes it flat; both shapes are valid (the event schema judges them). The decision this
module holds: after an ``error`` event the next event is the stream's one ``response.failed`` —
a second ``error``, more output, or the end of the stream leaves the first one unanswered.

The rule runs in three places of the stream validator: :func:`note_error` where an ``error``
event is judged (it marks the check applied: the stream now owes a ``response.failed``),
:func:`judge_after_error` on the next event (the validator calls it only while one is owed, so
the events of a stream without an ``error`` pay one attribute test) and
:func:`judge_error_unanswered` when a stream ends without a terminal event.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "ERROR_FOLLOWED_BY_FAILED",
    "ErrorState",
    "declare_examples",
    "judge_after_error",
    "judge_error_unanswered",
    "note_error",
]

ERROR_FOLLOWED_BY_FAILED = register(
    "stream.error.followed_by_failed",
    Level.MUST,
    "§1.2, decision",
    "an `error` event is followed by exactly one `response.failed`",
)


class ErrorState(Protocol):
    """What the rule reads and writes of the stream validator."""

    _error_at: int | None
    _error_pending: bool  # an `error` was the last event: `response.failed` is next

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def note_error(state: ErrorState, index: int) -> None:
    """An ``error`` event at ``index``: the next event must be ``response.failed``."""
    coverage = state.coverage
    if coverage is not None:
        coverage.applied.add(ERROR_FOLLOWED_BY_FAILED.id)
    state._error_at = index
    state._error_pending = True


def judge_after_error(state: ErrorState, etype: Any, index: int) -> None:
    """The event after an ``error`` (called while ``state._error_pending``)."""
    state._error_pending = False
    if etype != "response.failed":
        state._report(
            ERROR_FOLLOWED_BY_FAILED,
            index,
            "response.failed",
            etype,
            message=f"`error` at event #{state._error_at}",
        )


def judge_error_unanswered(state: ErrorState) -> None:
    """The stream ended without a terminal event: an ``error`` in it went unanswered."""
    if state._error_at is not None:
        state._report(
            ERROR_FOLLOWED_BY_FAILED,
            None,
            "`response.failed` after the `error`",
            "no `response.failed`",
            message=f"`error` at event #{state._error_at}",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples)."""
    from ..examples.build import at, failed_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        ERROR_FOLLOWED_BY_FAILED.id,
        S(
            lambda: at(failed_stream(), "response.failed", "type", "response.completed"),
            "`error`, then `response.completed`",
        ),
        S(failed_stream),
        also={"stream.response.terminal_status"},
    )
