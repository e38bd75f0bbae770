"""Reasoning: a target that declares it answers a `reasoning` request with a reasoning item before
its message; reasoning tokens are counted, not hard-coded to 0 (SPEC §3 usage accounting; KB25)."""

from __future__ import annotations

from typing import Any

import pytest

from ... import catalog as C
from ...catalog import live as L
from .. import answers as A
from ..probe import Probe

pytestmark = pytest.mark.profiles("reasoning")

PUZZLES = (
    "A bat and a ball cost 1.10 in total. The bat costs 1.00 more than the ball. How much does "
    "the ball cost? Answer in one sentence.",
    "If three cats catch three mice in three minutes, how many cats catch 100 mice in 100 "
    "minutes? Answer in one sentence.",
)


@pytest.mark.checks(
    L.REASONING_ITEMS.id, L.REASONING_TOKENS_HARDCODED.id, C.SUMMARY_PART_ADDED.id,
    C.SUMMARY_ORDER.id, C.USAGE_REASONING_LE_OUTPUT.id,
)  # fmt: skip
def test_reasoning_items(probe: Probe) -> None:
    responses: list[dict[str, Any]] = []
    for prompt, stream in ((PUZZLES[0], False), (PUZZLES[0], True), (PUZZLES[1], False)):
        body = probe.body(input=prompt, reasoning={"effort": "low", "summary": "auto"})
        response = probe.create_stream(body)[0] if stream else probe.create(body)
        responses.append(response)
        types = A.output_types(response)
        first_message = types.index("message") if "message" in types else len(types)
        probe.check(
            L.REASONING_ITEMS, "reasoning" in types[:first_message], probe.last,
            expected="a reasoning item before the message", actual=f"output {types}",
        )  # fmt: skip
    # SPEC §3: one response with reasoning and reasoning_tokens 0 is allowed ([REC] has two);
    # every one of them is a hard-coded count.
    with_content = [r for r in responses if A.reasoning_has_content(r)]
    if len(with_content) < 2:
        return
    counts = [A.usage_count(r, "output_tokens_details", "reasoning_tokens") for r in with_content]
    probe.check(
        L.REASONING_TOKENS_HARDCODED, any(c != 0 for c in counts), probe.last,
        expected="reasoning_tokens > 0 on responses whose reasoning items carry text",
        actual=f"reasoning_tokens {counts} on {len(with_content)} such responses",
    )  # fmt: skip
