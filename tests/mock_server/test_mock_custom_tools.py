"""Custom tools (free text and grammar input), tool_choice / allowed_tools, and logprobs in the
mock: each stream judged by the conformance validator, grammar input checked by the grammar's own
parser (``lark`` / ``re``), not by the generator's checker."""

from __future__ import annotations

import math
import random
import re
from typing import Any

import pytest
from lark import Lark
from mock_support import judged_stream, post_mock

from conformance.validator import StreamValidator
from mock_server.grammar_gen import GrammarError, generate

REGEXES = {
    "phone": r"^\d{3}-\d{4}$",
    "command": r"(add|sub|mul) -?\d{1,6} -?\d{1,6}",
    "ident-list": r"[A-Z]{2}\d{2}(-[a-z]+)*",
    "email": r"[a-z][a-z0-9._]{0,15}@[a-z]{2,10}\.(com|org|net)",
    "date": r"(19|20)\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])",
}
LARK = {
    "arithmetic": """
        start: expr
        expr: term (("+" | "-") term)*
        term: factor (("*" | "/") factor)*
        factor: NUMBER | "(" expr ")" | "-" factor
        %import common.NUMBER
    """,
    "sql": """
        start: "SELECT " cols " FROM " NAME where? ";"
        where: " WHERE " NAME " = " (INT | ESCAPED_STRING)
        cols: NAME (", " NAME)* | "*"
        NAME: /[a-z_][a-z0-9_]{0,11}/
        %import common.INT
        %import common.ESCAPED_STRING
    """,
    "json-ish": """
        ?start: value
        ?value: object | array | ESCAPED_STRING | SIGNED_NUMBER | "true" | "false" | "null"
        array: "[" [value ("," value)*] "]"
        object: "{" [pair ("," pair)*] "}"
        pair: ESCAPED_STRING ":" value
        %import common.ESCAPED_STRING
        %import common.SIGNED_NUMBER
    """,
    "patch": """
        start: "*** Begin Patch\\n" hunk+ "*** End Patch"
        hunk: "*** Update File: " PATH "\\n" line+
        line: ("+" | "-" | " ") TEXT "\\n"
        PATH: /[a-z]{1,8}(\\/[a-z]{1,8}){0,2}\\.py/
        TEXT: /[A-Za-z0-9 =()]{1,20}/
    """,
}


@pytest.mark.parametrize("name", sorted(REGEXES))
def test_200_regex_inputs_match(name: str) -> None:
    pattern = re.compile(REGEXES[name])
    rng = random.Random(name)
    texts = [generate("regex", REGEXES[name], rng) for _ in range(200)]
    assert all(pattern.fullmatch(t) for t in texts), [t for t in texts if not pattern.fullmatch(t)]
    assert len(set(texts)) > 50  # not one text repeated


@pytest.mark.parametrize("name", sorted(LARK))
def test_200_lark_inputs_parse(name: str) -> None:
    parser = Lark(LARK[name], start="start")  # the grammar's own parser, built here
    rng = random.Random(name)
    texts = [generate("lark", LARK[name], rng) for _ in range(200)]
    for text in texts:
        parser.parse(text)  # raises on a text the grammar rejects
    assert len(set(texts)) > 20


def test_generation_is_deterministic() -> None:
    for syntax, grammars in (("regex", REGEXES), ("lark", LARK)):
        for g in grammars.values():
            a = [generate(syntax, g, random.Random(7)) for _ in range(3)]
            assert a == [generate(syntax, g, random.Random(7)) for _ in range(3)]


@pytest.mark.parametrize(
    ("syntax", "definition"),
    [("regex", "(unclosed"), ("lark", "start: missing_rule"), ("regex", "a(?=b)c")],
)
def test_bad_or_empty_grammars_raise(syntax: str, definition: str) -> None:
    with pytest.raises(GrammarError):
        generate(syntax, definition, random.Random(0))


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
        {"type": "grammar", "syntax": "lark", "definition": LARK["patch"]},
    ],
    ids=["no-format", "text", "regex", "lark-sql", "lark-patch"],
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
    assert len(deltas) > 1  # streamed, not in one piece
    text = item["input"]
    if fmt is None or fmt["type"] == "text":
        assert text == "Run the query for the users table."
    elif fmt["syntax"] == "regex":
        assert re.fullmatch(fmt["definition"], text)
    else:
        Lark(fmt["definition"], start="start").parse(text)
    assert events[-1]["response"]["output"] == [item]


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
