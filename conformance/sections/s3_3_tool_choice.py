"""§3.3 The request: ``tool_choice`` and function tools (docs/spec.md#s3-3): ``live.tools.*``.

``tool_choice: required`` gets a call to a declared tool, a named function calls to that function
only, ``allowed_tools`` calls to the listed tools only, ``none`` no call, ``auto`` a message or
calls to declared tools; arguments are a JSON object valid for the tool's ``parameters``
(``FunctionTool.strict``); parallel calls carry distinct ``call_id``s and item ids, and
``parallel_tool_calls: false`` gets at most one call; a request carrying a ``function_call`` and
its ``function_call_output`` is answered with a message (§4.3). Each check's rule is the case
below that evaluates it (:mod:`.cases`, area ``tools``), run against a target that declares the
``tools`` profile; its failing example is a misbehaving server (tests/suite/broken_servers.py),
its near miss the embedded mock. A case cut off by a token limit is skipped: a call stopped
mid-arguments cannot be judged (the cut-off itself is the usage and incomplete checks').

``live.tools.arguments_valid`` is evaluated by the stateful chain's cases too
(``previous_response_id``), which take it from :mod:`conformance.catalog.live`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, register
from ..suite import answers as A
from .case_support import TIME_TOOL, WEATHER_TOOL, answered_with_a_message, schema_errors
from .cases import STREAMS, case, params
from .s2_6_inside_item_values import ARGS_ORDER

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "TOOLS_ALLOWED",
    "TOOLS_ARGUMENTS",
    "TOOLS_AUTO",
    "TOOLS_NAMED",
    "TOOLS_NONE",
    "TOOLS_OUTPUT_ROUND_TRIP",
    "TOOLS_PARALLEL",
    "TOOLS_REQUIRED",
    "declare_examples",
]

PROFILE = ("tools",)

TOOLS_REQUIRED = register(
    "live.tools.required",
    Level.MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: required` gets at least one function call, to a declared tool",
    profile="tools",
)
TOOLS_NAMED = register(
    "live.tools.named",
    Level.MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: {type: function, name}` gets calls to that function only",
    profile="tools",
)
TOOLS_NONE = register(
    "live.tools.none",
    Level.MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: none` gets no function call",
    profile="tools",
)
TOOLS_AUTO = register(
    "live.tools.auto",
    Level.MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: auto` gets a message or calls to declared tools",
    profile="tools",
)
TOOLS_ARGUMENTS = register(
    "live.tools.arguments_valid",
    Level.MUST,
    "§3.3 [OAPI] FunctionTool.strict",
    "function call arguments are a JSON object valid for the tool's `parameters` schema",
    profile="tools",
)
TOOLS_PARALLEL = register(
    "live.tools.parallel",
    Level.MUST,
    "§3.3 (parallel_tool_calls)",
    "parallel calls carry distinct `call_id`s and item ids; `parallel_tool_calls: false` gets at "
    "most one call",
    profile="tools",
)
TOOLS_OUTPUT_ROUND_TRIP = register(
    "live.tools.output_round_trip",
    Level.MUST,
    "§4.3 [OAPI] FunctionCallOutput",
    "a request carrying a `function_call` and its `function_call_output` is answered with a message",
    profile="tools",
)
TOOLS_ALLOWED = register(
    "live.tools.allowed_tools",
    Level.MUST,
    "§3.3 (tool_choice), §1.7 [OAPI] ToolChoiceAllowed",
    "`tool_choice: {type: allowed_tools, mode: required, tools}` gets calls, each to a listed tool "
    "(other declared tools are not called)",
    profile="tools",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        TOOLS_NONE.id,
        "tool_choice_none_ignored",
        "a server that calls a tool under `tool_choice: none`",
    )
    live(
        TOOLS_REQUIRED.id,
        "tool_choice_required_ignored",
        "a server that answers `tool_choice: required` with a message",
    )
    live(
        TOOLS_ARGUMENTS.id,
        "arguments_not_json",
        "a server whose function call arguments are not JSON",
    )
    live(
        TOOLS_PARALLEL.id,
        "parallel_calls_share_call_id",
        "a server whose parallel calls share one `call_id`",
    )
    live(
        TOOLS_OUTPUT_ROUND_TRIP.id,
        "call_output_round_trip_ignored",
        "a server that answers a request carrying a `function_call` and its output with no text",
    )
    live(
        TOOLS_NAMED.id,
        "named_choice_ignored",
        "a server that answers a named `tool_choice` with a call to another tool",
    )
    live(
        TOOLS_AUTO.id,
        "calls_an_undeclared_tool",
        "a server that answers `tool_choice: auto` with a call to a tool the request did not "
        "declare",
    )
    live(
        TOOLS_ALLOWED.id,
        "allowed_tools_ignored",
        "a server that serves `allowed_tools` as `required` over every declared tool",
    )


TOOLS = [WEATHER_TOOL, TIME_TOOL]
_SCHEMAS = {t["name"]: t["parameters"] for t in TOOLS}
WEATHER_PROMPT = "What is the weather in Paris right now? Use celsius."
TWO_CITIES = (
    "Get the weather in Paris and in Tokyo, in celsius. Call get_weather once for each city, "
    "both calls in this one turn."
)


def _respond(probe: Probe, stream: bool, **fields: Any) -> dict[str, Any]:
    body = probe.body(tools=TOOLS, **fields)
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    if response.get("status") == "incomplete":
        # Cut off by a token limit (SPEC §4): a call may stop mid-arguments, so neither its
        # arguments nor the choice of tool can be judged. The cut-off itself is judged by the
        # usage and incomplete checks. (Found by the vendor matrix: vLLM's constrained decoding
        # ran a scripted model to its length limit inside a JSON string.)
        reason = (response.get("incomplete_details") or {}).get("reason")
        probe.skip(f"the response is incomplete ({reason}): a cut-off call cannot be judged")
    return response


def _check_calls(probe: Probe, response: dict[str, Any]) -> list[dict[str, Any]]:
    """Every call names a declared tool, with arguments valid for its schema."""
    calls = A.function_calls(response)
    for call in calls:
        name = call.get("name")
        schema = _SCHEMAS.get(name) if isinstance(name, str) else None
        if schema is None:
            probe.check(
                TOOLS_ARGUMENTS, False, probe.last,
                expected=f"a call to one of {sorted(_SCHEMAS)}", actual=f"a call to {name!r}",
            )  # fmt: skip
            continue
        args, why = A.parse_arguments(call)
        errors = [why] if why else schema_errors(args, schema)
        probe.check(
            TOOLS_ARGUMENTS, not errors, probe.last,
            expected=f"arguments valid for {name}'s parameters",
            actual=f"{call.get('arguments')!r}: {'; '.join(errors)}",
        )  # fmt: skip
    return calls


@case("tools", TOOLS_REQUIRED, TOOLS_ARGUMENTS, ARGS_ORDER, profiles=PROFILE)
@params("stream", STREAMS)
def test_tool_choice_required(probe: Probe, stream: bool) -> None:
    response = _respond(probe, stream, input=WEATHER_PROMPT, tool_choice="required")
    calls = _check_calls(probe, response)
    probe.check(
        TOOLS_REQUIRED, bool(calls), probe.last,
        expected="at least one function call", actual=f"output {A.output_types(response)}",
    )  # fmt: skip


@case("tools", TOOLS_NAMED, TOOLS_ARGUMENTS, profiles=PROFILE)
@params("stream", STREAMS)
def test_tool_choice_named(probe: Probe, stream: bool) -> None:
    choice = {"type": "function", "name": "get_time"}
    # The prompt asks for the weather: only the named choice makes the model call get_time.
    response = _respond(probe, stream, input=WEATHER_PROMPT, tool_choice=choice)
    names = [c.get("name") for c in _check_calls(probe, response)]
    probe.check(
        TOOLS_NAMED, bool(names) and set(names) == {"get_time"}, probe.last,
        expected="calls to get_time only", actual=f"calls to {names}",
    )  # fmt: skip


@case("tools", TOOLS_ALLOWED, TOOLS_ARGUMENTS, profiles=PROFILE)
@params("allowed", ["get_time", "get_weather"])
def test_tool_choice_allowed_tools(probe: Probe, allowed: str) -> None:
    choice = {"type": "allowed_tools", "mode": "required",
              "tools": [{"type": "function", "name": allowed}]}  # fmt: skip
    # The prompt asks for the weather: with only get_time allowed, get_weather must not be called.
    response = _respond(probe, False, input=WEATHER_PROMPT, tool_choice=choice)
    names = [c.get("name") for c in _check_calls(probe, response)]
    probe.check(
        TOOLS_ALLOWED, bool(names) and set(names) == {allowed}, probe.last,
        expected=f"calls to {allowed} only (the one allowed tool)", actual=f"calls to {names}",
    )  # fmt: skip


@case("tools", TOOLS_NONE, profiles=PROFILE)
@params("stream", STREAMS)
def test_tool_choice_none(probe: Probe, stream: bool) -> None:
    response = _respond(probe, stream, input=WEATHER_PROMPT, tool_choice="none")
    probe.check(
        TOOLS_NONE, not A.function_calls(response) and bool(A.output_text(response)),
        probe.last, expected="a message and no function call",
        actual=f"output {A.output_types(response)}",
    )  # fmt: skip


@case("tools", TOOLS_AUTO, TOOLS_ARGUMENTS, profiles=PROFILE)
@params("stream", STREAMS)
def test_tool_choice_auto(probe: Probe, stream: bool) -> None:
    response = _respond(probe, stream, input=WEATHER_PROMPT, tool_choice="auto")
    calls = _check_calls(probe, response)
    names = {c.get("name") for c in calls}
    probe.check(
        TOOLS_AUTO,
        (bool(calls) and names <= set(_SCHEMAS)) or bool(A.output_text(response).strip()),
        probe.last, expected="a message, or calls to declared tools",
        actual=f"output {A.output_types(response)}",
    )  # fmt: skip


@case("tools", TOOLS_PARALLEL, TOOLS_ARGUMENTS, profiles=PROFILE, attempts=3)
def test_parallel_calls(probe: Probe) -> None:
    response = _respond(
        probe, False, input=TWO_CITIES, tool_choice="required", parallel_tool_calls=True
    )
    calls = _check_calls(probe, response)
    probe.nondeterministic(
        len(calls) >= 2, "the model issued fewer than two calls", exhausted="skip"
    )
    call_ids = [c.get("call_id") for c in calls]
    item_ids = [c.get("id") for c in calls]
    probe.check(
        TOOLS_PARALLEL,
        len(set(call_ids)) == len(calls) and len(set(item_ids)) == len(calls), probe.last,
        expected="distinct call_id and id for every call",
        actual=f"call_ids {call_ids}, ids {item_ids}",
    )  # fmt: skip


@case("tools", TOOLS_PARALLEL, profiles=PROFILE)
def test_parallel_calls_disabled(probe: Probe) -> None:
    response = _respond(
        probe, False, input=TWO_CITIES, tool_choice="required", parallel_tool_calls=False
    )
    calls = A.function_calls(response)
    probe.check(
        TOOLS_PARALLEL,
        len(calls) <= 1 and response.get("parallel_tool_calls") is False, probe.last,
        expected="at most one call, parallel_tool_calls echoed false",
        actual=f"{len(calls)} call(s), parallel_tool_calls {response.get('parallel_tool_calls')!r}",
    )  # fmt: skip


@case("tools", TOOLS_OUTPUT_ROUND_TRIP, profiles=PROFILE, attempts=3)
def test_function_call_output_round_trip(probe: Probe) -> None:
    call_id = "call_conformance_1"
    arguments = json.dumps({"city": "Paris", "unit": "celsius"})
    history = [
        {"role": "user", "content": WEATHER_PROMPT},
        {"type": "function_call", "call_id": call_id, "name": "get_weather",
         "arguments": arguments},
        {"type": "function_call_output", "call_id": call_id,
         "output": json.dumps({"temperature": 21, "conditions": "sunny"})},
    ]  # fmt: skip
    response = _respond(probe, False, input=history)
    answered_with_a_message(
        probe, TOOLS_OUTPUT_ROUND_TRIP, response, called_again=bool(A.function_calls(response))
    )
