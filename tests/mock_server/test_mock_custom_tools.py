"""Custom tools (free text and grammar input), tool_choice / allowed_tools, and logprobs in the
mock: each stream judged by the conformance validator, grammar input checked by a matcher built
here from LLGuidance's own API (the dialect OpenAI reads), not by the mock's checker; grammars
LLGuidance cannot compile are OpenAI's 400 with its reason. The generator's own tests:
test_mock_grammar_gen.py."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import llguidance
import pytest
from mock_support import judged_stream, post_mock

from conformance.validator import StreamValidator

GRAMMARS = Path(__file__).parents[1] / "data" / "grammars"
APPLY_PATCH = (GRAMMARS / "apply_patch.lark").read_text()
MATH_EXP = (GRAMMARS / "math_exp.lark").read_text()
REGEXES = {
    "command": r"(add|sub|mul) -?\d{1,6} -?\d{1,6}",
    "date": r"(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])",
}
LARK = {
    "sql": """
        start: "SELECT " cols " FROM " NAME where? ";"
        where: " WHERE " NAME " = " (INT | ESCAPED_STRING)
        cols: NAME (", " NAME)* | "*"
        NAME: /[a-z_][a-z0-9_]{0,11}/
        %import common.INT
        %import common.ESCAPED_STRING
    """,
}
_TOKENIZER = llguidance.LLTokenizer("byte")


def llguidance_accepts(syntax: str, definition: str, text: str) -> bool:
    """LLGuidance's own verdict, from a matcher built here (not the mock's)."""
    grammar = llguidance.grammar_from(syntax, definition)  # type: ignore[arg-type]
    matcher = llguidance.LLMatcher(_TOKENIZER, grammar, log_level=0)
    return matcher.consume_tokens(list(text.encode())) and matcher.is_accepting()


def _stream(body: dict[str, Any]) -> list[dict[str, Any]]:
    events = judged_stream(body)
    return events


def _done_items(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["item"] for e in events if e["type"] == "response.output_item.done"]


def _custom(name: str, fmt: dict[str, Any] | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "custom", "name": name, "description": f"The {name} tool."}
    if fmt is not None:
        tool["format"] = fmt
    return tool


FUNCTION = {
    "type": "function",
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize(
    "fmt",
    [
        None,
        {"type": "text"},
        {"type": "grammar", "syntax": "regex", "definition": REGEXES["command"]},
        {"type": "grammar", "syntax": "lark", "definition": LARK["sql"]},
        {"type": "grammar", "syntax": "lark", "definition": APPLY_PATCH},
        {"type": "grammar", "syntax": "lark", "definition": MATH_EXP},
        {"type": "grammar", "syntax": "lark", "definition": 'start: "ab"{2,3}'},
        {"type": "grammar", "syntax": "regex", "definition": r"\p{L}+"},
    ],
    ids=["no-format", "text", "regex", "lark-sql", "apply-patch", "math-exp", "repeat", "letters"],
)
def test_custom_tool_call_streams_input_the_grammar_accepts(fmt: dict[str, Any] | None) -> None:
    events = _stream(
        {
            "input": "Run the query for the users table.",
            "tools": [_custom("runner", fmt)],
            "tool_choice": {"type": "custom", "name": "runner"},
        }
    )
    (item,) = _done_items(events)
    assert item["type"] == "custom_tool_call" and item["name"] == "runner"
    assert item["id"].startswith("ctc_") and item["call_id"].startswith("call_")
    deltas = [e["delta"] for e in events if e["type"] == "response.custom_tool_call_input.delta"]
    (done,) = [e for e in events if e["type"] == "response.custom_tool_call_input.done"]
    assert "".join(deltas) == done["input"] == item["input"]
    text = item["input"]
    assert len(deltas) > 1 or not any(c in text for c in " \n")  # streamed (one word: one token)
    if fmt is None or fmt["type"] == "text":
        assert text == "Run the query for the users table."
    else:
        assert llguidance_accepts(fmt["syntax"], fmt["definition"], text), text
    assert events[-1]["response"]["output"] == [item]


def test_same_request_same_input_bytes() -> None:
    fmt = {"type": "grammar", "syntax": "lark", "definition": APPLY_PATCH}
    body = {"input": "Patch it.", "tools": [_custom("apply_patch", fmt)], "tool_choice": "required"}
    first, second = post_mock(body), post_mock(body)
    assert first.status_code == 200, first.text
    assert first.json()["output"][0]["input"] == second.json()["output"][0]["input"]
    other = post_mock({**body, "input": "Patch it again."}).json()["output"][0]["input"]
    assert llguidance_accepts("lark", APPLY_PATCH, other)


@pytest.mark.parametrize(
    ("syntax", "definition", "reason"),
    [
        ("regex", "(?=a)a+", "look-around"),  # Python's re compiles it
        ("regex", r"(a)\1", "backreferences are not supported"),
        ("lark", 'start: A\nA.2: "a"', "priority not supported"),  # Python's lark compiles it
        ("lark", "start: missing_rule", "unknown name"),
    ],
)
def test_what_llguidance_cannot_compile_is_openais_400(
    syntax: str, definition: str, reason: str
) -> None:
    fmt = {"type": "grammar", "syntax": syntax, "definition": definition}
    response = post_mock(
        {"input": "hi", "tools": [_custom("runner", fmt)], "tool_choice": "required"}
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert (error["type"], error["param"]) == (
        "invalid_request_error",
        "tools[0].format.definition",
    )
    assert error["message"].startswith("Invalid grammar for custom tool 'runner': ")
    assert reason in error["message"]


def test_a_grammar_with_no_text_fails_the_response_not_the_server() -> None:
    # Compiles, but LLGuidance lexes greedily: two adjacent /[0-9]+/ never end.
    fmt = {"type": "grammar", "syntax": "lark", "definition": "start: /[0-9]+/ /[0-9]+/"}
    response = post_mock(
        {"input": "hi", "tools": [_custom("runner", fmt)], "tool_choice": "required"}
    )
    assert response.status_code == 400, response.text
    assert (
        "cannot generate input for the custom tool's grammar" in response.json()["error"]["message"]
    )


def test_tool_choice_outside_the_schema_is_openais_400() -> None:
    response = post_mock(
        {"input": "hi", "tools": [_custom("runner")], "tool_choice": {"type": "x"}}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["param"], error["code"], error["type"]) == (
        "tool_choice.type",
        "invalid_value",
        "invalid_request_error",
    )
    assert "'custom'" in error["message"] and "'allowed_tools'" in error["message"]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"tools": [_custom("a")], "tool_choice": {"type": "custom", "name": "b"}}, "tool_choice"),
        ({"tools": [FUNCTION], "tool_choice": {"type": "custom", "name": "get_weather"}}, "tool_choice"),
        ({"tools": [{"type": "custom"}]}, "tools[0].name"),
        ({"tools": [_custom("a", {"type": "grammar", "syntax": "ebnf", "definition": "x"})]}, "tools[0].format.syntax"),
        ({"tools": [_custom("a", {"type": "grammar", "syntax": "regex"})]}, "tools[0].format.definition"),
        ({"tools": [_custom("a", {"type": "grammar", "syntax": "regex", "definition": "(x"})]}, "tools[0].format.definition"),
        ({"tools": [_custom("a"), _custom("a")]}, "tools[1].name"),
        ({"tools": [_custom("a")], "tool_choice": {"type": "mcp"}}, "tool_choice.server_label"),
    ],
)  # fmt: skip
def test_bad_custom_tools_and_choices_are_400(body: dict[str, Any], param: str) -> None:
    response = post_mock({"input": "hi", **body})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == param


@pytest.mark.parametrize(
    ("allowed", "kind"),
    [
        ([{"type": "custom", "name": "runner"}], "custom_tool_call"),
        ([{"type": "function", "name": "get_weather"}], "function_call"),
    ],
)
def test_allowed_tools_required_calls_only_an_allowed_tool(
    allowed: list[dict[str, Any]], kind: str
) -> None:
    for tools in ([FUNCTION, _custom("runner")], [_custom("runner"), FUNCTION]):
        events = _stream(
            {
                "input": "Check the weather in Paris and in Oslo.",
                "tools": tools,
                "tool_choice": {"type": "allowed_tools", "mode": "required", "tools": allowed},
            }
        )
        items = _done_items(events)
        assert items and {i["type"] for i in items} == {kind}
        assert {i["name"] for i in items} == {allowed[0]["name"]}


def test_allowed_tools_auto_mode_and_parallel_mix_of_kinds() -> None:
    events = _stream(
        {
            "input": "Check Paris and Oslo.",  # forced, and asking for no tool in particular
            "tools": [FUNCTION, _custom("runner")],
            "tool_choice": "required",
        }
    )
    items = _done_items(events)
    assert [i["type"] for i in items] == ["function_call", "custom_tool_call"]
    assert len({i["call_id"] for i in items}) == 2


def test_custom_call_round_trip_state_is_independent_of_stream() -> None:
    body = {"input": "x", "tools": [_custom("runner", {"type": "grammar", "syntax": "regex",
            "definition": REGEXES["date"]})], "tool_choice": "required"}  # fmt: skip
    streamed = _stream(body)[-1]["response"]["output"]
    plain = post_mock(body).json()["output"]
    assert [i["input"] for i in streamed] == [i["input"] for i in plain]


def _logprob_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    return _stream({"input": "Tell me about Paris.", **body})


@pytest.mark.parametrize("top", [0, 1, 5, 20])
def test_logprobs_when_asked(top: int) -> None:
    body = {"include": ["message.output_text.logprobs"], "top_logprobs": top}
    events = _logprob_events(body)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert deltas and all(e["logprobs"] for e in deltas)
    streamed = [lp for e in deltas for lp in e["logprobs"]]
    assert "".join(lp["token"] for lp in streamed) == "".join(e["delta"] for e in deltas)
    for lp in streamed:
        assert lp["logprob"] <= 0
        assert len(lp["top_logprobs"]) == top
        assert all(t["logprob"] <= 0 for t in lp["top_logprobs"])
        assert sum(math.exp(t["logprob"]) for t in lp["top_logprobs"]) <= 1 + 1e-9
        tokens = [t["token"] for t in lp["top_logprobs"]]
        assert len(set(tokens)) == len(tokens)
    (text_done,) = [e for e in events if e["type"] == "response.output_text.done"]
    assert text_done["logprobs"] == streamed
    (part_done,) = [e for e in events if e["type"] == "response.content_part.done"]
    item_part = _done_items(events)[0]["content"][0]
    for part in (part_done["part"], item_part):
        assert [
            {"token": p["token"], "logprob": p["logprob"], "top_logprobs": [
                {"token": t["token"], "logprob": t["logprob"]} for t in p["top_logprobs"]]}
            for p in part["logprobs"]
        ] == streamed  # fmt: skip
        assert all(p["bytes"] == list(p["token"].encode()) for p in part["logprobs"])
    # deterministic, and asking for logprobs changes no text
    again = _logprob_events(body)
    assert [e.get("logprobs") for e in again] == [e.get("logprobs") for e in events]
    plain = _logprob_events({})
    assert [e.get("delta") for e in plain] == [e.get("delta") for e in events]
    assert all(e["logprobs"] == [] for e in plain if e["type"] == "response.output_text.delta")


def _judge_ids(events: list[dict[str, Any]]) -> set[str]:
    validator = StreamValidator()
    return {v.check_id for e in events for v in validator.feed(e)} | {
        v.check_id for v in validator.close()
    }


def test_judge_catches_custom_input_that_differs_between_deltas_done_and_item() -> None:
    events = _stream({"input": "x", "tools": [_custom("runner")], "tool_choice": "required"})
    delta = next(e for e in events if e["type"] == "response.custom_tool_call_input.delta")
    delta["delta"] += "!"
    assert "stream.text.deltas_equal_done" in _judge_ids(events)
    events = _stream({"input": "x", "tools": [_custom("runner")], "tool_choice": "required"})
    done = next(e for e in events if e["type"] == "response.output_item.done")
    done["item"]["input"] += "!"
    assert "stream.item.content_matches" in _judge_ids(events)
