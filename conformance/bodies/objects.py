"""Checks on whole objects: a Response (streamed terminal or non-stream body) and an error body
(whose rule is :mod:`conformance.sections.s4_4_errors`'s).

:class:`ResponseChecker` holds the rules of SPEC §3 that concern one Response object — status and
its companions (`incomplete_details`, `error`) and the usage-accounting decision (whose rules
are :mod:`conformance.sections.s3_1_response`'s and :mod:`conformance.sections.s3_2_usage`'s),
items that end `incomplete`, part types, the logprobs of a part (whose rule is
:mod:`conformance.sections.s7_8_logprobs`'s) — shared by the stream validator (on the terminal event)
and by the offline check of non-stream bodies. Schema conformance is :mod:`conformance.schema`'s job.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.registry import Check, Violation
from ..schema import SCHEMAS, SchemaValidator
from ..sections.s2_9_opaque import OPAQUE_FIELDS as OPAQUE_FIELDS
from ..sections.s2_9_opaque import deep_equal_except_opaque as deep_equal_except_opaque
from ..sections.s2_10_incomplete_last import judge_incomplete_item
from ..sections.s2_11_part_fits import PART_FITS, judge_part, note_content
from ..sections.s3_1_response import judge_response_schema, judge_status
from ..sections.s3_2_usage import judge_usage
from ..sections.s3_4_openresponses import judge_openresponses_fields
from ..sections.s4_4_errors import judge_error_body
from ..sections.s5_limits import too_deep_to_follow
from ..sections.s7_7_item_status import judge_item_status
from ..sections.s7_8_logprobs import logprob_findings, top_logprobs_limit

__all__ = [
    "OPAQUE_FIELDS",
    "ResponseChecker",
    "deep_equal_except_opaque",
    "validate_error_body",
    "validate_response_body",
]

# SPEC §2.9: fields OpenAI itself changes between `output_item.done` and the terminal output,
# and the equality that exempts them: conformance.sections.s2_9_opaque.


class ResponseChecker:
    """The per-Response rules of SPEC §3 (status companions, usage accounting, item status)."""

    def __init__(
        self,
        *,
        profiles: Iterable[str] = ("core",),
        max_output_tokens: int | None = None,
        applied: set[str] | None = None,
    ) -> None:
        self.profiles = frozenset(profiles)
        self.max_output_tokens = max_output_tokens
        # Where the section rules called from here mark the checks they evaluated (the stream
        # validator's coverage, a suite's or proxy's record); None: nobody asked.
        self.applied = applied

    def check(
        self, response: Mapping[str, Any], *, event_index: int | None = None, path: str = ""
    ) -> list[Violation]:
        out: list[Violation] = []
        prefix = f"{path}." if path else ""

        def report(check: Check, expected: Any, actual: Any, where: str, message: str = "") -> None:
            if check.profile != "core" and check.profile not in self.profiles:
                return
            out.append(
                check.violation(
                    expected=expected,
                    actual=actual,
                    event_index=event_index,
                    path=prefix + where,
                    message=message,
                )
            )

        status = response.get("status")
        judge_status(response, report, self.applied)

        output = response.get("output")
        items = output if isinstance(output, list) else []
        top = top_logprobs_limit(response)
        for pos, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            itype = item.get("type")
            judge_incomplete_item(status, pos, len(items), item, report, self.applied)  # §2.10
            judge_item_status(status, pos, item, report, self.applied)
            content = item.get("content")
            note_content(content, self.applied)  # §2.11 (conformance.sections)
            fits = PART_FITS.get(itype) if isinstance(itype, str) else None
            if fits is not None and isinstance(content, list):
                for ci, part in enumerate(content):
                    if not judge_part(fits, pos, ci, part, report):  # §2.11
                        continue
                    if part["type"] == "output_text":
                        where = f"output[{pos}].content[{ci}].logprobs"
                        logprobs = part.get("logprobs")
                        for finding in logprob_findings(logprobs, top, where, self.applied):
                            report(*finding)

        judge_usage(
            response,
            status,
            items,
            report,
            max_output_tokens=self.max_output_tokens,
            applied=self.applied,
        )

        if "openresponses" in self.profiles:
            judge_openresponses_fields(response, report, self.applied)
        return out


def validate_response_body(
    body: Mapping[str, Any],
    *,
    profiles: Iterable[str] = ("core",),
    schemas: SchemaValidator | None = None,
    max_output_tokens: int | None = None,
    applied: set[str] | None = None,
) -> list[Violation]:
    """A non-stream Response object: schema, then the per-Response rules (the section rules
    among them mark the checks they evaluated in ``applied``, when given)."""
    profiles = frozenset(profiles)
    out: list[Violation] = []
    try:
        out += judge_response_schema(body, schemas or SCHEMAS, applied)
        checker = ResponseChecker(
            profiles=profiles, max_output_tokens=max_output_tokens, applied=applied
        )
        out.extend(checker.check(body))
    except RecursionError:
        out.append(too_deep_to_follow())  # §5 (conformance.sections)
    return out


def validate_error_body(
    body: Mapping[str, Any],
    *,
    schemas: SchemaValidator | None = None,
    applied: set[str] | None = None,
) -> list[Violation]:
    """An error body: ``{"error": {message, type, param, code}}`` with ``code`` string or null
    (the rule is :mod:`conformance.sections.s4_4_errors`'s; it marks what it evaluated in
    ``applied``, when given)."""
    try:
        return judge_error_body(body, schemas or SCHEMAS, applied)
    except RecursionError:
        return [too_deep_to_follow()]  # §5 (conformance.sections)
