"""What the suite's cases share (:mod:`.cases`): prompts, tool declarations, schemas and small
comparisons."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..suite import answers as A
from .s2_9_opaque import deep_equal_except_opaque

if TYPE_CHECKING:
    from ..catalog.registry import Check
    from ..suite.http import HttpExchange
    from ..suite.probe import Probe

__all__ = [
    "LONG_PROMPT",
    "SHORT_PROMPT",
    "TERMINAL",
    "TIME_TOOL",
    "WEATHER_TOOL",
    "answered_with_a_message",
    "differing_fields",
    "poll_until_terminal",
    "repeats_the_code_word",
    "schema_errors",
]

SHORT_PROMPT = "In one short sentence: what colour is a clear daytime sky?"
LONG_PROMPT = (
    "Write a detailed story of at least 600 words about a lighthouse keeper who finds a message "
    "in a bottle. Do not stop early."
)
TERMINAL = frozenset({"completed", "incomplete", "failed", "cancelled"})

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
    "strict": True,
}
TIME_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_time",
    "description": "Get the current local time in an IANA time zone.",
    "parameters": {
        "type": "object",
        "properties": {"timezone": {"type": "string", "description": "e.g. Europe/Paris"}},
        "required": ["timezone"],
        "additionalProperties": False,
    },
    "strict": True,
}


def schema_errors(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """Why ``value`` is not valid for the JSON Schema ``schema`` (empty when it is)."""
    import jsonschema  # the cases' only use of it: the judge does not load it

    validator = jsonschema.Draft202012Validator(schema)
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
        for e in validator.iter_errors(value)
    ][:5]


def differing_fields(
    a: Mapping[str, Any], b: Mapping[str, Any], *, extra_in_b: bool = False
) -> list[str]:
    """Top-level fields whose values differ (opaque fields exempt, SPEC §2.9). ``extra_in_b``: a
    field only ``b`` has is no difference — a retrieve may add what the create's Response lacked
    (OpenAI's retrieve adds ``billing``, which its streamed Response never has: [REC]
    tests/data/cassettes/pydantic-ai/test_background_mode_streaming_continuation_vcr.yaml,
    docs/spec.md §4.1)."""
    keys = a.keys() if extra_in_b else a.keys() | b.keys()
    return sorted(
        k for k in keys if k not in a or k not in b or not deep_equal_except_opaque(a[k], b[k])
    )


def poll_until_terminal(
    probe: Probe, response_id: str, *, interval: float = 0.02
) -> tuple[list[str], dict[str, Any] | None]:
    """GET the response until its status is terminal or the target's timeout passes; returns the
    statuses seen and the last body (``None`` if a GET failed)."""
    deadline = time.monotonic() + probe.target.timeout
    statuses: list[str] = []
    while True:
        ex = probe.send("GET", f"/responses/{response_id}")
        if not ex.ok:
            return statuses, None
        status = str(ex.json.get("status"))
        statuses.append(status)
        if status in TERMINAL or time.monotonic() > deadline:
            return statuses, ex.json
        time.sleep(interval)
        interval = min(interval * 2, 0.5)


def answered_with_a_message(
    probe: Probe, check: Check, response: dict[str, Any], *, called_again: bool
) -> None:
    """The turn that hands the model a tool's output (``probe.last``): a new call to the tool
    (``called_again``) is the model's miss, retried; otherwise the response completes with a
    message."""
    probe.nondeterministic(
        not called_again, "the model called the tool again instead of answering",
        check=check, exchange=probe.last,
        expected="a message using the tool's output", actual=f"output {A.output_types(response)}",
    )  # fmt: skip
    probe.check(
        check,
        response.get("status") == "completed" and bool(A.output_text(response).strip()),
        probe.last, expected="status completed with a message",
        actual=f"status {response.get('status')!r}, output {A.output_types(response)}",
    )  # fmt: skip


def repeats_the_code_word(
    probe: Probe, check: Check, word: str, text: str, exchange: HttpExchange | None, where: str
) -> None:
    """A turn that asks for a code word told earlier (``where``: "from two turns back"): an
    answer without it is the model's miss, retried, until the attempts run out."""
    probe.nondeterministic(
        word.lower() in text.lower(), "the model did not repeat the code word",
        check=check, exchange=exchange,
        expected=f"the code word {word!r} {where}", actual=text[:200],
    )  # fmt: skip
