"""The judge's reader of custom-tool grammars (conformance/schema/grammar.py): LLGuidance's Lark and
regex dialects, as OpenAI reads them — not Python's ``lark`` / ``re`` (docs/custom-tools.md).

The judged side reads grammars with its own module over the same library
(reference_impl/request/grammar.py); the two are compared here on the mock's own inputs, so a
bug in either shows up as a disagreement (the judge shares no code with the judged; tests may
import both)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conformance.schema.grammar import MAX_INPUT_BYTES, JudgeGrammar, NotJudged, read_grammar
from conformance.suite.grammars import APPLY_PATCH, MATH_EXP

GRAMMARS = Path(__file__).resolve().parents[1] / "data" / "grammars"
FORECAST = 'start: CITY ", " DAYS " days"\nCITY: /[A-Z][a-z]{1,19}/\nDAYS: /[1-7]/'


def _grammar(syntax: str, definition: str) -> JudgeGrammar:
    grammar = read_grammar(syntax, definition)
    assert isinstance(grammar, JudgeGrammar), grammar
    return grammar


def test_the_suites_grammars_are_the_recorded_ones() -> None:
    assert (GRAMMARS / "apply_patch.lark").read_text() == APPLY_PATCH
    assert (GRAMMARS / "math_exp.lark").read_text() == MATH_EXP


# (syntax, definition, inside, outside): grammars Python's lark / re refuse, LLGuidance reads
READ = [
    ("lark", APPLY_PATCH,
     ["*** Begin Patch\n*** Add File: hello.txt\n+Hello, world!\n*** End Patch\n",
      "*** Begin Patch\n*** Delete File: a\n*** End Patch"],
     ["*** Begin Patch\n*** Add File: hello.txt\nHello, world!\n*** End Patch\n",
      "*** Begin Patch\n", "Begin Patch"]),
    ("lark", MATH_EXP, ["4 + 4", "2 * 3 + 1", "7"], ["4 plus 4", "4 +", "4  + 4", ""]),
    ("lark", 'start: "ab"{2,3}', ["abab", "ababab"], ["ab", "abababab", "aba"]),
    ("lark", 'start: "n=" %json {"type": "integer"}', ["n=12", "n=-3"], ["n=1.5", "n="]),
    ("regex", r"\p{L}+", ["été", "日本語", "abc"], ["ab1", "", "a b"]),
    ("regex", "[[:alpha:]]+", ["letters"], ["[:alph]"]),
    ("lark", FORECAST, ["Paris, 3 days"], ["Paris, 3 days!", "paris, 3 days", "Paris, 9 days"]),
]  # fmt: skip


@pytest.mark.parametrize(("syntax", "definition", "inside", "outside"), READ)
def test_the_language_is_llguidances(
    syntax: str, definition: str, inside: list[str], outside: list[str]
) -> None:
    grammar = _grammar(syntax, definition)
    for text in inside:
        assert grammar.outside(text) == "", text
    for text in outside:
        assert grammar.outside(text), text


@pytest.mark.parametrize(
    ("syntax", "definition", "reason"),
    [
        ("regex", "(?=a)a+", "look-around"),
        ("lark", "start: /a(?=b)/", "look-around"),
        ("regex", r"(a)\1", "backreferences are not supported"),
        ("regex", r"\bword", "lookarounds not supported"),
        ("lark", 'A.2: "a"\nstart: A', "priority not supported"),
        ("lark", "start: b", "b"),
        ("ebnf", "root ::= 'a'", "no grammar syntax 'ebnf'"),
    ],
)
def test_what_llguidance_cannot_compile_is_refused_with_its_reason(
    syntax: str, definition: str, reason: str
) -> None:
    refused = read_grammar(syntax, definition)
    assert isinstance(refused, str) and reason in refused
    assert "\n" not in refused and "|" not in refused  # one line, no source echo


def test_the_reasons_say_where_and_why() -> None:
    grammar = _grammar("lark", APPLY_PATCH)
    why = grammar.outside("*** Begin Patch\n*** Add File: hello.txt\nHello\n*** End Patch\n")
    assert why.startswith("the lark grammar refuses byte 40 ")
    assert "'Hello\\n*** End Patch\\n'" in why
    assert "wants more after its last byte" in grammar.outside("*** Begin Patch\n")
    # bytes, not characters: each é is two
    assert "refuses byte 5 " in _grammar("regex", r"\p{L}+").outside("été1")


def test_greedy_lexing_is_llguidances_too() -> None:
    # Python's lark splits `12` between the two terminals; LLGuidance lexes greedily, so no text
    # is in this language (docs/custom-tools.md).
    grammar = _grammar("lark", "start: /[0-9]+/ /[0-9]+/")
    assert grammar.outside("12") and grammar.outside("1 2")


def test_input_over_the_bound_is_not_judged() -> None:
    grammar = _grammar("regex", "a*")
    assert grammar.outside("a" * 1000) == ""
    assert "ends after byte 6" in _grammar("lark", 'start: "ab"{2,3}').outside("abababab")
    with pytest.raises(NotJudged, match="over the"):
        grammar.outside("a" * (MAX_INPUT_BYTES + 1))


def test_a_grammar_is_compiled_once() -> None:
    assert read_grammar("lark", MATH_EXP) is read_grammar("lark", MATH_EXP)
    assert read_grammar("regex", "(?=a)a+") == read_grammar("regex", "(?=a)a+")


@pytest.mark.parametrize(
    ("syntax", "definition"),
    [("lark", APPLY_PATCH), ("lark", MATH_EXP), ("lark", 'start: "ab"{2,3}'),
     ("regex", r"\p{L}+"), ("lark", FORECAST), ("regex", r"[a-z]{2,5}(-[0-9]{1,3})?")],
)  # fmt: skip
def test_the_judge_and_the_judged_agree(syntax: str, definition: str) -> None:
    """On what the mock writes for the grammar (in the language), and on each of those texts
    with a byte dropped, doubled or changed (mostly outside it)."""
    from mock_server import grammar_gen
    from reference_impl.request.grammar import compile_grammar

    judged = compile_grammar(syntax, definition)
    grammar = _grammar(syntax, definition)
    rng = random.Random(7)
    for seed in range(12):
        text = grammar_gen.generate(syntax, definition, random.Random(seed))
        assert grammar.outside(text) == "", text
        for _ in range(4):
            at = rng.randrange(len(text) + 1)
            edited = rng.choice(
                [text[:at] + text[at + 1 :], text[:at] + text[at:][:1] * 2 + text[at + 1 :],
                 text[:at] + rng.choice("+ 4a\n*") + text[at + 1 :]]
            )  # fmt: skip
            assert (grammar.outside(edited) == "") == judged.accepts(edited), repr(edited)
