"""Custom-tool grammars read as OpenAI reads them (LLGuidance): what it compiles is accepted,
what it cannot is a 400 with its reason; compiled grammars are cached by text."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from reference_impl.errors import APIError
from reference_impl.request import grammar as grammar_module
from reference_impl.request.grammar import GrammarError, compile_grammar
from reference_impl.request.validation import validate_create_body

GRAMMARS = Path(__file__).parents[1] / "data" / "grammars"
APPLY_PATCH = (GRAMMARS / "apply_patch.lark").read_text()
MATH_EXP = (GRAMMARS / "math_exp.lark").read_text()

# Compiled by LLGuidance (and so by OpenAI); Python's lark / re refuse each.
ACCEPTED = [
    ("lark", APPLY_PATCH),  # lark: "Dynamic Earley doesn't allow zero-width regexps"
    ("lark", MATH_EXP),  # lark: "Rules defined twice"
    ("lark", 'start: "ab"{2,3}'),  # lark: "Unexpected colon"
    ("lark", 'start: "n=" %json {"type": "integer"}'),  # inline JSON Schema
    ("regex", r"\p{L}+"),  # re: "bad escape \p"
    ("regex", r"[[:alpha:]]+ \d{2}"),  # re: a nested set, not a class
]
# Refused by LLGuidance with these reasons; Python's lark / re compile each.
REFUSED = [
    ("regex", "(?=a)a+", "look-around, including look-ahead and look-behind, is not supported"),
    ("regex", r"(a)\1", "backreferences are not supported"),
    ("regex", r"\bword", "lookarounds not supported"),
    ("lark", 'start: A\nA.2: "a"', "priority not supported"),
    ("lark", 'start: /a(?=b)/ "b"', "look-around"),
    ("lark", "start: missing_rule", 'unknown name: "missing_rule"'),
    ("regex", "(unclosed", "unclosed group"),
]


@pytest.mark.parametrize(("syntax", "definition"), ACCEPTED)
def test_llguidance_dialect_is_accepted(syntax: str, definition: str) -> None:
    compiled = compile_grammar(syntax, definition)
    assert compiled.syntax == syntax and compiled.definition == definition


@pytest.mark.parametrize(("syntax", "definition", "reason"), REFUSED)
def test_what_llguidance_cannot_compile_is_refused_with_its_reason(
    syntax: str, definition: str, reason: str
) -> None:
    with pytest.raises(GrammarError) as caught:
        compile_grammar(syntax, definition)
    message = str(caught.value)
    assert reason in message and "\n" not in message, message
    assert " | " not in message  # LLGuidance's source echo is dropped


@pytest.mark.parametrize(
    ("syntax", "definition", "text", "why"),
    [
        ("lark", MATH_EXP, "4 + 4", ""),
        ("lark", MATH_EXP, "4+4", "refuses it at byte 1"),
        ("lark", MATH_EXP, "4 + ", "needs more after its end"),
        ("lark", 'start: "ab"{2,3}', "ababab", ""),
        ("lark", 'start: "ab"{2,3}', "abababab", "refuses it at byte 6"),
        ("lark", APPLY_PATCH, "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch", ""),
        ("lark", APPLY_PATCH, "*** Begin Patch\n*** End Patch", "refuses it at byte 20"),
        ("regex", r"\p{L}+", "Zürich", ""),
        ("regex", r"\p{L}+", "Zürich 1", "refuses it at byte 7"),
        # LLGuidance's common.ESCAPED_STRING takes a raw line break; Python Lark's does not.
        ("lark", "start: ESCAPED_STRING\n%import common.ESCAPED_STRING", '"a\nb"', ""),
        # `.` stops at a line break in both dialects.
        ("regex", ".+", "a\nb", "refuses it at byte 1"),
    ],
)
def test_problem_says_where_the_grammar_stops_a_text(
    syntax: str, definition: str, text: str, why: str
) -> None:
    problem = compile_grammar(syntax, definition).problem(text)
    assert (why in problem) if why else problem == "", problem
    assert compile_grammar(syntax, definition).accepts(text) is (not why)


def test_compiled_once_per_text(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    real = grammar_module._compile

    def counting(syntax: str, definition: str) -> Any:
        calls.append((syntax, definition))
        return real(syntax, definition)

    monkeypatch.setattr(grammar_module, "_compile", counting)
    unique = f'start: "{uuid.uuid4().hex}"'
    bad = f"start: /{uuid.uuid4().hex}(?=x)/"
    first = compile_grammar("lark", unique)
    assert compile_grammar("lark", unique) is first
    for _ in range(2):
        with pytest.raises(GrammarError):
            compile_grammar("lark", bad)  # a refusal is cached too
    assert calls == [("lark", unique), ("lark", bad)]
    assert compile_grammar("regex", "x").matcher() is not compile_grammar("regex", "x").matcher()


def _custom(fmt: dict[str, Any]) -> dict[str, Any]:
    return {"type": "custom", "name": "runner", "format": {"type": "grammar", **fmt}}


def test_protocol_layer_refuses_with_llguidances_reason_in_openais_error_shape() -> None:
    tool = _custom({"syntax": "regex", "definition": "(?=a)a+"})
    with pytest.raises(APIError) as caught:
        validate_create_body({"model": "m", "input": "hi", "tools": [tool]})
    error = caught.value.body()["error"]
    assert caught.value.status == 400
    # param and code are provisional: no recording of OpenAI's refusal exists yet
    assert (error["type"], error["param"]) == (
        "invalid_request_error",
        "tools[0].format.definition",
    )
    assert error["message"].startswith("Invalid grammar for custom tool 'runner': ")
    assert "look-around" in error["message"]


@pytest.mark.parametrize(("syntax", "definition"), ACCEPTED)
def test_protocol_layer_accepts_the_llguidance_dialect(syntax: str, definition: str) -> None:
    tool = _custom({"syntax": syntax, "definition": definition})
    validate_create_body({"model": "m", "input": "hi", "tools": [tool]})
