"""§5 The judge's own limits (docs/spec.md#s5): ``sse.limit.event_size``,
``sse.limit.event_count``, ``sse.limit.depth``.

The judge is bounded so that no input makes it hang or grow without end: an event larger than
its size limit (16 MiB by default), a stream with more events than its count limit (1,000,000 by
default) and JSON nested past 64 levels (the servers' bound too, docs/limits.md) are reported as
violations, and judging stops where it had to.

The size and count bounds are the SSE decoder's (:class:`conformance.sse.decoder.SSEDecoder`),
which stops at the first record past one; the framing layer reports it (:func:`judge_limit`).
The depth bound is checked before a payload is parsed (:func:`conformance.sse.framing.parse_json`):
an SSE payload, a WebSocket frame (:func:`judge_unparsable`), a body; and where a value nested
within the parsers' reach still outruns Python's stack in a comparison, the stream validator
(:func:`judge_too_deep_to_follow`) and the body checks (:func:`too_deep_to_follow`) say the
event or body was judged only as far as the judge could follow it.

The framing layer marks the three checks applied at the first event it judges (:func:`note_event`:
every record is measured against both bounds as it is decoded, every payload against the depth
bound as it is parsed).
"""

from __future__ import annotations

from typing import Protocol

from ..catalog.registry import Level, Violation, register
from .s1_1_framing import Framing, head
from .s2_1_sequence import _Report

__all__ = [
    "SSE_LIMIT_DEPTH",
    "SSE_LIMIT_EVENT_COUNT",
    "SSE_LIMIT_EVENT_SIZE",
    "declare_examples",
    "judge_limit",
    "judge_too_deep",
    "judge_too_deep_to_follow",
    "judge_unparsable",
    "note_event",
    "too_deep_to_follow",
]

SSE_LIMIT_EVENT_SIZE = register(
    "sse.limit.event_size",
    Level.MUST,
    "§5",
    "no single event exceeds the judge's size limit",
)
SSE_LIMIT_EVENT_COUNT = register(
    "sse.limit.event_count",
    Level.MUST,
    "§5",
    "the stream does not exceed the judge's event-count limit",
)
SSE_LIMIT_DEPTH = register(
    "sse.limit.depth",
    Level.MUST,
    "§5",
    "no event, body or WebSocket frame nests arrays and objects more than 64 levels deep (the "
    "judge's limit, the servers' too: docs/limits.md; OpenAI's deepest recorded event nests 11)",
)

_EVENT = frozenset({SSE_LIMIT_EVENT_SIZE.id, SSE_LIMIT_EVENT_COUNT.id, SSE_LIMIT_DEPTH.id})


class _LimitError(Protocol):
    """What the decoder says of the bound a stream broke (conformance.sse.decoder.SSELimitError)."""

    @property
    def kind(self) -> str: ...
    @property
    def limit(self) -> int: ...
    @property
    def actual(self) -> int: ...


def judge_limit(framing: Framing, exc: _LimitError, index: int) -> Violation:
    """The decoder stopped at a record past its size or count bound (``index``: the record's)."""
    check = SSE_LIMIT_EVENT_SIZE if exc.kind == "event_size" else SSE_LIMIT_EVENT_COUNT
    return framing(check, index, f"≤ {exc.limit}", exc.actual, message=str(exc))


def judge_too_deep(framing: Framing, index: int, data: str, message: str) -> Violation:
    """An SSE payload nested past the bound, refused before parsing (``message``: why)."""
    return framing(SSE_LIMIT_DEPTH, index, "JSON the judge can parse", head(data), message)


def judge_unparsable(report: _Report, index: int, message: str) -> None:
    """A WebSocket frame nested past the bound, refused before parsing (``message``: why)."""
    report(SSE_LIMIT_DEPTH, index, "JSON the judge can parse", message)


def judge_too_deep_to_follow(report: _Report, index: int) -> None:
    """An event parsed but nested too deeply for a rule to follow (the caller reports it once
    per event)."""
    report(
        SSE_LIMIT_DEPTH,
        index,
        "JSON the judge can follow",
        "a value nested too deeply",
        message="the event was judged only as far as the judge could follow it",
    )


def too_deep_to_follow() -> Violation:
    """A body parsed but nested too deeply for its checks to follow."""
    return SSE_LIMIT_DEPTH.violation(
        expected="JSON the judge can follow",
        actual="a value nested too deeply",
        message="the body was judged only as far as the judge could follow it",
    )


def note_event(applied: set[str]) -> None:
    """An event judged: it was decoded within the size and count bounds and parsed within the
    depth bound."""
    applied.update(_EVENT)


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import sse, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import R

    def deep(depth: int) -> bytes:
        """The SSE of a text stream whose terminal event has an extra field ``depth`` lists
        deep."""
        data = sse(text_stream())
        before, sep, tail = data.rpartition(b'"type":"response.completed",')
        return before + sep + b'"extra":' + b"[" * depth + b"]" * depth + b"," + tail

    example(
        SSE_LIMIT_EVENT_SIZE.id,
        R(lambda: sse(text_stream(("x" * 9000,))), "an event over the limit (here 8,000 bytes)",
          max_event_bytes=8000),
        R(lambda: sse(text_stream(("x" * 500,))), max_event_bytes=8000),
        also={"stream.lifecycle.terminal_present"},
    )  # fmt: skip
    example(
        SSE_LIMIT_EVENT_COUNT.id,
        R(lambda: sse(text_stream()), "10 events, the limit 9", max_events=9),
        R(lambda: sse(text_stream()), max_events=10),
        also={"stream.lifecycle.terminal_present"},
    )
    example(
        SSE_LIMIT_DEPTH.id,
        R(lambda: deep(64), "`response.completed` holds a list nested 64 levels deep: 65 in all"),
        R(lambda: deep(63)),
        also={"stream.lifecycle.terminal_present"},
    )
