"""The lifecycle of a stream (SPEC §1, §2.1–§2.3): sequence numbers, `response.created` /
`queued` / `in_progress` first and once, one terminal event and its response, `error` then
`response.failed`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import catalog as C
from ..catalog.registry import Check
from ..catalog.render import short
from ..sections.s1_2_error_event import note_error
from ..sections.s2_3_one_response import judge_identity
from ..sections.s3_4_openresponses import judge_openresponses_fields
from ..sections.s7_8_logprobs import top_logprobs_limit
from .comparisons import check_output, closed_by_terminal
from .model import Phase
from .state import StreamState
from .tables import TERMINAL

__all__ = ["on_error", "on_lifecycle", "on_terminal", "require_started", "resumed_lifecycle"]

# Members as module globals: on Python 3.11 each `Phase.X` is a descriptor call, ≈8× a global.
_START, _CREATED, _QUEUED, _IN_PROGRESS, _CREATED_MISSING, _IN_PROGRESS_MISSING = (
    Phase.START,
    Phase.CREATED,
    Phase.QUEUED,
    Phase.IN_PROGRESS,
    Phase.CREATED_MISSING,
    Phase.IN_PROGRESS_MISSING,
)


def resumed_lifecycle(resume_after: int | None) -> tuple[Phase, frozenset[str]]:
    """Where a stream's lifecycle starts, and the lifecycle events it may not send at all.

    SPEC §2.2 numbers `response.created` 0 and `response.in_progress` 1, or 2 after a background
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


def require_started(state: StreamState, etype: str, index: int) -> None:
    """Item and terminal events need `response.created` then `response.in_progress`."""
    if state._phase is _START:
        state._phase = _CREATED_MISSING  # report the missing start once
        state._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
    elif state._phase is _CREATED or state._phase is _QUEUED:
        state._phase = _IN_PROGRESS_MISSING
        state._report(
            C.LIFECYCLE_IN_PROGRESS,
            index,
            "response.in_progress",
            etype,
            message="an event arrived before `response.in_progress`",
        )


def on_lifecycle(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    etype: str = event["type"]
    response = event.get("response")
    repeated = etype in state._seen_lifecycle
    if repeated:
        before_resume = etype in resumed_lifecycle(state.resume_after)[1]
        state._report(
            C.LIFECYCLE_UNIQUE,
            index,
            f"no `{etype}` in a stream resumed after event #{state.resume_after}"
            if before_resume
            else f"one `{etype}`",
            etype,
        )
    state._seen_lifecycle.add(etype)
    if etype == "response.created":
        if state._phase is not _START:
            state._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created first", etype)
        elif index != 0 and state.resume_after is None:
            state._report(
                C.LIFECYCLE_CREATED_FIRST,
                index,
                "response.created as event #0",
                f"event #{index}",
            )
        state._phase = max(state._phase, _CREATED)
    elif etype == "response.queued":
        if state._phase is _START:
            state._phase = _CREATED_MISSING
            state._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
        elif state._phase >= _IN_PROGRESS and not repeated:
            state._report(
                C.LIFECYCLE_UNIQUE,
                index,
                "`response.queued` before `response.in_progress`",
                etype,
            )
        state._phase = max(state._phase, _QUEUED)
    else:  # in_progress
        if state._phase is _START:
            state._phase = _CREATED_MISSING
            state._report(C.LIFECYCLE_CREATED_FIRST, index, "response.created", etype)
        state._phase = _IN_PROGRESS
    if not isinstance(response, dict):
        return  # the schema check reported it
    judge_identity(state, response, index)
    state._top_logprobs = top_logprobs_limit(response)
    if "openresponses" in state.profiles:
        # [OR] types every lifecycle event's `response` as a `ResponseResource` (§7.10).
        def report(check: Check, expected: Any, actual: Any, _path: str) -> None:
            state._report(check, index, expected, actual, path="response")

        coverage = state.coverage
        judge_openresponses_fields(response, report, None if coverage is None else coverage.applied)
    status = response.get("status")
    if status not in ("in_progress", "queued"):
        state._report(
            C.RESPONSE_INTERIM_STATE,
            index,
            "status `in_progress` or `queued`",
            status,
            path="response.status",
        )
    if response.get("output") != []:
        state._report(
            C.RESPONSE_INTERIM_STATE,
            index,
            "output: []",
            short(response.get("output")),
            path="response.output",
        )
    if response.get("usage") is not None:
        state._report(
            C.RESPONSE_INTERIM_STATE,
            index,
            "usage: null",
            short(response.get("usage")),
            path="response.usage",
        )


def on_terminal(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    etype: str = event["type"]
    if state.terminal_type is not None:
        return  # after_terminal already reported in feed()
    require_started(state, etype, index)
    state.terminal_type = etype
    response = event.get("response")
    if not isinstance(response, dict):
        return
    state.terminal = response
    judge_identity(state, response, index)
    want = TERMINAL[etype]
    status = response.get("status")
    if status != want:
        state._report(
            C.RESPONSE_TERMINAL_STATUS,
            index,
            want,
            status,
            path="response.status",
            message=f"`{etype}` carries a response whose status is {status!r}",
        )
    failed = etype == "response.failed"
    if not failed:
        output = response.get("output")
        for item in state._items.values():
            if not item.done and not closed_by_terminal(item, output):
                state._report(
                    C.ITEM_CLOSED_BEFORE_TERMINAL,
                    index,
                    f"`output_item.done` for output_index {item.output_index}",
                    "the item is still open",
                    path="response.output",
                )
    check_output(state, response, index, failed=failed)
    for v in state._responses.check(response, event_index=index, path="response"):
        state._report(v.check, v.event_index, v.expected, v.actual, message=v.message, path=v.path)


def on_error(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    # SPEC §2.2: `response.created` then `response.in_progress` come first, whatever follows.
    require_started(state, "error", index)
    note_error(state, index)
