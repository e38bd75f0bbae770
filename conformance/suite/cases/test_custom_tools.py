"""Custom tools ([OAPI] ``CustomToolParam``): a call forced with ``tool_choice: {type: custom}``,
free-text input, input that a ``grammar`` format (Lark or regex) accepts — judged by the grammar's
own parser — and a ``custom_tool_call`` → ``custom_tool_call_output`` round trip.

The grammars are small and unambiguous, so a real model constrained by them has no reason to
miss; the streamed case also puts the ``custom_tool_call_input.*`` events to the judge.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from lark import Lark
from lark.exceptions import LarkError

from ... import catalog as C
from ...catalog import live as L
from .. import answers as A
from ..probe import Probe

pytestmark = pytest.mark.profiles("custom-tools")

PROMPT = "Look up the forecast for Paris for the next 3 days with the forecast tool."
FREEFORM = {
    "type": "custom",
    "name": "forecast",
    "description": "Looks up a weather forecast. Input: a city name and a number of days.",
}
GRAMMARS: dict[str, dict[str, str]] = {
    "lark": {
        "syntax": "lark",
        "definition": 'start: CITY ", " DAYS " days"\nCITY: /[A-Z][a-z]{1,19}/\nDAYS: /[1-7]/',
    },
    "regex": {"syntax": "regex", "definition": r"[A-Z][a-z]{1,19}, [1-7] days"},
}


def _grammar_tool(syntax: str) -> dict[str, Any]:
    return {
        **FREEFORM,
        "description": "Looks up a weather forecast. Input: `CITY, N days`.",
        "format": {"type": "grammar", **GRAMMARS[syntax]},
    }


def _custom_calls(
    probe: Probe, tool: dict[str, Any], stream: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    body = probe.body(
        input=PROMPT, tools=[tool], tool_choice={"type": "custom", "name": "forecast"}
    )
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    calls = A.items_of(response, "custom_tool_call")
    ok = bool(calls) and all(
        c.get("name") == "forecast"
        and isinstance(c.get("input"), str)
        and isinstance(c.get("call_id"), str)
        for c in calls
    )
    probe.check(
        L.CUSTOM_CALL, ok, probe.last,
        expected="custom_tool_call items to `forecast`, each with a string input and a call_id",
        actual=f"output {A.output_types(response)}: {calls[:2]}",
    )  # fmt: skip
    return response, calls


def grammar_problem(syntax: str, definition: str, text: str) -> str:
    """Why ``text`` is not in the grammar's language ("" when it is)."""
    if syntax == "regex":
        return "" if re.fullmatch(definition, text) else "the regex does not match all of it"
    try:
        Lark(definition, start="start").parse(text)
    except LarkError as error:
        return f"the Lark grammar rejects it: {str(error).splitlines()[0]}"
    return ""


_STREAMS = pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])


@pytest.mark.checks(L.CUSTOM_CALL.id, C.DELTAS_EQUAL_DONE.id, C.ITEM_CONTENT_MATCHES.id)
@_STREAMS
def test_custom_tool_freeform(probe: Probe, stream: bool) -> None:
    _custom_calls(probe, FREEFORM, stream)


@pytest.mark.checks(L.CUSTOM_CALL.id, L.CUSTOM_GRAMMAR.id, C.DELTAS_EQUAL_DONE.id)
@pytest.mark.parametrize("syntax", sorted(GRAMMARS))
@_STREAMS
def test_custom_tool_grammar(probe: Probe, syntax: str, stream: bool) -> None:
    _response, calls = _custom_calls(probe, _grammar_tool(syntax), stream)
    if not calls:
        return
    definition = GRAMMARS[syntax]["definition"]
    for call in calls:
        why = grammar_problem(syntax, definition, str(call.get("input")))
        probe.check(
            L.CUSTOM_GRAMMAR, not why, probe.last,
            expected=f"input the {syntax} grammar accepts", actual=f"{call.get('input')!r}: {why}",
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
