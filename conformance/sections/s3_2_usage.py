"""§3.2 Usage accounting (docs/spec.md#s3-2): ``usage.*``.

A ``completed`` or ``incomplete`` Response carries ``usage`` with both detail objects; every
count is an integer ≥ 0; ``total = input + output``; ``cached ≤ input``; ``reasoning ≤ output``;
``output_tokens ≥ 1`` when the output shows generated tokens (the exceptions real traffic shows
are §7.2's); ``output_tokens ≤ max_output_tokens`` for one generation (§7.3).

The rule, :func:`judge_usage`, judges one Response object: a streamed terminal response (the
stream validator's ``ResponseChecker``), a non-stream body, and a compaction result
(conformance.bodies.state, which holds no generated output). It marks the checks it evaluated in
``applied`` where it evaluates them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

from ..catalog.registry import Check, Level, register
from ..catalog.render import short

__all__ = [
    "USAGE_CACHED_LE_INPUT",
    "USAGE_DETAILS",
    "USAGE_INTEGERS",
    "USAGE_MAX_OUTPUT",
    "USAGE_OUTPUT_NONZERO",
    "USAGE_PRESENT",
    "USAGE_REASONING_LE_OUTPUT",
    "USAGE_TOTAL",
    "declare_examples",
    "judge_usage",
]

USAGE_PRESENT = register(
    "usage.present",
    Level.MUST,
    "§3.2",
    "`usage` is present on a `completed` or `incomplete` response",
)
USAGE_DETAILS = register(
    "usage.details_present",
    Level.MUST,
    "§3.2",
    "`usage` has `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`",
)
USAGE_INTEGERS = register(
    "usage.integers",
    Level.MUST,
    "§3.2",
    "every usage count is an integer ≥ 0",
)
USAGE_TOTAL = register(
    "usage.total",
    Level.MUST,
    "§3.2",
    "`total_tokens = input_tokens + output_tokens`",
)
USAGE_CACHED_LE_INPUT = register(
    "usage.cached_le_input",
    Level.MUST,
    "§3.2",
    "`cached_tokens ≤ input_tokens`",
)
USAGE_REASONING_LE_OUTPUT = register(
    "usage.reasoning_le_output",
    Level.MUST,
    "§3.2",
    "`reasoning_tokens ≤ output_tokens`",
)
USAGE_OUTPUT_NONZERO = register(
    "usage.output_nonzero",
    Level.MUST,
    "§3.2, §7.2",
    "`output_tokens ≥ 1` when the output shows generated tokens: message text (but in a "
    "content-filter stop), reasoning (but in a `max_output_tokens` cut-off), a call the model "
    "issued (but an unmetered batch of parallel function calls)",
)
USAGE_MAX_OUTPUT = register(
    "usage.max_output_tokens",
    Level.MUST,
    "§3.2, §7.3",
    "`output_tokens ≤ max_output_tokens` when it is set, for one generation (`reasoning.mode` "
    "`standard` or absent; `pro` runs several)",
)
# What a usage object gives work to, whatever the output.
_ACCOUNTS = (
    USAGE_DETAILS,
    USAGE_INTEGERS,
    USAGE_TOTAL,
    USAGE_CACHED_LE_INPUT,
    USAGE_REASONING_LE_OUTPUT,
)

Report = Callable[..., None]
"""``report(check, expected, actual, path, message="")``: the caller's sink for one finding."""


def _is_count(value: Any) -> TypeGuard[int]:
    return type(value) is int and value >= 0


def judge_usage(
    response: Mapping[str, Any],
    status: Any,
    items: list[Any],
    report: Report,
    *,
    max_output_tokens: int | None = None,
    applied: set[str] | None = None,
) -> None:
    """One Response's ``usage`` against its ``status``, its output ``items`` and the limit (the
    one it echoes, else the request's ``max_output_tokens``); the checks evaluated go into
    ``applied`` when given."""

    def mark(*checks: Check) -> None:
        if applied is not None:
            applied.update(c.id for c in checks)

    usage = response.get("usage")
    if status in ("completed", "incomplete"):
        mark(USAGE_PRESENT)
    if status in ("completed", "incomplete") and not isinstance(usage, dict):
        report(USAGE_PRESENT, "a usage object", short(usage), "usage", f"status is {status!r}")
        return
    if not isinstance(usage, dict):
        return
    mark(*_ACCOUNTS)
    inp, outp, total = (
        usage.get("input_tokens"),
        usage.get("output_tokens"),
        usage.get("total_tokens"),
    )
    in_details = usage.get("input_tokens_details")
    out_details = usage.get("output_tokens_details")
    cached = in_details.get("cached_tokens") if isinstance(in_details, dict) else None
    reasoning = out_details.get("reasoning_tokens") if isinstance(out_details, dict) else None
    if cached is None or reasoning is None:
        missing = []
        if cached is None:
            missing.append("input_tokens_details.cached_tokens")
        if reasoning is None:
            missing.append("output_tokens_details.reasoning_tokens")
        report(
            USAGE_DETAILS,
            "both *_details objects with their counts",
            "missing: " + ", ".join(missing),
            "usage",
        )
    counts = {
        "input_tokens": inp,
        "output_tokens": outp,
        "total_tokens": total,
        "input_tokens_details.cached_tokens": cached,
        "output_tokens_details.reasoning_tokens": reasoning,
    }
    bad = {k: v for k, v in counts.items() if v is not None and not _is_count(v)}
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        if counts[key] is None:
            bad[key] = None
    for key, value in bad.items():
        report(USAGE_INTEGERS, "an integer ≥ 0", short(value), f"usage.{key}")
    if _is_count(inp) and _is_count(outp) and _is_count(total) and total != inp + outp:
        report(USAGE_TOTAL, f"{inp} + {outp} = {inp + outp}", total, "usage.total_tokens")
    if _is_count(cached) and _is_count(inp) and cached > inp:
        report(
            USAGE_CACHED_LE_INPUT,
            f"≤ {inp}",
            cached,
            "usage.input_tokens_details.cached_tokens",
        )
    if _is_count(reasoning) and _is_count(outp) and reasoning > outp:
        report(
            USAGE_REASONING_LE_OUTPUT,
            f"≤ {outp}",
            reasoning,
            "usage.output_tokens_details.reasoning_tokens",
        )
    if any(isinstance(item, dict) for item in items):
        mark(USAGE_OUTPUT_NONZERO)  # output to account for
    if _is_count(outp) and outp == 0:
        evidence = _generated_output(items, response, metered=total != 0)
        if evidence:
            report(
                USAGE_OUTPUT_NONZERO,
                "output_tokens ≥ 1",
                0,
                "usage.output_tokens",
                f"the model generated {evidence}",
            )
    echoed = response.get("max_output_tokens")
    limit = echoed if type(echoed) is int else max_output_tokens
    if limit is not None and _one_generation(response):
        mark(USAGE_MAX_OUTPUT)
    if limit is not None and _is_count(outp) and outp > limit and _one_generation(response):
        report(USAGE_MAX_OUTPUT, f"≤ max_output_tokens ({limit})", outp, "usage.output_tokens")


# Output items the model writes, besides messages and reasoning: the calls it issues (their
# arguments, queries, commands, patches and code are generated tokens). Results the server or the
# client produces (`*_output`, `mcp_list_tools`, `compaction`) are not evidence.
_MODEL_ISSUED = frozenset({"mcp_approval_request", "program"})


def _incomplete_reason(response: Mapping[str, Any]) -> Any:
    details = response.get("incomplete_details")
    if response.get("status") != "incomplete" or not isinstance(details, dict):
        return None
    return details.get("reason")


def _generated_output(items: list[Any], response: Mapping[str, Any], *, metered: bool) -> str:
    """What in ``output`` proves the model generated tokens that `output_tokens: 0` denies
    (docs/spec.md §7.2), or "" if nothing does.

    - A message with text or a refusal — unless the response ended `incomplete` for
      `content_filter`: the filter withholds the accounting, and OpenAI (Azure) reports usage
      all zero with the refusal text it put in the message ([REC2] ``mirascope…test_refusal.
      azure-openai_responses_gpt_4o_mini.*``); nor when it was cut by `max_output_tokens` and
      the usage is all zero, input included: that cut withheld the accounting the same way
      (held-back real traffic, issue #32: text streamed, usage all zero). Input counted and
      output 0 beside the cut text is still a miss.
    - A reasoning item, even without summary text (reasoning tokens are output tokens:
      `max_output_tokens` counts them) — unless the response was cut off by `max_output_tokens`:
      OpenAI reports `output_tokens: 0` for reasoning interrupted by the cut-off ([REC2]
      ``mirascope…test_max_tokens.openai_gpt_5_mini.*``, input counted, output 0).
    - A call the model issued — a function call and every other `*_call` item (shell, patch,
      search, MCP, …). A call issued by a program (``caller.type: "program"``), not by the model,
      proves nothing ([REC] ``programmatic-tool-calling.2``: usage all zero). Nor does a batch of
      parallel function calls that is the whole output when the usage is all zero, input
      included — OpenAI did not meter that turn at all ([REC2]
      ``pai…test_openai_responses_model_retry.0``: two parallel `get_location` calls, gpt-4o,
      2025-03); a single call, or calls beside other output, with usage zero is still a miss.

    What OpenAI's traffic never shows — and a server that does is miscounting (KB11) — is
    `output_tokens: 0` with message text outside a content filter, with reasoning in a response
    that was not cut off, or with a model-issued call other than an unmetered parallel batch.
    """
    reason = _incomplete_reason(response)
    if not metered and _parallel_calls_only(items, response):
        return ""
    for item in items:
        if not isinstance(item, dict):
            continue
        itype = item.get("type")
        if itype == "message":
            if reason == "content_filter" or (reason == "max_output_tokens" and not metered):
                continue
            for part in item.get("content") or ():
                if isinstance(part, dict) and (part.get("text") or part.get("refusal")):
                    return "message text"
        elif itype == "reasoning":
            if reason != "max_output_tokens":
                return "a reasoning item"
        elif isinstance(itype, str) and (itype.endswith("_call") or itype in _MODEL_ISSUED):
            caller = item.get("caller")
            if isinstance(caller, dict) and caller.get("type") == "program":
                continue
            return f"a {itype} item"
    return ""


def _parallel_calls_only(items: list[Any], response: Mapping[str, Any]) -> bool:
    """The output is two or more function calls and nothing else, made in parallel."""
    return (
        response.get("parallel_tool_calls") is True
        and len(items) >= 2
        and all(isinstance(it, dict) and it.get("type") == "function_call" for it in items)
    )


def _one_generation(response: Mapping[str, Any]) -> bool:
    """`max_output_tokens` bounds one generation; a reasoning mode other than `standard`
    (OpenAI's `pro`) runs several and reports all their tokens, beyond the bound
    (docs/spec.md §7.3; [REC2] ``pai…test_reasoning_flags_match_the_api_gpt-5.6-*.3``:
    `max_output_tokens: 16`, `output_tokens` 48 and 82, `status: completed`)."""
    reasoning = response.get("reasoning")
    mode = reasoning.get("mode") if isinstance(reasoning, dict) else None
    return mode in (None, "standard")


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples): a
    completed non-stream Response holding one message, one field changed."""
    from ..examples.body_samples import B, done, drop_key, edit
    from ..examples.build import usage
    from ..examples.registry import example

    example(
        USAGE_PRESENT.id,
        B(edit("usage", None), "a completed response with `usage: null`"),
        B(done),
    )
    example(
        USAGE_DETAILS.id,
        B(drop_key("usage.output_tokens_details"), "KB12"),
        B(done),
        also={"response.schema.required"},
    )
    example(
        USAGE_INTEGERS.id,
        B(edit("usage.input_tokens", 5.5)),
        B(done),
        also={"response.schema.type"},
    )
    example(USAGE_TOTAL.id, B(edit("usage.total_tokens", 8)), B(done))
    example(
        USAGE_CACHED_LE_INPUT.id,
        B(edit("usage", usage(5, 2, cached=6))),
        B(edit("usage", usage(5, 2, cached=5))),
    )
    example(
        USAGE_REASONING_LE_OUTPUT.id,
        B(edit("usage", usage(5, 2, reasoning=3))),
        B(edit("usage", usage(5, 2, reasoning=2))),
    )
    example(
        USAGE_OUTPUT_NONZERO.id,
        B(edit("usage", usage(0, 0)), "usage all zero on a response with text (KB11)"),
        B(edit("usage", usage(5, 1))),
    )
    example(
        USAGE_MAX_OUTPUT.id,
        B(edit("usage", usage(5, 17), max_output_tokens=16), "17 output tokens, the limit 16"),
        B(edit("usage", usage(5, 16), max_output_tokens=16)),
    )
