"""What the judge records as exercised: a rule counts as evaluated only on
something it applies to. Each check's passing near miss gives its rule work, so the judge must
record the check as exercised there; a plain text stream exercises none of the annotation,
summary, argument or shell rules."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.bodies.kinds import judge_body
from conformance.examples import EXAMPLES, Sample
from conformance.examples import build as B
from conformance.sections.against_request import (
    judge_body_against_request,
    judge_stream_against_request,
)
from conformance.sse.framing import SSEStreamValidator
from conformance.validator import StreamValidator
from conformance.websocket import judge_session


def exercised(sample: Sample) -> set[str]:
    data: Any = sample.build()
    if sample.request is not None:  # a rule that judges an answer against its request
        judge = (
            judge_stream_against_request if sample.kind == "stream" else judge_body_against_request
        )
        _, applied = judge(sample.request, data)
        return _stream_or_body(sample, data) | applied
    return _stream_or_body(sample, data)


def _stream_or_body(sample: Sample, data: Any) -> set[str]:
    opts: dict[str, Any] = {"profiles": sample.profiles, "resume_after": sample.resume_after}
    if sample.kind == "sse":
        sse = SSEStreamValidator(coverage=True, **opts)
        sse.feed(data)
        sse.close()
        return sse.exercised
    if sample.kind == "stream":
        validator = StreamValidator(coverage=True, **opts)
        for event in data:
            validator.feed(event)
        validator.close()
        return validator.exercised
    if sample.kind in ("response", "state"):
        # The section rules (conformance.sections) mark what they evaluated as they judge.
        applied: set[str] = set()
        if sample.kind == "response":  # its rules are section modules': they mark theirs
            judge_body(data, "response", profiles=sample.profiles, applied=applied)
            return applied
        judge_body(data, "state", applied=applied)
        return applied
    if sample.kind == "http":
        from conformance.sections.s4_8_http_framing import judge_answer

        return judge_answer(data)[1]
    if sample.kind == "session":
        session, _ = judge_session(data, profiles=sample.profiles, coverage=True)
        return session.exercised | session.stream_exercised()
    applied = set()
    judge_body(data, "error", applied=applied)  # the rule marks what it evaluated
    return applied


STREAMS = sorted(c for c, e in EXAMPLES.items() if e.passing.kind != "live")


# Near misses the rule does not apply to: there it must not count as exercised.
EXEMPT = {"stream.lifecycle.created_first"}  # a resumed stream has no `response.created`


@pytest.mark.parametrize("check_id", STREAMS)
def test_the_near_miss_exercises_its_check(check_id: str) -> None:
    got = exercised(EXAMPLES[check_id].passing)
    assert (check_id not in got) if check_id in EXEMPT else (check_id in got)
    assert check_id in exercised(EXAMPLES[check_id].failing)


def test_a_text_stream_does_not_exercise_what_it_lacks() -> None:
    got = exercised(Sample("stream", B.text_stream))
    lacking = {
        "stream.text.annotations_match", "stream.arguments.added_first", "stream.arguments.order",
        "stream.summary.order", "stream.summary.index", "stream.summary.part_added",
        "stream.error.followed_by_failed", "stream.item.incomplete_last",
        "stream.item.no_interleave", "stream.item.id_unique", "usage.max_output_tokens",
    }  # fmt: skip
    assert got & lacking == set()
    assert {"stream.part.order", "stream.text.deltas_equal_done", "usage.total"} <= got


def test_violated_checks_count_as_exercised() -> None:
    events = B.at(B.text_stream(), "response.output_text.delta", "delta", "Hal")
    validator = StreamValidator(coverage=True)
    for event in events:
        validator.feed(event)
    validator.close()
    assert "stream.text.deltas_equal_done" in validator.exercised


def test_coverage_is_opt_in() -> None:
    validator = StreamValidator()
    assert validator.coverage is None
    with pytest.raises(RuntimeError):
        _ = validator.exercised
