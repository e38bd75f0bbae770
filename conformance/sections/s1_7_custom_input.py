"""§1.7 Custom tools (docs/spec.md#s1-7): ``response.custom_tool_call.grammar`` and
``live.custom_tools.*``.

A ``custom_tool_call`` to a tool that the request declared with a ``grammar`` format carries input
in that grammar's language, as LLGuidance reads it (OpenAI constrains the model with it; the
judge's reader, :mod:`conformance.schema.grammar`). Only a judge that sees the request and its answer
together can tell: the live suite (each create it sends), the proxy (each exchange it forwards)
and ``check`` on a cassette (each recorded exchange) — not ``check FILE``, which has the answer
alone. Judged are the finished items — a non-stream Response's ``output``, a stream's
``output_item.done`` items — except an item still ``in_progress`` or cut ``incomplete`` (and one
without a status in an ``incomplete`` Response): a cut call's input may stop anywhere.

The live checks ([OAPI] ``CustomToolParam``, profile ``custom-tools``): a call forced with
``tool_choice: {type: custom}``, to a free-text tool or to one with a grammar
(``live.custom_tools.call``); input that the ``grammar`` format (Lark or regex) accepts, as
LLGuidance reads it (``live.custom_tools.grammar``); a grammar LLGuidance cannot compile refused
with a 4xx (``live.custom_tools.grammar_refused``, SHOULD until a recording of OpenAI's refusal
exists); a ``custom_tool_call`` → ``custom_tool_call_output`` round trip answered with a message
(``live.custom_tools.output_round_trip``). Each check's rule is the case below that evaluates
it (:mod:`.cases`, area ``custom_tools``); its failing example is a misbehaving server
(tests/suite/broken_servers.py), its near miss the embedded mock.

The grammars are unambiguous, so a real model constrained by them has no reason to miss: a
city-and-days form in each syntax, then grammars only LLGuidance's dialect reads — Codex's
``apply_patch``, the GPT-5 cookbook's ``math_exp``, ``{M,N}`` repetition and a ``\\p{L}`` regex
(:mod:`conformance.suite.grammars`). The streamed cases also put the
``custom_tool_call_input.*`` events to the judge, and every case's answer is judged against its
request (``response.custom_tool_call.grammar``, by the probe).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, Violation, register
from ..schema.grammar import JudgeGrammar, NotJudged, read_grammar
from ..suite import answers as A
from ..suite.grammars import APPLY_PATCH, MATH_EXP
from .case_support import answered_with_a_message
from .cases import STREAMS, case, params
from .s2_8_values_agree import DELTAS_EQUAL_DONE, ITEM_CONTENT_MATCHES

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "CUSTOM_CALL",
    "CUSTOM_GRAMMAR",
    "CUSTOM_GRAMMAR_REFUSED",
    "CUSTOM_INPUT_GRAMMAR",
    "CUSTOM_ROUND_TRIP",
    "declare_examples",
    "declares_grammar",
    "grammar_problem",
    "judge_custom_inputs",
]

CUSTOM_INPUT_GRAMMAR = register(
    "response.custom_tool_call.grammar",
    Level.MUST,
    "§1.7 [OAPI] CustomToolParam, CustomGrammarFormatParam; OpenAI's function-calling guide "
    "(grammars run on LLGuidance)",
    "a `custom_tool_call` to a tool the request declared with a `grammar` format carries `input` "
    "the grammar accepts, as LLGuidance reads it (Lark or regex)",
)
CUSTOM_GRAMMAR_REFUSED = register(
    "live.custom_tools.grammar_refused",
    Level.SHOULD,
    "§1.7 [OAPI] CustomGrammarFormatParam; OpenAI's function-calling guide (grammars run on "
    "LLGuidance, which compiles no lookaround). SHOULD: no recording of OpenAI's refusal of a "
    "grammar exists yet",
    "a custom tool whose grammar LLGuidance cannot compile (the regex `(?=a)a+`, a lookahead) is "
    "refused with a 4xx, not answered",
    profile="custom-tools",
)
CUSTOM_CALL = register(
    "live.custom_tools.call",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceCustom, CustomToolCall",
    "`tool_choice: {type: custom, name}` gets `custom_tool_call` items to that tool only, each with "
    "a string `input` and a `call_id`",
    profile="custom-tools",
)
CUSTOM_GRAMMAR = register(
    "live.custom_tools.grammar",
    Level.MUST,
    "§1.7 [OAPI] CustomGrammarFormatParam (syntax lark / regex)",
    "a custom tool with a `grammar` format gets input its grammar accepts, as LLGuidance reads "
    "it (Lark or regex: the dialect OpenAI's grammars run on)",
    profile="custom-tools",
)
CUSTOM_ROUND_TRIP = register(
    "live.custom_tools.output_round_trip",
    Level.MUST,
    "§1.7 [OAPI] CustomToolCall, CustomToolCallOutput",
    "a request carrying a `custom_tool_call` and its `custom_tool_call_output` is answered with a "
    "message",
    profile="custom-tools",
)
_CUT = frozenset({"in_progress", "incomplete"})
_Key = tuple[str | None, str]  # (namespace, name)
_Item = tuple[int | None, str, Mapping[str, Any]]  # (event index, path, item)


def _grammars(request: Any) -> dict[_Key, tuple[str, str]]:
    """The request's custom tools with a grammar, by (namespace, name): (syntax, definition)."""
    found: dict[_Key, tuple[str, str]] = {}
    tools = request.get("tools") if isinstance(request, Mapping) else None
    if not isinstance(tools, list):
        return found

    def add(tool: Any, namespace: str | None) -> None:
        if not isinstance(tool, Mapping) or tool.get("type") != "custom":
            return
        fmt, name = tool.get("format"), tool.get("name")
        if (
            not isinstance(fmt, Mapping)
            or fmt.get("type") != "grammar"
            or not isinstance(name, str)
        ):
            return
        syntax, definition = fmt.get("syntax"), fmt.get("definition")
        if isinstance(syntax, str) and isinstance(definition, str):
            found[(namespace, name)] = (syntax, definition)

    for tool in tools:
        if isinstance(tool, Mapping) and tool.get("type") == "namespace":
            inner, label = tool.get("tools"), tool.get("name")
            if isinstance(inner, list) and isinstance(label, str):
                for nested in inner:
                    add(nested, label)
        else:
            add(tool, None)
    return found


def declares_grammar(request: Any) -> bool:
    """Whether the request declares a custom tool with a grammar (a cheap test before a stream's
    events are decoded for :func:`judge_custom_inputs`)."""
    return bool(_grammars(request))


def judge_custom_inputs(
    request: Any, items: Iterable[_Item], *, response_cut: bool = False
) -> tuple[list[Violation], bool]:
    """The violations among ``items`` (event index, path, item) and whether the rule judged any
    input (what marks it exercised)."""
    grammars = _grammars(request)
    violations: list[Violation] = []
    judged = False
    if not grammars:
        return violations, judged
    for index, path, item in items:
        if item.get("type") != "custom_tool_call" or not isinstance(item.get("input"), str):
            continue
        status = item.get("status")
        if status in _CUT or (status is None and response_cut):
            continue
        name, namespace = item.get("name"), item.get("namespace")
        if not isinstance(name, str):
            continue
        found = grammars.get((namespace if isinstance(namespace, str) else None, name))
        if found is None and namespace == name:
            # a deferred top-level tool's call carries its own name as namespace (§1.7, [REC])
            found = grammars.get((None, name))
        if found is None:
            continue
        grammar = read_grammar(*found)
        if not isinstance(grammar, JudgeGrammar):
            continue  # refused by LLGuidance: not a grammar whose language the judge knows
        try:
            why = grammar.outside(item["input"])
        except NotJudged:
            continue
        judged = True
        if why:
            violations.append(
                CUSTOM_INPUT_GRAMMAR.violation(
                    expected=f"input the {grammar.syntax} grammar of `{name}` accepts",
                    actual=f"{_head(item['input'])}: {why}",
                    event_index=index,
                    path=f"{path}.input",
                )
            )
    return violations, judged


def _head(text: str, limit: int = 120) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def declare_examples() -> None:
    """The failing example and the passing near miss (conformance.examples): a stream and a
    body, each with the request that declared the grammar."""
    from ..examples.build import custom_tool_stream
    from ..examples.live import live
    from ..examples.registry import Sample, example

    # the live checks: judged by their cases (below) against a server of
    # tests/suite/broken_servers.py, as every live check's example
    live(
        CUSTOM_GRAMMAR_REFUSED.id,
        "grammar_not_compiled",
        "a server that never reads a custom tool's grammar: a lookahead regex, which LLGuidance "
        "cannot compile, is answered 200",
    )
    live(
        CUSTOM_CALL.id,
        "custom_choice_ignored",
        "a server that serves `tool_choice: {type: custom}` as `none`",
    )
    live(
        CUSTOM_GRAMMAR.id,
        "custom_input_off_grammar",
        "a server whose custom tool input ends in a `!` the grammar rejects",
    )
    live(
        CUSTOM_ROUND_TRIP.id,
        "custom_output_rejected",
        "a server that answers a custom tool's output with another call instead of a message",
    )

    request = {
        "model": "gpt-5",
        "input": "Use the math_exp tool to add four plus four.",
        "tools": [
            {
                "type": "custom",
                "name": "math_exp",
                "description": "Creates valid mathematical expressions",
                "format": {"type": "grammar", "syntax": "lark", "definition": MATH_EXP},
            }
        ],
    }
    example(
        CUSTOM_INPUT_GRAMMAR.id,
        Sample(
            "stream",
            lambda: custom_tool_stream("math_exp", "4 plus 4"),
            "the cookbook's math_exp grammar has no words",
            request=request,
        ),
        Sample(
            "stream",
            lambda: custom_tool_stream("math_exp", "4 + 4"),
            "what gpt-5 answered the cookbook's request with (docs/custom-tools.md)",
            request=request,
        ),
    )


# --- the live checks' cases -----------------------------------------------------------------------
CUSTOM_TOOLS = ("custom-tools",)
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


def _grammar_tool(spec: GrammarCase) -> dict[str, Any]:
    return {
        "type": "custom",
        "name": spec.name,
        "description": spec.description,
        "format": {"type": "grammar", "syntax": spec.syntax, "definition": spec.definition},
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
        CUSTOM_CALL, ok, probe.last,
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


@case("custom_tools", CUSTOM_CALL, DELTAS_EQUAL_DONE, ITEM_CONTENT_MATCHES, profiles=CUSTOM_TOOLS)
@params("stream", STREAMS)
def test_custom_tool_freeform(probe: Probe, stream: bool) -> None:
    _custom_calls(probe, FREEFORM, stream)


@case(
    "custom_tools", CUSTOM_CALL, CUSTOM_GRAMMAR, CUSTOM_INPUT_GRAMMAR, DELTAS_EQUAL_DONE,
    profiles=CUSTOM_TOOLS,
)  # fmt: skip
@params("grammar", list(GRAMMARS))
@params("stream", STREAMS)
def test_custom_tool_grammar(probe: Probe, grammar: str, stream: bool) -> None:
    spec = GRAMMARS[grammar]
    _response, calls = _custom_calls(probe, _grammar_tool(spec), stream, spec.prompt)
    for call in calls:
        text = str(call.get("input"))
        try:
            why = grammar_problem(spec.syntax, spec.definition, text)
        except NotJudged as reason:
            probe.skip(f"the input could not be judged: {reason}")
        probe.check(
            CUSTOM_GRAMMAR, not why, probe.last,
            expected=f"input the {spec.syntax} grammar accepts (as LLGuidance reads it)",
            actual=f"{text[:200]!r}: {why}",
        )  # fmt: skip


@case("custom_tools", CUSTOM_GRAMMAR_REFUSED, profiles=CUSTOM_TOOLS)
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
        CUSTOM_GRAMMAR_REFUSED, refused, ex,
        expected="a 4xx (LLGuidance: look-around is not supported)",
        actual=f"HTTP {ex.status}: {str(ex.body or ex.text)[:200]}",
    )  # fmt: skip


@case("custom_tools", CUSTOM_ROUND_TRIP, profiles=CUSTOM_TOOLS, attempts=3)
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
    answered_with_a_message(
        probe, CUSTOM_ROUND_TRIP, response,
        called_again=bool(A.items_of(response, "custom_tool_call")),
    )  # fmt: skip
