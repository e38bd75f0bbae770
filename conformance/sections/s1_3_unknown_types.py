"""§1.3 Unknown event types (docs/spec.md#s1-3): ``event.type.known``,
``event.type.nonstandard``, ``event.type.openresponses``.

An event type outside OpenAI's documented union is reported, at INFO: OpenAI itself sends some
([REC]), and a client skips what it does not know. Names known to be wrong are a SHOULD: vLLM's
``response.reasoning_part.*`` for what OpenAI sends as ``content_part.*`` with a
``reasoning_text`` part (KB24) reaches no client's handler. Under the ``openresponses`` profile
every type is one the Open Responses spec defines or carries its implementor's prefix
(``acme:trace_event``).

The stream validator looks each event's type up in its tables (a compiled schema predicate for
every documented type; the fast path only takes types it documents) and calls the rules here for
a type it did not find; :func:`note_typed` marks the checks applied on every typed event the
validator judges in full.
"""

from __future__ import annotations

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "EVENT_TYPE_KNOWN",
    "EVENT_TYPE_NONSTANDARD",
    "EVENT_TYPE_OPENRESPONSES",
    "declare_examples",
    "judge_nonstandard",
    "judge_not_openresponses",
    "judge_unknown",
    "note_typed",
]

EVENT_TYPE_KNOWN = register(
    "event.type.known",
    Level.INFO,
    "§1.3",
    "event types outside OpenAI's documented union are reported (OpenAI itself sends some)",
)
EVENT_TYPE_NONSTANDARD = register(
    "event.type.nonstandard",
    Level.SHOULD,
    "§1.3, decision; KB24",
    "event names known to be wrong (e.g. `response.reasoning_part.added`) are not used",
)
EVENT_TYPE_OPENRESPONSES = register(
    "event.type.openresponses",
    Level.MUST,
    "§1.3, §7.10 [OR]",
    "Open Responses: every event type is one the Open Responses spec defines, or an extension "
    "prefixed with its implementor's slug (`acme:trace_event`)",
    profile="openresponses",
)

_APPLIED = frozenset({EVENT_TYPE_KNOWN.id, EVENT_TYPE_NONSTANDARD.id})
_APPLIED_OPENRESPONSES = _APPLIED | {EVENT_TYPE_OPENRESPONSES.id}


def judge_unknown(report: _Report, etype: str, index: int) -> None:
    """A type in no documented union and not a known wrong name."""
    report(EVENT_TYPE_KNOWN, index, "a documented event type", etype)


def judge_nonstandard(report: _Report, etype: str, index: int) -> None:
    """A type known to be a wrong name (``NONSTANDARD`` of the validator's tables)."""
    report(
        EVENT_TYPE_NONSTANDARD,
        index,
        "`response.content_part.*` with a `reasoning_text` part",
        etype,
    )


def judge_not_openresponses(report: _Report, etype: str, index: int) -> None:
    """Under the ``openresponses`` profile: a type Open Responses does not define, unprefixed
    (the caller tests: this is on every event's path)."""
    report(
        EVENT_TYPE_OPENRESPONSES,
        index,
        "an Open Responses event type, or `<implementor>:<name>`",
        etype,
        path="type",
    )


def note_typed(coverage: _Coverage, openresponses: bool) -> None:
    """A typed event judged in full: its type was looked up (and, under the profile, held to
    Open Responses' names)."""
    coverage.applied.update(_APPLIED_OPENRESPONSES if openresponses else _APPLIED)


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import insert, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import OR, S

    example(
        EVENT_TYPE_KNOWN.id,
        S(
            lambda: insert(text_stream(), 2, {"type": "response.acme.progress"}),
            "an event type no source documents",
        ),
        S(text_stream),
    )
    example(
        EVENT_TYPE_NONSTANDARD.id,
        S(lambda: insert(text_stream(), 4, {"type": "response.reasoning_part.added",
                                            "item_id": "msg_example", "output_index": 0,
                                            "content_index": 0}),
          "vLLM's name for a reasoning content part"),
        S(text_stream),
    )  # fmt: skip
    example(
        EVENT_TYPE_OPENRESPONSES.id,
        S(
            lambda: insert(text_stream(), 2, {"type": "response.keepalive"}),
            "an event type Open Responses does not define, without a vendor prefix",
            profiles=OR,
        ),
        S(
            lambda: insert(text_stream(), 2, {"type": "acme:keepalive"}),
            "the same extension, prefixed with its implementor's slug",
            profiles=OR,
        ),
        also={EVENT_TYPE_KNOWN.id},
    )
