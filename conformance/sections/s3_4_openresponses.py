"""§3.4 Open Responses (docs/spec.md#s3-4): ``response.openresponses.required_fields``.

[OR]'s ``ResponseResource`` requires more than [OAPI] (``completed_at``, ``status``,
``truncation``, the two penalties, …); OpenAI does not always send them, so they are required
only under the ``openresponses`` profile. ``user`` is not among them: the schema Open Responses'
own compliance tool validates with (``src/generated/kubb/zod/responseResourceSchema.ts``) has no
``user`` at all; only the later ``ResponseResource.json`` lists it. The profile requires what
every version of [OR] requires.

The rule, :func:`judge_openresponses_fields`, judges every Response object the judge sees under
the profile: each lifecycle event's ``response`` ([OR] types them all as ``ResponseResource``,
§7.10; the stream validator's lifecycle handler), a streamed terminal and a non-stream body (the
``ResponseChecker``). It marks the check applied where it judges one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..catalog.registry import Level, register

__all__ = [
    "OPENRESPONSES_FIELDS",
    "RESPONSE_OPENRESPONSES_FIELDS",
    "declare_examples",
    "judge_openresponses_fields",
    "openresponses_missing",
]

RESPONSE_OPENRESPONSES_FIELDS = register(
    "response.openresponses.required_fields",
    Level.MUST,
    "§3.4 [OR] ResponseResource",
    "Open Responses: the Response carries every field `ResponseResource` requires",
    profile="openresponses",
)
OPENRESPONSES_FIELDS = (
    "id",
    "object",
    "created_at",
    "completed_at",
    "status",
    "incomplete_details",
    "model",
    "previous_response_id",
    "instructions",
    "output",
    "error",
    "tools",
    "tool_choice",
    "truncation",
    "parallel_tool_calls",
    "text",
    "top_p",
    "presence_penalty",
    "frequency_penalty",
    "top_logprobs",
    "temperature",
    "reasoning",
    "usage",
    "max_output_tokens",
    "max_tool_calls",
    "store",
    "background",
    "service_tier",
    "metadata",
    "safety_identifier",
    "prompt_cache_key",
)
"""The [OR] ``ResponseResource`` fields every version of [OR] requires (SPEC §3.4)."""

Report = Callable[..., None]
"""``report(check, expected, actual, path)``: the caller's sink for one finding."""


def openresponses_missing(response: Mapping[str, Any]) -> list[str]:
    """The [OR] ``ResponseResource`` fields a Response object lacks (SPEC §3.4)."""
    return [k for k in OPENRESPONSES_FIELDS if k not in response]


def judge_openresponses_fields(
    response: Mapping[str, Any], report: Report, applied: set[str] | None = None
) -> None:
    """One Response object, under the ``openresponses`` profile (the caller asks only then)."""
    if applied is not None:
        applied.add(RESPONSE_OPENRESPONSES_FIELDS.id)
    missing = openresponses_missing(response)
    if missing:
        report(
            RESPONSE_OPENRESPONSES_FIELDS,
            "every ResponseResource field",
            "missing: " + ", ".join(missing),
            "",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples), under the
    profile."""
    from ..examples.body_samples import B, done, drop_key
    from ..examples.registry import example

    both = ("core", "openresponses")
    example(
        RESPONSE_OPENRESPONSES_FIELDS.id,
        B(drop_key("safety_identifier"), "no `safety_identifier`", profiles=both),
        B(done, profiles=both),
    )
