"""§7.8 Logprobs (docs/spec.md#s7-8): ``response.logprobs.delivered``,
``response.logprobs.nonpositive``, ``response.logprobs.top_count``.

A request whose ``include`` lists ``message.output_text.logprobs`` asked for the log
probabilities of the text it gets back ([OAPI] ``Includable``: "Include logprobs with assistant
messages"). vLLM's own validators hold a server to it: its streaming test
(``tests/entrypoints/openai/responses/test_simple.py``, ``test_streaming_logprobs``) asserts that
every ``response.output_text.delta`` of such a request carries a non-empty ``logprobs`` list
("logprobs list should not be empty"). A server that accepts the request and
sends text with ``logprobs: []`` (or none) silently ignored what was asked; one that cannot
deliver them may refuse the request with a 400 instead (§7.8: SGLang 0.5.23 in streaming mode),
which leaves the check not exercised.

**Level: SHOULD.** OpenAI's recordings that asked carry them on every text delta, ``.done`` and
finished part ([REC2] ``pai.test_openai.test_openai_instructions_with_responses_logprobs_
streaming.0``), but [OAPI] makes ``logprobs`` optional on a part and no client fails without
them; a caller that asked gets less than it asked for, not a broken stream.

Judged where the request is known (the suite, the proxy, ``check`` on a cassette, a WebSocket
session's finished items): a stream's ``output_text.delta`` and ``output_text.done`` events with
text, a body's (or a finished item's) ``output_text`` parts with text. An empty delta or part
has no token to give a probability for, and is not judged. At most one finding per kind of place
(the first offender, with the count), so a long answer costs one line.

Every ``logprob`` is a log probability, ≤ 0 (a token's and each alternative's); a token lists at
most the ``top_logprobs`` alternatives the response echoes. The rule, :func:`logprob_findings`,
judges one ``logprobs`` list: a Response's ``output_text`` part (``ResponseChecker``, a streamed
terminal or a non-stream body) and a stream's non-empty ``output_text`` delta or ``.done`` list
(the stream validator's part rules; such a delta never takes the fast path). It marks
``nonpositive`` applied on a non-empty list, ``top_count`` where a known limit meets a token's
``top_logprobs`` list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..catalog.registry import Check, Level, Violation, register
from ..catalog.render import short

__all__ = [
    "LOGPROBS_DELIVERED",
    "LOGPROBS_NONPOSITIVE",
    "LOGPROBS_TOP_COUNT",
    "asks_logprobs",
    "declare_examples",
    "judge_logprobs_of_items",
    "judge_logprobs_of_stream",
    "logprob_findings",
    "top_logprobs_limit",
]

LOGPROBS_DELIVERED = register(
    "response.logprobs.delivered",
    Level.SHOULD,
    "§7.8 [OAPI] Includable (`message.output_text.logprobs`); vLLM "
    "tests/entrypoints/openai/responses/test_simple.py (`test_streaming_logprobs`)",
    "a request whose `include` lists `message.output_text.logprobs` gets a non-empty `logprobs` "
    "list on every `output_text.delta` and `output_text.done` with text (streamed) and on every "
    "`output_text` part with text (a Response's output, a finished item)",
)
LOGPROBS_NONPOSITIVE = register(
    "response.logprobs.nonpositive",
    Level.MUST,
    "§1, §7.8 [OAPI]",
    "every `logprob` (of a token and of each alternative in `top_logprobs`) is ≤ 0",
)
LOGPROBS_TOP_COUNT = register(
    "response.logprobs.top_count",
    Level.MUST,
    "§3.3, §7.8 [OAPI]",
    "a token lists at most `top_logprobs` alternatives (the number the response echoes)",
)
_INCLUDE = "message.output_text.logprobs"
_Item = tuple[int | None, str, Mapping[str, Any]]  # (event index, path, item)


def asks_logprobs(request: Any) -> bool:
    """Whether the request's ``include`` lists ``message.output_text.logprobs``."""
    include = request.get("include") if isinstance(request, Mapping) else None
    return isinstance(include, list) and _INCLUDE in include


def _delivered(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0


def _show(holder: Mapping[str, Any]) -> str:
    if "logprobs" not in holder:
        return "absent"
    value = holder["logprobs"]
    return "[]" if value == [] else "null" if value is None else repr(value)[:60]


class _First:
    """The first offender of one kind of place, and how many there were."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.count = 0
        self.index: int | None = None
        self.path = ""
        self.actual = ""

    def add(self, index: int | None, path: str, holder: Mapping[str, Any]) -> None:
        if self.count == 0:
            self.index, self.path, self.actual = index, path, _show(holder)
        self.count += 1

    def violation(self) -> list[Violation]:
        if self.count == 0:
            return []
        return [
            LOGPROBS_DELIVERED.violation(
                expected=f"a non-empty `logprobs` list on every {self.where} with text (the "
                f"request's `include` lists `{_INCLUDE}`)",
                actual=f"{self.actual} ({self.count} {self.where}(s) without)",
                event_index=self.index,
                path=self.path,
            )
        ]


def judge_logprobs_of_items(
    request: Any, items: Iterable[_Item], *, response_cut: bool = False
) -> tuple[list[Violation], bool]:
    """Finished items (event index, path, item): their ``output_text`` parts with text (a cut
    response's text is judged too: what was sent was asked for)."""
    if not asks_logprobs(request):
        return [], False
    first = _First("`output_text` part")
    judged = False
    for index, path, item in items:
        content = item.get("content") if item.get("type") == "message" else None
        if not isinstance(content, list):
            continue
        for ci, part in enumerate(content):
            if not isinstance(part, Mapping) or part.get("type") != "output_text":
                continue
            if not part.get("text"):
                continue
            judged = True
            if not _delivered(part.get("logprobs")):
                first.add(index, f"{path}.content[{ci}].logprobs", part)
    return first.violation(), judged


def top_logprobs_limit(response: Mapping[str, Any]) -> int | None:
    """The number of alternatives per token the response says it was asked for, if it says."""
    top = response.get("top_logprobs")
    return top if type(top) is int and top >= 0 else None


def _positive(value: Any) -> bool:
    return type(value) in (int, float) and value > 0


def logprob_findings(
    logprobs: Any, top: int | None, path: str, applied: set[str] | None = None
) -> list[tuple[Check, Any, Any, str, str]]:
    """What is wrong with one `logprobs` list (a part's, a delta's or a `.done`'s), as
    ``(check, expected, actual, path, message)``, at most one finding per check: the first
    offending entry, with how many offend (so a long list costs one pass and two findings). The
    checks evaluated go into ``applied`` when given."""
    if not isinstance(logprobs, list):
        return []
    positive: list[tuple[str, Any]] = []
    too_many: list[tuple[str, int]] = []
    counted = False  # a token's alternatives met the limit
    for i, entry in enumerate(logprobs):
        if not isinstance(entry, dict):
            continue  # the schema check reports its shape
        if _positive(entry.get("logprob")):
            positive.append((f"{path}[{i}].logprob", entry.get("logprob")))
        alternatives = entry.get("top_logprobs")
        if not isinstance(alternatives, list):
            continue
        if top is not None:
            counted = True
            if len(alternatives) > top:
                too_many.append((f"{path}[{i}].top_logprobs", len(alternatives)))
        for j, alt in enumerate(alternatives):
            if isinstance(alt, dict) and _positive(alt.get("logprob")):
                positive.append((f"{path}[{i}].top_logprobs[{j}].logprob", alt.get("logprob")))
    if applied is not None and logprobs:
        applied.add(LOGPROBS_NONPOSITIVE.id)
        if counted:
            applied.add(LOGPROBS_TOP_COUNT.id)
    out: list[tuple[Check, Any, Any, str, str]] = []
    if positive:
        where, value = positive[0]
        count = f"{len(positive)} positive logprob(s)" if len(positive) > 1 else ""
        out.append((LOGPROBS_NONPOSITIVE, "≤ 0", short(value), where, count))
    if too_many:
        where, n = too_many[0]
        count = f"{len(too_many)} token(s) over the limit" if len(too_many) > 1 else ""
        out.append((LOGPROBS_TOP_COUNT, f"≤ {top} (`top_logprobs`)", n, where, count))
    return out


_TEXT_FIELD = {"response.output_text.delta": "delta", "response.output_text.done": "text"}


def judge_logprobs_of_stream(request: Any, events: list[Any]) -> tuple[list[Violation], bool]:
    """A stream's ``output_text.delta`` and ``output_text.done`` events with text."""
    if not asks_logprobs(request):
        return [], False
    firsts = {
        "response.output_text.delta": _First("`output_text.delta`"),
        "response.output_text.done": _First("`output_text.done`"),
    }
    judged = False
    for index, event in enumerate(events):
        if not isinstance(event, Mapping):
            continue
        etype = event.get("type")
        if not isinstance(etype, str):
            continue
        field = _TEXT_FIELD.get(etype)
        if field is None or not event.get(field):
            continue
        judged = True
        if not _delivered(event.get("logprobs")):
            firsts[etype].add(index, "logprobs", event)
    return [v for first in firsts.values() for v in first.violation()], judged


def declare_examples() -> None:
    """``delivered``'s failing example (asked for, answered with ``logprobs: []`` everywhere, as
    without it) and its passing near miss (one log probability per delta, the done event and the
    part carrying them all), each a stream with the request that asked; ``nonpositive``'s and
    ``top_count``'s, a completed body whose one part carries one token."""
    from ..examples.body_samples import B, done
    from ..examples.build import Event, at, find, text_stream
    from ..examples.registry import Sample, example

    def body(logprob: float, alternatives: int, top: int) -> Callable[[], Event]:
        def build() -> Event:
            built = done(top_logprobs=top)
            alts = [{"token": "Hi", "logprob": -1.0, "bytes": [72, 105]}] * alternatives
            entry = {"token": "Hello", "logprob": logprob, "bytes": [72], "top_logprobs": alts}
            built["output"][0]["content"][0]["logprobs"] = [entry]
            return built

        return build

    example(
        LOGPROBS_NONPOSITIVE.id,
        B(body(0.5, 0, 0), "a token with `logprob: 0.5`"),
        B(body(0.0, 0, 0), "`logprob: 0.0` (OpenAI sends it)"),
    )
    example(
        LOGPROBS_TOP_COUNT.id,
        B(body(-0.1, 3, 2), "three alternatives, `top_logprobs: 2`"),
        B(body(-0.1, 2, 2)),
    )

    request = {
        "model": "gpt-5.1",
        "input": "Say hello.",
        "stream": True,
        "include": [_INCLUDE],
        "top_logprobs": 0,
    }

    def answered() -> list[dict[str, Any]]:
        events = text_stream()
        tokens = []
        for nth, token in enumerate(("Hel", "lo")):
            lp = {
                "token": token,
                "logprob": -0.25,
                "bytes": list(token.encode()),
                "top_logprobs": [],
            }
            at(events, find(events, "response.output_text.delta", nth), "logprobs", [lp])
            tokens.append(lp)
        at(events, find(events, "response.output_text.done"), "logprobs", tokens)
        at(events, find(events, "response.content_part.done"), "part.logprobs", tokens)
        at(events, find(events, "response.output_item.done"), "item.content.0.logprobs", tokens)
        at(events, "response.completed", "response.output.0.content.0.logprobs", tokens)
        return events

    example(
        LOGPROBS_DELIVERED.id,
        Sample(
            "stream",
            text_stream,
            "asked for with `include`, answered `logprobs: []` on every delta",
            request=request,
        ),
        Sample(
            "stream",
            answered,
            "a log probability per token, on the deltas and the done event",
            request=request,
        ),
    )
