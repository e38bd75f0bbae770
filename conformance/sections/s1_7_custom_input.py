"""§1.7 Custom tools (docs/spec.md#s1-7): ``response.custom_tool_call.grammar`` and
``live.custom_tools.grammar_refused``.

A ``custom_tool_call`` to a tool that the request declared with a ``grammar`` format carries input
in that grammar's language, as LLGuidance reads it (OpenAI constrains the model with it; the
judge's reader, :mod:`conformance.schema.grammar`). Only a judge that sees the request and its answer
together can tell: the live suite (each create it sends), the proxy (each exchange it forwards)
and ``check`` on a cassette (each recorded exchange) — not ``check FILE``, which has the answer
alone. Judged are the finished items — a non-stream Response's ``output``, a stream's
``output_item.done`` items — except an item still ``in_progress`` or cut ``incomplete`` (and one
without a status in an ``incomplete`` Response): a cut call's input may stop anywhere.

A grammar LLGuidance cannot compile should be refused with a 4xx
(``live.custom_tools.grammar_refused``, SHOULD until a recording of OpenAI's refusal exists): a
live check, evaluated by the suite's case (conformance/suite/cases/test_custom_tools.py), its
example a server of tests/suite/broken_servers.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..catalog.registry import Level, Violation, register
from ..schema.grammar import JudgeGrammar, NotJudged, read_grammar

__all__ = [
    "CUSTOM_GRAMMAR_REFUSED",
    "CUSTOM_INPUT_GRAMMAR",
    "declare_examples",
    "declares_grammar",
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
    from ..suite.grammars import MATH_EXP

    # judged by the suite's case (conformance/suite/cases/test_custom_tools.py) against a server
    # of tests/suite/broken_servers.py, as every live check's example
    live(
        CUSTOM_GRAMMAR_REFUSED.id,
        "grammar_not_compiled",
        "a server that never reads a custom tool's grammar: a lookahead regex, which LLGuidance "
        "cannot compile, is answered 200",
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
