"""The lifecycle events' handlers: each runs the rules of the sections that judge the event
(conformance.sections: §2.2 its place in the lifecycle, §2.3 its response's identity and interim
state, §1.2 `error` then `response.failed`, §3.4 the Open Responses fields) and, on the terminal
event, the rules that compare its response with the items the stream sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog.registry import Check
from ..sections.s1_2_error_event import note_error
from ..sections.s2_2_lifecycle import (
    judge_lifecycle,
    judge_terminal,
    judge_terminal_status,
    require_started,
)
from ..sections.s2_3_one_response import judge_identity, judge_interim_state
from ..sections.s2_9_output_items import judge_closed_before_terminal, judge_output
from ..sections.s3_4_openresponses import judge_openresponses_fields
from ..sections.s7_8_logprobs import top_logprobs_limit
from .state import StreamState

__all__ = ["on_error", "on_lifecycle", "on_terminal"]


def on_lifecycle(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    """`response.created`, `queued` or `in_progress`: its place (§2.2), its response's identity
    and interim state (§2.3), and the profile's fields (§3.4)."""
    judge_lifecycle(state, event["type"], index)
    response = event.get("response")
    if isinstance(response, dict):  # (else the schema check reported it)
        judge_identity(state, response, index)
        state._top_logprobs = top_logprobs_limit(response)
        if "openresponses" in state.profiles:
            # [OR] types every lifecycle event's `response` as a `ResponseResource` (§7.10).
            def report(check: Check, expected: Any, actual: Any, _path: str) -> None:
                state._report(check, index, expected, actual, path="response")

            coverage = state.coverage
            applied = None if coverage is None else coverage.applied
            judge_openresponses_fields(response, report, applied)
    judge_interim_state(state, response, index)


def on_terminal(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    etype: str = event["type"]
    if not judge_terminal(state, etype, index):
        return  # after_terminal already reported in feed()
    response = event.get("response")
    if not isinstance(response, dict):
        return
    state.terminal = response
    judge_identity(state, response, index)
    judge_terminal_status(state, etype, response.get("status"), index)
    failed = etype == "response.failed"
    if not failed:  # §2.9 (conformance.sections)
        judge_closed_before_terminal(state, response.get("output"), index)
    judge_output(state, response, index, failed=failed)  # §2.9
    for v in state._responses.check(response, event_index=index, path="response"):
        state._report(v.check, v.event_index, v.expected, v.actual, message=v.message, path=v.path)


def on_error(state: StreamState, event: Mapping[str, Any], index: int) -> None:
    # SPEC §2.2: `response.created` then `response.in_progress` come first, whatever follows.
    require_started(state, "error", index)
    note_error(state, index)
