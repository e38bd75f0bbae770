"""§4.3 previous_response_id (docs/spec.md#s4-3): ``live.previous_response.*``, and the
``live.input_tokens.*`` checks of §4.1 (the ``POST /v1/responses/input_tokens`` endpoint), whose
one case counts a chain's history.

The history must show — by usage (a turn's ``input_tokens`` counts the prior input and output;
§3.2), by ``POST /v1/responses/input_tokens`` where offered, and by content where the model can
be asked to repeat it; a function call → output round trip; the echo; an unknown id (KB19). Each
check's rule is the case below that evaluates it (:mod:`.cases`), run against a target that
declares ``stateful``; its failing example is a misbehaving server
(tests/suite/broken_servers.py), its near miss the embedded mock.

How the history is seen in the usage: §4.3 ([OR]) says the server loads the prior response's
input, then its output, then the new input. So the chained turn is the same conversation as a
request that sends that history explicitly as input items, without ``previous_response_id``, and
the target's own count of that request is the yardstick (a token floor made of the prior turn's
``output_tokens`` is not one: a model can generate a non-canonical tokenization that costs fewer
tokens re-encoded, and a server need not replay reasoning). A part of the history is proven
missing only when the chained turn counts no more than the explicit history *without* that part,
and that part does count when sent explicitly. Anything else is not a verdict: a chained count at
least that of the explicit history passes; a count between the two (a server may render a chain
differently) or an explicit count of 0 (usage not counted at all: the usage checks' finding)
proves nothing and is not judged.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, register
from ..suite import answers as A
from .case_support import (
    WEATHER_TOOL,
    answered_with_a_message,
    repeats_the_code_word,
    schema_errors,
)
from .cases import case
from .s3_3_request import HTTP_OK  # every create: probe.create's own check
from .s3_3_tool_choice import TOOLS_ARGUMENTS

if TYPE_CHECKING:
    from ..suite.http import HttpExchange
    from ..suite.probe import Probe

__all__ = [
    "HISTORY",
    "INPUT_TOKENS_COUNT",
    "INPUT_TOKENS_MATCH",
    "PREVIOUS_ECHO",
    "PREVIOUS_UNKNOWN",
    "RECALL",
    "TOOL_ROUND_TRIP",
    "declare_examples",
]

STATEFUL = ("stateful",)


HISTORY = register(
    "live.previous_response.history",
    Level.MUST,
    "§3.2, §4.3; KB19",
    "a `previous_response_id` turn counts the prior turns' input and output in `input_tokens`",
    profile="stateful",
)
RECALL = register(
    "live.previous_response.recall",
    Level.MUST,
    "§4.3; KB19",
    "a chained turn sees the earlier turns' content (the model can repeat what it was told)",
    profile="stateful",
)
TOOL_ROUND_TRIP = register(
    "live.previous_response.tool_round_trip",
    Level.MUST,
    "§4.3 [OR]; KB19",
    "a `function_call_output` sent with `previous_response_id` of the call is answered",
    profile="stateful",
)
PREVIOUS_ECHO = register(
    "live.previous_response.echo",
    Level.MUST,
    "§3.3 [OAPI] Response",
    "a chained Response echoes its `previous_response_id`",
    profile="stateful",
)
PREVIOUS_UNKNOWN = register(
    "live.previous_response.unknown",
    Level.MUST,
    "§4.3",
    "an unknown `previous_response_id` gets 404, or 400 with code `previous_response_not_found`",
    profile="stateful",
)
INPUT_TOKENS_COUNT = register(
    "live.input_tokens.count",
    Level.MUST,
    "§4.1",
    'POST /v1/responses/input_tokens (where offered) returns `{object: "response.input_tokens", '
    "input_tokens}` counting the `previous_response_id` history",
    profile="stateful",
)
INPUT_TOKENS_MATCH = register(
    "live.input_tokens.matches_usage",
    Level.SHOULD,
    "§4.1 (a server matches its own count)",
    "POST /v1/responses/input_tokens counts what the same request reports as `input_tokens`",
    profile="stateful",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        HISTORY.id,
        "kb19_wrong_history",
        "a server that replays the previous turn's instructions instead of its input and output "
        "(KB19)",
    )
    live(
        PREVIOUS_ECHO.id,
        "previous_id_not_echoed",
        "a server whose chained Responses carry `previous_response_id: null`",
    )
    live(
        TOOL_ROUND_TRIP.id,
        "call_output_with_previous_ignored",
        "a server that answers a `function_call_output` sent with `previous_response_id` with no "
        "text",
    )
    live(
        PREVIOUS_UNKNOWN.id,
        "unknown_previous_500",
        "a server that answers 500 to an unknown `previous_response_id`",
    )
    live(
        INPUT_TOKENS_COUNT.id,
        "input_tokens_wrong_object",
        'a server whose input_tokens endpoint answers `object: "count"`',
    )
    live(
        INPUT_TOKENS_MATCH.id,
        "input_tokens_off_by_one",
        "a server whose input_tokens endpoint counts one token more than its responses report",
    )
    live(
        RECALL.id,
        "previous_response_ignored",
        "a server that silently ignores `previous_response_id` (echoing it all the same): a "
        "chained turn cannot repeat a code word told two turns back",
    )


_TURNS = (
    "My favourite colour is teal. Acknowledge it in one short sentence.",
    "Name one fruit, in one short sentence.",
    "Name one animal, in one short sentence.",
)
_ORDINAL = ("first", "second", "third")

# A part of the history: what it is called in a verdict, and its input items.
Segment = tuple[str, list[Any]]


def _turn(probe: Probe, text: Any, previous: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    body = probe.body(input=text, **extra)
    if previous is not None:
        body["previous_response_id"] = previous.get("id")
    response = probe.create(body)
    if previous is not None:
        probe.check(
            PREVIOUS_ECHO, response.get("previous_response_id") == previous.get("id"),
            probe.last, expected=f"previous_response_id {previous.get('id')!r}",
            actual=f"{response.get('previous_response_id')!r}",
        )  # fmt: skip
    return response


def _items(value: Any) -> list[Any]:
    """A request's `input` as input items (a string is one user message)."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return list(value) if isinstance(value, list) else []


def _segments(n: int, text: Any, response: dict[str, Any]) -> list[Segment]:
    """Turn ``n``'s input and output as history segments."""
    return [
        (f"the {_ORDINAL[n]} turn's input", _items(text)),
        (f"the {_ORDINAL[n]} turn's output", A.items_of(response)),
    ]


class _Explicit:
    """`input_tokens` of the same conversation sent as explicit input items (no
    `previous_response_id`), as the target counts it; each request is sent once."""

    def __init__(self, probe: Probe, **extra: Any) -> None:
        self.probe = probe
        self.extra = extra
        self.counts: dict[str, int | None] = {}

    def count(self, items: list[Any]) -> int | None:
        key = json.dumps(items, sort_keys=True)
        if key not in self.counts:
            ex = self.probe.send("POST", "/responses", json_body=self.probe.body(
                input=items, **self.extra))  # fmt: skip
            body = ex.json if ex.ok and ex.json.get("object") == "response" else {}
            self.counts[key] = A.input_tokens(body)
        return self.counts[key]


def _history_counted(
    probe: Probe,
    explicit: _Explicit,
    history: list[Segment],
    new_input: Any,
    now: int | None,
    ex: HttpExchange | None,
    check: Check = HISTORY,
) -> None:
    """§3.2, §4.3: ``now``, the `input_tokens` of a chained turn (or the input_tokens endpoint's
    count for it), holds every part of ``history`` (see the module's docstring)."""
    if now is None:
        return  # missing usage is the judge's finding (usage.present / usage.integers)
    new = _items(new_input)
    full = explicit.count([i for _, items in history for i in items] + new)
    if not full:
        return  # no count to compare with (see above): not a verdict
    if now >= full:
        probe.check(check, True, ex)
        return
    for k in reversed(range(len(history))):  # the latest part first
        label, part = history[k]
        if not part:
            continue
        rest = [i for j, (_, items) in enumerate(history) if j != k for i in items]
        without = explicit.count(rest + new)
        if without is not None and without < full and now <= without:
            probe.check(
                check, False, ex,
                expected=f"input_tokens ≥ {full}: the history sent explicitly counts {full}, "
                f"and {without} without {label}",
                actual=f"input_tokens {now}",
                message=f"{label} is missing from the history",
            )  # fmt: skip
            return


@case(
    "chain",
    HISTORY,
    PREVIOUS_ECHO,
    INPUT_TOKENS_COUNT,
    INPUT_TOKENS_MATCH,
    profiles=STATEFUL,
    chain=True,
)
def test_chain_history_by_usage(probe: Probe) -> None:
    explicit = _Explicit(probe)
    first = _turn(probe, _TURNS[0], None)
    second = _turn(probe, _TURNS[1], first)
    second_ex = probe.last
    history = _segments(0, _TURNS[0], first)
    _history_counted(probe, explicit, history, _TURNS[1], A.input_tokens(second), second_ex)
    counted = probe.send(
        "POST", "/responses/input_tokens",
        json_body={"model": probe.model, "previous_response_id": second.get("id"),
                   "input": _TURNS[2]},
        optional=True,  # §4.1 lists it; not every server offers it
    )  # fmt: skip
    third = _turn(probe, _TURNS[2], second)
    third_ex = probe.last
    history += _segments(1, _TURNS[1], second)
    _history_counted(probe, explicit, history, _TURNS[2], A.input_tokens(third), third_ex)
    if counted.status in (404, 405):
        return  # the endpoint is not offered
    value = counted.json.get("input_tokens")
    probe.check(
        INPUT_TOKENS_COUNT,
        counted.status == 200 and counted.json.get("object") == "response.input_tokens"
        and type(value) is int, counted,
        expected='HTTP 200 {"object": "response.input_tokens", "input_tokens": <int>}',
        actual=f"HTTP {counted.status} {counted.body or counted.text!r}",
    )  # fmt: skip
    if type(value) is not int:
        return
    _history_counted(probe, explicit, history, _TURNS[2], value, counted, check=INPUT_TOKENS_COUNT)
    actual = A.input_tokens(third)
    probe.check(
        INPUT_TOKENS_MATCH, value == actual, counted,
        expected=f"{actual} (input_tokens of the same request)", actual=value,
    )  # fmt: skip


@case(
    "chain",
    RECALL,
    PREVIOUS_ECHO,
    profiles=STATEFUL,
    attempts=3,
    chain=True,
    needs_instructions=True,
)
def test_chain_recall(probe: Probe) -> None:
    word = f"{random.choice(('PELICAN', 'MARIGOLD', 'QUASAR', 'TANGERINE'))}-{random.randint(100, 999)}"
    first = _turn(probe, f"Remember this code word: {word}. Reply only with OK.", None)
    second = _turn(probe, "Reply only with the name of one colour.", first)
    third = _turn(
        probe, "What was the code word I asked you to remember? Reply with the code word only.",
        second,
    )  # fmt: skip
    text = A.output_text(third)
    repeats_the_code_word(probe, RECALL, word, text, probe.last, "from two turns back")


@case(
    "chain",
    TOOL_ROUND_TRIP,
    HISTORY,
    PREVIOUS_ECHO,
    TOOLS_ARGUMENTS,
    profiles=("stateful", "tools"),
    attempts=3,
    chain=True,
)
def test_chain_tool_round_trip(probe: Probe) -> None:
    first_input = "What is the weather in Paris right now?"
    first = _turn(
        probe, first_input, None,
        tools=[WEATHER_TOOL], tool_choice={"type": "function", "name": "get_weather"},
    )  # fmt: skip
    if first.get("status") == "incomplete":
        # Cut off by a token limit before the call was finished: there is no call to answer
        # (as in the tools cases; found by the vendor matrix on vLLM's constrained decoding).
        reason = (first.get("incomplete_details") or {}).get("reason")
        probe.skip(f"the first turn is incomplete ({reason}): a cut-off call cannot be answered")
    calls = A.function_calls(first)
    probe.require(
        TOOL_ROUND_TRIP, bool(calls) and isinstance(calls[0].get("call_id"), str), probe.last,
        expected="a get_weather call (tool_choice names it)",
        actual=f"output {A.output_types(first)}",
    )  # fmt: skip
    args, why = A.parse_arguments(calls[0])
    errors = [why] if why else schema_errors(args, WEATHER_TOOL["parameters"])
    probe.check(
        TOOLS_ARGUMENTS, not errors, probe.last,
        expected="arguments valid for get_weather's schema", actual="; ".join(errors),
    )  # fmt: skip
    output = {"type": "function_call_output", "call_id": calls[0]["call_id"],
              "output": json.dumps({"temperature": 21, "conditions": "sunny"})}  # fmt: skip
    second = _turn(probe, [output], first, tools=[WEATHER_TOOL])
    second_ex = probe.last
    answered_with_a_message(
        probe, TOOL_ROUND_TRIP, second, called_again=bool(A.function_calls(second))
    )
    _history_counted(
        probe, _Explicit(probe, tools=[WEATHER_TOOL]), _segments(0, first_input, first),
        [output], A.input_tokens(second), second_ex,
    )  # fmt: skip


@case("chain", PREVIOUS_ECHO, HTTP_OK, profiles=STATEFUL, chain=True)
def test_chain_after_stream(probe: Probe) -> None:
    """A turn chained right after a streamed parent's terminal event, then a streamed turn
    chained on that one: the parent must be there to continue from as soon as its stream ended
    (a server that stores it a moment later loses some chains: `--repeat` surfaces it)."""
    parent, _ = probe.create_stream(probe.body(input=_TURNS[0]))
    child = _turn(probe, _TURNS[1], parent)
    body = probe.body(input=_TURNS[2], previous_response_id=child.get("id"))
    grandchild, ex = probe.create_stream(body)
    probe.check(
        PREVIOUS_ECHO, grandchild.get("previous_response_id") == child.get("id"), ex,
        expected=f"previous_response_id {child.get('id')!r}",
        actual=f"{grandchild.get('previous_response_id')!r}",
    )  # fmt: skip


@case("chain", PREVIOUS_UNKNOWN, profiles=STATEFUL)
def test_previous_response_unknown(probe: Probe) -> None:
    body = probe.body(
        input="Say hi.", previous_response_id="resp_conformance000000000000000000000unknown"
    )
    ex = probe.send("POST", "/responses", json_body=body)
    error = ex.json.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    probe.check(
        PREVIOUS_UNKNOWN,
        ex.status == 404 or (ex.status == 400 and code == "previous_response_not_found"), ex,
        expected="HTTP 404, or 400 with code previous_response_not_found",
        actual=f"HTTP {ex.status}, code {code!r}",
    )  # fmt: skip
