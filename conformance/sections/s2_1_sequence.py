"""§2.1 Sequence numbers (docs/spec.md#s2-1): ``stream.sequence.*``.

``sequence_number`` counts 0, 1, 2, … over all events of the stream, with no gap and no repeat;
a stream resumed after event N starts at N+1 (§2.12).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register

__all__ = [
    "SEQ_CONTIGUOUS",
    "SEQ_PRESENT",
    "SEQ_START",
    "SequenceState",
    "declare_examples",
    "judge_sequence",
]

SEQ_PRESENT = register(
    "stream.sequence.present",
    Level.MUST,
    "§1, §2.1, §7.1 [REC]; KB17",
    "every event carries an integer `sequence_number`",
)
SEQ_START = register(
    "stream.sequence.start",
    Level.MUST,
    "§2.1, §2.12 [REC]",
    "the first event is numbered 0 (N+1 on a stream resumed after N)",
)
SEQ_CONTIGUOUS = register(
    "stream.sequence.contiguous",
    Level.MUST,
    "§2.1 [REC]; KB13",
    "`sequence_number` rises by exactly 1 per event, with no gap or repeat",
)
_IDS = (SEQ_PRESENT.id, SEQ_START.id, SEQ_CONTIGUOUS.id)


class _Coverage(Protocol):
    applied: set[str]


class _Report(Protocol):
    def __call__(
        self, check: Any, index: int | None, expected: Any, actual: Any, *, path: str = ...,
        message: str = ...,
    ) -> None: ...  # fmt: skip


class SequenceState(Protocol):
    """What the rule reads and writes of the stream validator."""

    next_seq: int | None
    resume_after: int | None
    _seq_started: bool

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def judge_sequence(state: SequenceState, event: Mapping[str, Any], index: int) -> None:
    """The event's ``sequence_number`` against the stream's count (the validator's fast path
    takes the number in order itself, once the first event has been judged here)."""
    coverage = state.coverage
    if coverage is not None:
        coverage.applied.update(_IDS)
    seq = event.get("sequence_number")
    if type(seq) is not int:
        state._report(
            SEQ_PRESENT,
            index,
            "an integer `sequence_number`",
            "missing" if seq is None else repr(seq),
            path="sequence_number",
        )
        if state.next_seq is not None:
            state.next_seq += 1
        return
    if not state._seq_started:
        state._seq_started = True
        first = 0 if state.resume_after is None else state.resume_after + 1
        if seq != first:
            state._report(SEQ_START, index, first, seq, path="sequence_number")
    elif seq != state.next_seq:
        state._report(
            SEQ_CONTIGUOUS,
            index,
            state.next_seq,
            seq,
            path="sequence_number",
            message="a repeat" if state.next_seq is not None and seq < state.next_seq else "a gap",
        )
    state.next_seq = seq + 1


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import Event, at, numbered, text_stream, without
    from ..examples.registry import example
    from ..examples.stream_samples import S

    def resumed(after: int) -> list[Event]:
        return text_stream()[after + 1 :]

    example(
        SEQ_PRESENT.id,
        S(lambda: without(text_stream(), "response.output_text.done", "sequence_number")),
        S(text_stream),
        also={"event.schema.required"},
    )
    example(
        SEQ_START.id,
        S(lambda: numbered(text_stream(), 1), "numbered from 1"),
        S(lambda: resumed(1), "a stream resumed after event 1 starts at 2", resume_after=1),
    )
    example(
        SEQ_CONTIGUOUS.id,
        S(lambda: at(text_stream(), 4, "sequence_number", 5), "4 is skipped"),
        S(text_stream),
    )
