"""§6 The live suite (docs/spec.md#s6): ``live.transport.deadline``, ``live.case.completed``,
``live.reasoning.items``, ``live.usage.reasoning_tokens_hardcoded``.

§6.1 Deadlines: every request is answered, and every stream ends, within the suite's per-request
timeout. §6.2 A case runs to its end: a case whose answers it cannot interpret fails instead of
ending silently. They are checks of the run itself, so no case of their own evaluates them:

- ``live.transport.deadline``'s rule is the suite's HTTP client
  (:class:`conformance.suite.http.TargetClient`: one deadline per request, the stream read
  against it), judged for every exchange a case makes by
  :meth:`conformance.suite.probe.Probe._guard` (a timed-out answer fails it, any other marks it
  exercised), for every WebSocket session by :func:`conformance.suite.ws.judged_session`, and for
  every exchange the proxy relays by :mod:`conformance.proxy.judge`;
- ``live.case.completed``'s is the suite's pytest plugin
  (:meth:`conformance.suite.plugin.SuitePlugin._run_once`): a case that ends, with a verdict or
  by the probe's own control flow, exercises it; one that raises anything else fails it, with the
  exception as the finding.

Those modules take the checks from :mod:`conformance.catalog.live`, which re-exports them from
here.

§6.3 Streamed and not: a reasoning target answers a ``reasoning`` request with a reasoning item
before its message; and its reasoning responses do not all report ``reasoning_tokens: 0``, a
hard-coded count (§3.2, KB25: one such response alone is no defect). Their rule is the case below
(:mod:`.cases`, area ``reasoning``), run against a target that declares the ``reasoning``
profile. §6.3's other checks, ``live.create.answer`` and ``live.stream.equals_nonstream``, are
evaluated by the request's cases (:mod:`.s3_3_request`).

Each check's failing example is a misbehaving server (tests/suite/broken_servers.py), its near
miss the embedded mock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, register
from ..suite import answers as A
from .cases import case
from .s2_6_inside_item_parts import SUMMARY_ORDER, SUMMARY_PART_ADDED
from .s3_2_usage import USAGE_REASONING_LE_OUTPUT

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "CASE_COMPLETED",
    "DEADLINE",
    "REASONING_ITEMS",
    "REASONING_TOKENS_HARDCODED",
    "declare_examples",
]

DEADLINE = register(
    "live.transport.deadline",
    Level.MUST,
    "§6.1, §2.2",
    "every request is answered, and every stream ends, within the suite's per-request timeout",
)
CASE_COMPLETED = register(
    "live.case.completed",
    Level.MUST,
    "§6.2",
    "the target's answers let a case run to its end (an answer the suite cannot interpret fails here)",
)

REASONING_ITEMS = register(
    "live.reasoning.items",
    Level.MUST,
    "§6.3",
    "a reasoning target answers a `reasoning` request with a reasoning item before its message",
    profile="reasoning",
)
REASONING_TOKENS_HARDCODED = register(
    "live.usage.reasoning_tokens_hardcoded",
    Level.SHOULD,
    "§3.2; KB25",
    "responses with reasoning content do not all report `reasoning_tokens: 0` (a hard-coded count)",
    profile="reasoning",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        DEADLINE.id,
        "slow_creates",
        "a server that answers create requests after 3 s (the suite's timeout: 1 s)",
    )
    live(
        CASE_COMPLETED.id,
        "cancel_answers_an_ack",
        "a server whose cancel answers an acknowledgement (`{id, cancelled: true}`) instead of the "
        "Response, so the case cannot read the status it goes on with",
    )
    live(
        REASONING_TOKENS_HARDCODED.id,
        "kb25_reasoning_tokens_zero",
        "a server whose reasoning responses all report `reasoning_tokens: 0` (KB25)",
    )
    live(
        REASONING_ITEMS.id,
        "reasoning_items_dropped",
        "a server that answers reasoning requests without reasoning items",
    )


PUZZLES = (
    "A bat and a ball cost 1.10 in total. The bat costs 1.00 more than the ball. How much does "
    "the ball cost? Answer in one sentence.",
    "If three cats catch three mice in three minutes, how many cats catch 100 mice in 100 "
    "minutes? Answer in one sentence.",
)


@case(
    "reasoning", REASONING_ITEMS, REASONING_TOKENS_HARDCODED, SUMMARY_PART_ADDED, SUMMARY_ORDER,
    USAGE_REASONING_LE_OUTPUT, profiles=("reasoning",),
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
            REASONING_ITEMS, "reasoning" in types[:first_message], probe.last,
            expected="a reasoning item before the message", actual=f"output {types}",
        )  # fmt: skip
    # SPEC §3: one response with reasoning and reasoning_tokens 0 is allowed ([REC] has two);
    # every one of them is a hard-coded count.
    with_content = [r for r in responses if A.reasoning_has_content(r)]
    if len(with_content) < 2:
        return
    counts = [A.usage_count(r, "output_tokens_details", "reasoning_tokens") for r in with_content]
    probe.check(
        REASONING_TOKENS_HARDCODED, any(c != 0 for c in counts), probe.last,
        expected="reasoning_tokens > 0 on responses whose reasoning items carry text",
        actual=f"reasoning_tokens {counts} on {len(with_content)} such responses",
    )  # fmt: skip
