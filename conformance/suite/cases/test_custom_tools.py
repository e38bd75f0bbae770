"""Custom tools ([OAPI] ``CustomToolParam``): a call forced with ``tool_choice: {type: custom}``,
free-text input, input that a ``grammar`` format (Lark or regex) accepts — judged as LLGuidance
reads the grammar, the dialect OpenAI's grammars run on (:mod:`conformance.schema.grammar`) — a grammar
LLGuidance cannot compile refused, and a ``custom_tool_call`` → ``custom_tool_call_output`` round
trip.

The grammars are unambiguous, so a real model constrained by them has no reason to miss: a
city-and-days form in each syntax, then grammars only LLGuidance's dialect reads — Codex's
``apply_patch``, the GPT-5 cookbook's ``math_exp``, ``{M,N}`` repetition and a ``\\p{L}`` regex
(:mod:`conformance.suite.grammars`). The streamed cases also put the
``custom_tool_call_input.*`` events to the judge, and every case's answer is judged against its
request (``response.custom_tool_call.grammar``, by the probe).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ... import catalog as C
from ...catalog import live as L
from ...schema.grammar import JudgeGrammar, NotJudged, read_grammar
from .. import answers as A
from ..grammars import APPLY_PATCH, MATH_EXP
from ..probe import Probe

pytestmark = pytest.mark.profiles("custom-tools")

PROMPT = "Look up the forecast for Paris for the next 3 days with the forecast tool."
FREEFORM = {
    "type": "custom",
    "name": "forecast",
    "description": "Looks up a weather forecast. Input: a city name and a number of days.",
}


@dataclass(frozen=True, slots=True)
class GrammarCase:
    name: str  # the tool's
    description: str
    prompt: str
    syntax: str
    definition: str


_FORECAST = "Looks up a weather forecast. Input: `CITY, N days`."
GRAMMARS: dict[str, GrammarCase] = {
    "lark": GrammarCase(
        "forecast", _FORECAST, PROMPT, "lark",
        'start: CITY ", " DAYS " days"\nCITY: /[A-Z][a-z]{1,19}/\nDAYS: /[1-7]/',
    ),
    "regex": GrammarCase(
        "forecast", _FORECAST, PROMPT, "regex", r"[A-Z][a-z]{1,19}, [1-7] days"
    ),
    # Codex's own tool, as Codex declares it (its description, shortened).
    "apply_patch": GrammarCase(
        "apply_patch",
        "Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the "
        "patch in JSON.",
        "Create the file hello.txt containing the line `Hello, world!` with the apply_patch tool.",
        "lark", APPLY_PATCH,
    ),
    "math_exp": GrammarCase(
        "math_exp", "Creates valid mathematical expressions",
        "Use the math_exp tool to add four plus four.", "lark", MATH_EXP,
    ),
    "repetition": GrammarCase(
        "pattern", "Takes the pattern `ab` repeated two or three times.",
        "Call the pattern tool with `ab` repeated twice.", "lark", 'start: "ab"{2,3}',
    ),
    "letters": GrammarCase(
        "spell", "Takes one word, letters only (any script).",
        "Call the spell tool with the French word for summer, été.", "regex", r"\p{L}+",
    ),
}  # fmt: skip
# LLGuidance compiles no lookaround (OpenAI's dialect; Python's `re` reads it).
UNCOMPILABLE: dict[str, str] = {"syntax": "regex", "definition": "(?=a)a+"}


def _grammar_tool(case: GrammarCase) -> dict[str, Any]:
    return {
        "type": "custom",
        "name": case.name,
        "description": case.description,
        "format": {"type": "grammar", "syntax": case.syntax, "definition": case.definition},
    }


def _custom_calls(
    probe: Probe, tool: dict[str, Any], stream: bool, prompt: str = PROMPT
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    name = tool["name"]
    body = probe.body(input=prompt, tools=[tool], tool_choice={"type": "custom", "name": name})
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    calls = A.items_of(response, "custom_tool_call")
    ok = bool(calls) and all(
        c.get("name") == name
        and isinstance(c.get("input"), str)
        and isinstance(c.get("call_id"), str)
        for c in calls
    )
    probe.check(
        L.CUSTOM_CALL, ok, probe.last,
        expected=f"custom_tool_call items to `{name}`, each with a string input and a call_id",
        actual=f"output {A.output_types(response)}: {calls[:2]}",
    )  # fmt: skip
    return response, calls


def grammar_problem(syntax: str, definition: str, text: str) -> str:
    """Why ``text`` is not in the grammar's language as LLGuidance reads it ("" when it is);
    :class:`~conformance.schema.grammar.NotJudged` when the judge cannot say."""
    grammar = read_grammar(syntax, definition)
    if not isinstance(grammar, JudgeGrammar):
        raise NotJudged(f"LLGuidance cannot compile the grammar: {grammar}")
    return grammar.outside(text)


_STREAMS = pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])


@pytest.mark.checks(L.CUSTOM_CALL.id, C.DELTAS_EQUAL_DONE.id, C.ITEM_CONTENT_MATCHES.id)
@_STREAMS
def test_custom_tool_freeform(probe: Probe, stream: bool) -> None:
    _custom_calls(probe, FREEFORM, stream)


@pytest.mark.checks(
    L.CUSTOM_CALL.id, L.CUSTOM_GRAMMAR.id, C.CUSTOM_INPUT_GRAMMAR.id, C.DELTAS_EQUAL_DONE.id
)
@pytest.mark.parametrize("grammar", list(GRAMMARS))
@_STREAMS
def test_custom_tool_grammar(probe: Probe, grammar: str, stream: bool) -> None:
    case = GRAMMARS[grammar]
    _response, calls = _custom_calls(probe, _grammar_tool(case), stream, case.prompt)
    for call in calls:
        text = str(call.get("input"))
        try:
            why = grammar_problem(case.syntax, case.definition, text)
        except NotJudged as reason:
            probe.skip(f"the input could not be judged: {reason}")
        probe.check(
            L.CUSTOM_GRAMMAR, not why, probe.last,
            expected=f"input the {case.syntax} grammar accepts (as LLGuidance reads it)",
            actual=f"{text[:200]!r}: {why}",
        )  # fmt: skip


@pytest.mark.checks(L.CUSTOM_GRAMMAR_REFUSED.id)
def test_custom_tool_grammar_refused(probe: Probe) -> None:
    tool = {**FREEFORM, "format": {"type": "grammar", **UNCOMPILABLE}}
    body = probe.body(
        input=PROMPT, tools=[tool], tool_choice={"type": "custom", "name": "forecast"}
    )
    ex = probe.send("POST", "/responses", json_body=body)
    if ex.error is not None:
        return  # a transport failure, already recorded
    refused = ex.status is not None and 400 <= ex.status < 500
    probe.check(
        L.CUSTOM_GRAMMAR_REFUSED, refused, ex,
        expected="a 4xx (LLGuidance: look-around is not supported)",
        actual=f"HTTP {ex.status}: {str(ex.body or ex.text)[:200]}",
    )  # fmt: skip


@pytest.mark.checks(L.CUSTOM_ROUND_TRIP.id)
@pytest.mark.attempts(3)
def test_custom_tool_output_round_trip(probe: Probe) -> None:
    call_id = "call_conformance_custom_1"
    history = [
        {"role": "user", "content": PROMPT},
        {"type": "custom_tool_call", "call_id": call_id, "name": "forecast",
         "input": "Paris, 3 days"},
        {"type": "custom_tool_call_output", "call_id": call_id,
         "output": "Paris: sunny, 21 C; cloudy, 18 C; rain, 15 C."},
    ]  # fmt: skip
    response = probe.create(probe.body(input=history, tools=[FREEFORM]))
    probe.nondeterministic(
        not A.items_of(response, "custom_tool_call"),
        "the model called the tool again instead of answering",
        check=L.CUSTOM_ROUND_TRIP, exchange=probe.last,
        expected="a message using the tool's output", actual=f"output {A.output_types(response)}",
    )  # fmt: skip
    probe.check(
        L.CUSTOM_ROUND_TRIP,
        response.get("status") == "completed" and bool(A.output_text(response).strip()),
        probe.last, expected="status completed with a message",
        actual=f"status {response.get('status')!r}, output {A.output_types(response)}",
    )  # fmt: skip
