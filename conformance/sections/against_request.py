"""The rules that judge an answer against the request it was given to, in one place for every
judge that has the request (the suite, the proxy, ``check`` on a cassette, the WebSocket session
validator, the examples): a custom tool's input against its grammar (§1.7) and the reasoning
state a request's ``include`` asked for (§4.7) and the logprobs it asked for (§7.8).

Each function returns the violations and the IDs of the checks it evaluated (what marks them
exercised).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog.registry import Check, Violation
from .s1_7_custom_input import (
    CUSTOM_INPUT_GRAMMAR,
    declares_grammar,
    judge_custom_inputs,
    judge_custom_inputs_of_body,
    judge_custom_inputs_of_stream,
)
from .s4_7_include import (
    ENCRYPTED_INCLUDED,
    asks_encrypted_reasoning,
    judge_included,
    judge_included_of_body,
    judge_included_of_stream,
)
from .s7_8_logprobs import (
    LOGPROBS_DELIVERED,
    asks_logprobs,
    judge_logprobs_of_body,
    judge_logprobs_of_items,
    judge_logprobs_of_stream,
)

__all__ = [
    "judge_body_against_request",
    "judge_item_against_request",
    "judge_stream_against_request",
    "judged_against_request",
]

_Judged = tuple[list[Violation], set[str]]
_Judge = Callable[[Any, Any], tuple[list[Violation], bool]]


@dataclass(frozen=True, slots=True)
class _Rule:
    asks: Callable[[Any], bool]
    stream: _Judge  # (request, events)
    body: _Judge  # (request, body)
    items: _Judge  # (request, [(event index, path, item)])
    check: Check


_RULES = (
    _Rule(
        declares_grammar,
        judge_custom_inputs_of_stream,
        judge_custom_inputs_of_body,
        judge_custom_inputs,
        CUSTOM_INPUT_GRAMMAR,
    ),
    _Rule(
        asks_encrypted_reasoning,
        judge_included_of_stream,
        judge_included_of_body,
        judge_included,
        ENCRYPTED_INCLUDED,
    ),
    _Rule(
        asks_logprobs,
        judge_logprobs_of_stream,
        judge_logprobs_of_body,
        judge_logprobs_of_items,
        LOGPROBS_DELIVERED,
    ),
)


def judged_against_request(request: Any) -> bool:
    """Whether any rule judges the answer to ``request`` against it (a cheap test before a
    stream's events are decoded again)."""
    return any(rule.asks(request) for rule in _RULES)


def _run(request: Any, which: str, data: Any) -> _Judged:
    violations: list[Violation] = []
    applied: set[str] = set()
    for rule in _RULES:
        if rule.asks(request):
            judge: _Judge = getattr(rule, which)
            found, judged = judge(request, data)
            violations += found
            if judged:
                applied.add(rule.check.id)
    return violations, applied


def judge_stream_against_request(request: Any, events: Iterable[Any]) -> _Judged:
    """A stream's events against the request that created it."""
    return _run(request, "stream", list(events))


def judge_body_against_request(request: Any, body: Any) -> _Judged:
    """A non-stream (or retrieved) Response against the request that created it."""
    return _run(request, "body", body)


def judge_item_against_request(request: Any, item: Mapping[str, Any], index: int | None) -> _Judged:
    """One finished item (a WebSocket lane's ``output_item.done``) against its request."""
    return _run(request, "items", [(index, "item", item)])
