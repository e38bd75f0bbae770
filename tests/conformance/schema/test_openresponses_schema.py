"""Under ``--profile openresponses`` an event is judged by [OR]'s own schema where it is looser than
[OAPI]'s (docs/spec.md §3.4, issue #32): a text delta or done event without ``logprobs`` ([OR]'s
``ResponseOutputTextDeltaStreamingEvent`` does not require it; [OAPI]'s
``ResponseTextDeltaEvent`` does). The fast path and the reference path agree."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.examples.build import at, find, text_stream, without
from conformance.schema import OPENRESPONSES_RELAXATIONS, OPENRESPONSES_SCHEMAS, SCHEMAS
from conformance.validator import StreamValidator

REQUIRED, TYPE = "event.schema.required", "event.schema.type"


def _ids(events: list[dict[str, Any]], profiles: tuple[str, ...], *, fast: bool) -> list[str]:
    validator = StreamValidator(profiles=profiles, fast=fast)
    for event in events:
        validator.feed(event)
    validator.close()
    return sorted(v.check_id for v in validator.violations if v.check_id.startswith("event.schema"))


def _without_logprobs() -> list[dict[str, Any]]:
    events = text_stream()
    without(events, find(events, "response.output_text.delta"), "logprobs")
    return without(events, find(events, "response.output_text.done"), "logprobs")


def _logprobs_a_string() -> list[dict[str, Any]]:
    return at(text_stream(), find(text_stream(), "response.output_text.delta"), "logprobs", "x")


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference"])
@pytest.mark.parametrize(
    ("build", "core", "openresponses"),
    [
        (_without_logprobs, [REQUIRED, REQUIRED], []),
        (_logprobs_a_string, [TYPE], [TYPE]),  # optional, still typed
        (text_stream, [], []),
    ],
)
def test_text_logprobs_by_profile(
    build: Any, core: list[str], openresponses: list[str], fast: bool
) -> None:
    assert _ids(build(), ("core",), fast=fast) == core
    assert _ids(build(), ("core", "openresponses"), fast=fast) == openresponses


def test_the_profile_picks_its_validator() -> None:
    assert StreamValidator()._schemas is SCHEMAS
    assert StreamValidator(profiles=("core", "openresponses"))._schemas is OPENRESPONSES_SCHEMAS
    assert OPENRESPONSES_SCHEMAS.relaxations[-len(OPENRESPONSES_RELAXATIONS) :] == (
        OPENRESPONSES_RELAXATIONS
    )
