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

The suite's case ``openresponses/openresponses_stream_and_body`` makes sure a target that
declares the profile is seen streaming and answering once each (the framing checks of §1.1 and
this one, applied to every answer). Live, a user message holding an ``input_image`` with a base64
data URL is accepted and answered (``live.openresponses.image_input``; [OR]
``InputImageContentParamAutoParam``, llm-comply's ``image-input``): its rule is the case below
(:mod:`.cases`), its failing example a text-only server (tests/suite/broken_servers.py), its near
miss the embedded mock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, register
from .case_support import SHORT_PROMPT
from .cases import case
from .s1_1_framing import SSE_DONE_REQUIRED, SSE_EVENT_NAME_REQUIRED, SSE_ID_ABSENT

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "OPENRESPONSES_FIELDS",
    "OPENRESPONSES_IMAGE_INPUT",
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
OPENRESPONSES_IMAGE_INPUT = register(
    "live.openresponses.image_input",
    Level.MUST,
    "§3.4 [OR] InputImageContentParamAutoParam (`image_url` a data URL); llm-comply 0.5.0 "
    "`image-input`",
    "a create whose user message holds an `input_image` with a base64 data URL is accepted and "
    "answered (200, a completed Response with output)",
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
    profile; the live check's failing example is a misbehaving server, its near miss the mock."""
    from ..examples.body_samples import B, done, drop_key
    from ..examples.live import live
    from ..examples.registry import example

    both = ("core", "openresponses")
    example(
        RESPONSE_OPENRESPONSES_FIELDS.id,
        B(drop_key("safety_identifier"), "no `safety_identifier`", profiles=both),
        B(done, profiles=both),
    )
    live(
        OPENRESPONSES_IMAGE_INPUT.id,
        "image_input_refused",
        "a text-only server that answers 400 to an `input_image` data URL",
    )


# --- the cases (an answer of each kind seen; the rule of live.openresponses.image_input) -------

OPENRESPONSES = ("openresponses",)


@case(
    "openresponses", SSE_DONE_REQUIRED, SSE_EVENT_NAME_REQUIRED, SSE_ID_ABSENT,
    RESPONSE_OPENRESPONSES_FIELDS, profiles=OPENRESPONSES,
)  # fmt: skip
def test_openresponses_stream_and_body(probe: Probe) -> None:
    probe.create_stream(probe.body(input=SHORT_PROMPT))
    probe.create(probe.body(input=SHORT_PROMPT))


# A 1x1 PNG, one red pixel (69 bytes), as a data URL.
RED_PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
    "/pLvAAAAAElFTkSuQmCC"
)


@case("openresponses", OPENRESPONSES_IMAGE_INPUT, profiles=OPENRESPONSES)
def test_image_input_data_url(probe: Probe) -> None:
    # [OR] InputImageContentParamAutoParam: `image_url` "a fully qualified URL or base64 encoded
    # image in a data URL"; llm-comply's `image-input` test sends one and wants a completed
    # Response with output (docs/spec.md §3.4).
    content = [
        {"type": "input_text", "text": "What colour is this one-pixel image? One word."},
        {"type": "input_image", "image_url": RED_PIXEL},
    ]
    check = OPENRESPONSES_IMAGE_INPUT
    body = probe.create(probe.body(input=[{"role": "user", "content": content}]), check=check)
    output = body.get("output")
    probe.check(
        check, body.get("status") == "completed" and isinstance(output, list) and bool(output),
        expected="a completed Response holding output",
        actual=f"status {body.get('status')!r}, output {str(output)[:120]}",
    )  # fmt: skip
