"""§4.7 Stateless reasoning and include (docs/spec.md#s4-7):
``response.reasoning.encrypted_content_included``.

A request whose ``include`` lists ``reasoning.encrypted_content`` (how Codex CLI always calls,
with ``store: false``) is answered with each reasoning item's opaque state: a non-empty
``encrypted_content`` string on every finished reasoning item — a stream's
``output_item.done`` items (what a client keeps as history) and a non-stream Response's
``output``. Null, ``""`` or a missing field there leaves the client nothing to send back, and its
next turn loses the reasoning. Only a judge that sees the request and its answer together can
tell: the live suite, the proxy and ``check`` on a cassette. An item still ``in_progress`` or cut
``incomplete`` is not judged (its state may be unfinished).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.registry import Level, Violation, register

__all__ = [
    "ENCRYPTED_INCLUDED",
    "asks_encrypted_reasoning",
    "declare_examples",
    "judge_included",
]

ENCRYPTED_INCLUDED = register(
    "response.reasoning.encrypted_content_included",
    Level.MUST,
    '§4.7 [OAPI] Includable (`reasoning.encrypted_content`: "includes an encrypted version of '
    'reasoning tokens in reasoning item outputs"); [REC] pydantic-ai cassettes (every reasoning '
    "item of a request that asked carries one)",
    "a response to a request whose `include` lists `reasoning.encrypted_content` carries a "
    "non-empty `encrypted_content` string on every finished reasoning item",
)
_INCLUDE = "reasoning.encrypted_content"
_CUT = frozenset({"in_progress", "incomplete"})
_Item = tuple[int | None, str, Mapping[str, Any]]  # (event index, path, item)


def asks_encrypted_reasoning(request: Any) -> bool:
    """Whether the request's ``include`` lists ``reasoning.encrypted_content``."""
    include = request.get("include") if isinstance(request, Mapping) else None
    return isinstance(include, list) and _INCLUDE in include


def _show(item: Mapping[str, Any]) -> str:
    if "encrypted_content" not in item:
        return "absent"
    value = item["encrypted_content"]
    return '""' if value == "" else "null" if value is None else repr(value)[:60]


def judge_included(
    request: Any, items: Iterable[_Item], *, response_cut: bool = False
) -> tuple[list[Violation], bool]:
    """The violations among ``items`` (event index, path, item) and whether the rule judged a
    reasoning item (what marks it exercised)."""
    violations: list[Violation] = []
    judged = False
    if not asks_encrypted_reasoning(request):
        return violations, judged
    for index, path, item in items:
        if item.get("type") != "reasoning":
            continue
        status = item.get("status")
        if status in _CUT or (status is None and response_cut):
            continue
        judged = True
        value = item.get("encrypted_content")
        if isinstance(value, str) and value:
            continue
        violations.append(
            ENCRYPTED_INCLUDED.violation(
                expected="a non-empty `encrypted_content` string (the request's `include` "
                "lists `reasoning.encrypted_content`)",
                actual=_show(item),
                event_index=index,
                path=f"{path}.encrypted_content",
            )
        )
    return violations, judged


def declare_examples() -> None:
    """The failing example (null where asked for) and the passing near miss (the blob), each a
    stream with the request that asked."""
    from ..examples.build import at, find, reasoning_stream
    from ..examples.registry import Sample, example

    request = {
        "model": "gpt-5",
        "input": "Think, then say hi.",
        "store": False,
        "include": [_INCLUDE],
        "reasoning": {"effort": "low", "summary": "auto"},
    }

    def blob(value: Any) -> list[dict[str, Any]]:
        events = reasoning_stream()
        at(events, find(events, "response.output_item.done"), "item.encrypted_content", value)
        at(events, "response.completed", "response.output.0.encrypted_content", value)
        return events

    example(
        ENCRYPTED_INCLUDED.id,
        Sample(
            "stream",
            lambda: blob(None),
            "asked for with `include`, answered null (as without it)",
            request=request,
        ),
        Sample(
            "stream",
            lambda: blob("gAAAAABpRG9uZQ"),
            "the blob, as Codex sends back",
            request=request,
        ),
    )
