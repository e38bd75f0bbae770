"""The rules that judge an answer against the request it was given to, in one place for every
judge that has the request (the suite, the proxy, ``check`` on a cassette, the WebSocket session
validator, the examples): a custom tool's input against its grammar (§1.7), the reasoning
state a request's ``include`` asked for (§4.7) and the log probabilities it asked for (§7.8).

Each function returns the violations and the IDs of the checks it evaluated (what marks them
exercised).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..catalog.registry import Check, Violation
from .s1_7_custom_input import CUSTOM_INPUT_GRAMMAR, declares_grammar, judge_custom_inputs
from .s4_7_include import ENCRYPTED_INCLUDED, asks_encrypted_reasoning, judge_included
from .s7_8_logprobs import (
    LOGPROBS_DELIVERED,
    asks_logprobs,
    judge_logprobs_of_items,
    judge_logprobs_of_stream,
)

__all__ = [
    "judge_body_against_request",
    "judge_item_against_request",
    "judge_stream_against_request",
    "judged_against_request",
    "judged_in_body",
    "judged_in_stream",
]

_Judged = tuple[list[Violation], set[str]]
_Item = tuple[int | None, str, Mapping[str, Any]]  # (event index, path, item)


class ItemsJudge(Protocol):
    """A section's rule over an answer's finished items (``judge_custom_inputs``,
    ``judge_included``): the violations, and whether it judged any item."""

    def __call__(
        self, request: Any, items: Iterable[_Item], *, response_cut: bool = False
    ) -> tuple[list[Violation], bool]: ...


StreamJudge = Callable[[Any, list[Any]], tuple[list[Violation], bool]]


@dataclass(frozen=True, slots=True)
class _Rule:
    asks: Callable[[Any], bool]
    judge: ItemsJudge
    check: Check
    # A rule that reads more of a stream than its finished items (the deltas' own fields);
    # None: the stream is judged by its finished items (``judged_in_stream``).
    stream: StreamJudge | None = None


_RULES = (
    _Rule(declares_grammar, judge_custom_inputs, CUSTOM_INPUT_GRAMMAR),
    _Rule(asks_encrypted_reasoning, judge_included, ENCRYPTED_INCLUDED),
    _Rule(asks_logprobs, judge_logprobs_of_items, LOGPROBS_DELIVERED, judge_logprobs_of_stream),
)


def judged_in_body(judge: ItemsJudge, request: Any, body: Any) -> tuple[list[Violation], bool]:
    """``judge`` on a non-stream (or retrieved) Response's output items."""
    if not isinstance(body, Mapping) or not isinstance(body.get("output"), list):
        return [], False
    items = [
        (None, f"output[{i}]", item)
        for i, item in enumerate(body["output"])
        if isinstance(item, Mapping)
    ]
    return judge(request, items, response_cut=body.get("status") == "incomplete")


def judged_in_stream(
    judge: ItemsJudge, request: Any, events: Iterable[Any]
) -> tuple[list[Violation], bool]:
    """``judge`` on a stream's finished items (``response.output_item.done``)."""
    events = list(events)
    cut = any(isinstance(e, Mapping) and e.get("type") == "response.incomplete" for e in events)
    return judge(request, _done_items(events), response_cut=cut)


def _done_items(events: list[Any]) -> Iterator[_Item]:
    for index, event in enumerate(events):
        if isinstance(event, Mapping) and event.get("type") == "response.output_item.done":
            item = event.get("item")
            if isinstance(item, Mapping):
                yield index, "item", item


def judged_against_request(request: Any) -> bool:
    """Whether any rule judges the answer to ``request`` against it (a cheap test before a
    stream's events are decoded again)."""
    return any(rule.asks(request) for rule in _RULES)


def _run(request: Any, which: str, data: Any) -> _Judged:
    violations: list[Violation] = []
    applied: set[str] = set()
    for rule in _RULES:
        if rule.asks(request):
            if which == "stream" and rule.stream is not None:
                found, judged = rule.stream(request, data)
            elif which == "stream":
                found, judged = judged_in_stream(rule.judge, request, data)
            elif which == "body":
                found, judged = judged_in_body(rule.judge, request, data)
            else:
                found, judged = rule.judge(request, data)
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
