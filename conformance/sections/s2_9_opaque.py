"""§2.9 The output is the items — its opaque fields (docs/spec.md#s2-9):
``stream.output.opaque_consistent``.

``stream.output.equals_items`` compares the terminal output with the ``output_item.done`` items
field by field except the opaque ones (``encrypted_content`` of reasoning and compaction items,
``fingerprint``): OpenAI re-encrypts them between the two events, so in every real stream that
carries one the two values differ (25 of 25 items in /work/shared/corpus). Opaque values need no
interpretation, but they are not unchecked: where an item carries one (not null) in either its
``output_item.done`` or the terminal output, it carries a non-empty string in both. A client
that builds its history from ``output_item.done`` (Codex: codex-rs
``codex-api/src/sse/responses.rs`` turns only that event into ``ResponseEvent::OutputItemDone``,
``core/src/stream_events_utils.rs`` ``handle_output_item_done`` records that item) loses the reasoning state when the blob
is null or empty there and only the terminal response has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

# The opaque fields, in the order the rule reports them: the fields OpenAI itself changes between
# `output_item.done` and the terminal output (conformance.bodies.objects re-exports them).
_OPAQUE_FIELDS = ("encrypted_content", "fingerprint")
OPAQUE_FIELDS = frozenset(_OPAQUE_FIELDS)

__all__ = [
    "OPAQUE_CONSISTENT",
    "OPAQUE_FIELDS",
    "OpaqueState",
    "declare_examples",
    "deep_equal_except_opaque",
    "judge_opaque_pair",
]

OPAQUE_CONSISTENT = register(
    "stream.output.opaque_consistent",
    Level.MUST,
    "§2.9 [REC] (every recorded opaque value is a non-empty string in both places); codex-rs "
    "core/src/stream_events_utils.rs (history from `output_item.done`)",
    "an opaque field (`encrypted_content`, `fingerprint`) an item carries in its "
    "`output_item.done` or in the terminal output is a non-empty string in both (the values "
    "may differ: OpenAI re-encrypts)",
)


def deep_equal_except_opaque(a: Any, b: Any) -> bool:
    """Equality of JSON values, ignoring :data:`OPAQUE_FIELDS` at any depth (SPEC §2.9)."""
    if a == b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        keys = (a.keys() | b.keys()) - OPAQUE_FIELDS
        return all(k in a and k in b and deep_equal_except_opaque(a[k], b[k]) for k in keys)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(deep_equal_except_opaque(x, y) for x, y in zip(a, b, strict=True))
    return False


class OpaqueState(Protocol):
    """What the rule reads and writes of the stream validator."""

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def _blob(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _show(item: Mapping[str, Any], key: str) -> str:
    if key not in item:
        return "absent"
    value = item[key]
    if isinstance(value, str):
        return f"a string of {len(value)} characters" if value else '""'
    return "null" if value is None else repr(value)


def judge_opaque_pair(state: OpaqueState, done: Any, final: Any, index: int, path: str) -> None:
    """One item's ``output_item.done`` (``done``) against the same item in the terminal output
    (``final``, at ``path``)."""
    if not isinstance(done, Mapping) or not isinstance(final, Mapping):
        return
    for key in _OPAQUE_FIELDS:
        a, b = done.get(key), final.get(key)
        if a is None and b is None:
            continue  # not asked for: absent or null in both (§4.7)
        coverage = state.coverage
        if coverage is not None:
            coverage.applied.add(OPAQUE_CONSISTENT.id)
        if _blob(a) and _blob(b):
            continue
        state._report(
            OPAQUE_CONSISTENT,
            index,
            f"`{key}` a non-empty string in `output_item.done` and in the terminal output",
            f"{_show(done, key)} in `output_item.done`, {_show(final, key)} in the terminal output",
            path=f"{path}.{key}",
        )


def declare_examples() -> None:
    """The failing example (the blob only in the terminal output, null in the item's done
    event: what Codex loses) and the passing near miss (two different blobs, as OpenAI sends)."""
    from ..examples.build import at, find, reasoning_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    def blobs(done: Any, final: Any) -> list[dict[str, Any]]:
        events = reasoning_stream()
        at(events, find(events, "response.output_item.done"), "item.encrypted_content", done)
        at(events, "response.completed", "response.output.0.encrypted_content", final)
        return events

    example(
        OPAQUE_CONSISTENT.id,
        S(lambda: blobs(None, "gAAAAABpQ2xvc2Vk"), "the blob only in `response.completed`"),
        S(
            lambda: blobs("gAAAAABpRG9uZQ", "gAAAAABpQ2xvc2Vk"),
            "re-encrypted between the two, as every recorded stream",
        ),
    )
