"""Scenarios: what the mock answers, as a plan of output segments (sans-I/O, no timing).

A scenario turns a :class:`GenerationRequest` and a seeded RNG into a :class:`Plan`; the engine
then streams the plan token by token (:mod:`mock_server.engine`). Names (``SCENARIOS``):

===========================  ================================================================
``auto``                     answer the request's own parameters (the default, see :func:`auto`)
``text``                     a short prose answer echoing the last user message
``long-text``                about 500 tokens of prose
``reasoning``                a reasoning summary (two parts) before the answer
``raw-reasoning``            raw reasoning text (``reasoning_text`` part) before the answer
``function-call``            one call to a declared tool
``parallel-function-calls``  two or three calls (one when ``parallel_tool_calls`` is false)
``text-then-function-call``  a sentence, then a call
``refusal``                  a refusal
``max-output-tokens``        long text cut at ``max_output_tokens`` (16 when unset)
``failure``                  a few text tokens, then :class:`EngineError` (``server_error``)
``structured-output``        JSON valid for ``text.format``'s schema (a built-in one otherwise)
``web-search``               a hosted ``web_search_call`` (search action), then the answer
                             citing its sources (``url_citation``)
``custom-tool-call``         one call to a declared ``custom`` tool (input: free text, or text
                             the tool's regex / Lark grammar accepts)
``hosted-tool-failure``      the hosted tool call the request asks for (web search when none)
                             fails: its item ends ``status: failed`` (:mod:`mock_server.hosted`)
===========================  ================================================================

Tool calls use the request's declared function and custom tools; a request that declares none
gets calls to ``get_weather(location: string)``, which the mock then "knows". A custom tool's
input is text its grammar accepts (:mod:`mock_server.grammar_gen`), else a short free text.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from mock_server import grammar_gen, hosted, instructions, prose, tool_intent
from mock_server.jsonschema_gen import generate
from reference_impl.engine import (
    CustomTool,
    FinishReason,
    FunctionTool,
    GenerationRequest,
    HostedToolCall,
)

__all__ = [
    "DEFAULT_TOOL",
    "HIDDEN_REASONING_TOKENS",
    "SCENARIOS",
    "Plan",
    "Segment",
    "build_plan",
    "reasoning_prefix",
]

# "hidden": reasoning the model does not show (an engine.ReasoningItem); its text is only counted.
# "hosted": a tool call the server ran (web search…); "client_call": a built-in tool call the
# client runs (shell…); "annotation": a citation on the text before it.
SegmentKind = Literal[
    "summary", "raw", "hidden", "text", "refusal", "tool_call", "custom_call", "hosted",
    "client_call", "annotation",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Segment:
    kind: SegmentKind
    text: str = ""  # the streamed text: reasoning, answer, refusal or call arguments
    name: str | None = None  # tool name (tool_call)
    index: int = 0  # summary_index (summary) or call index (tool_call)
    action: Mapping[str, Any] = field(default_factory=dict)  # hosted tool action
    call: HostedToolCall | None = None  # the whole call (hosted, client_call)
    annotation: Mapping[str, Any] | None = None  # annotation
    namespace: str | None = None  # the called tool's namespace (tool_call, custom_call)


@dataclass(frozen=True, slots=True)
class Plan:
    segments: tuple[Segment, ...]
    # Output token budget; the stream is cut with finish_reason "length" when it runs out.
    budget: int | None = None
    # Raise EngineError once this many output tokens have been streamed.
    fail_after: int | None = None
    fail_message: str = ""
    fail_code: str = "server_error"  # the error's code (``invalid_request``: HTTP 400 unstreamed)

    @property
    def finish_reason(self) -> FinishReason:
        calls = ("tool_call", "custom_call", "client_call")
        return "tool_calls" if any(s.kind in calls for s in self.segments) else "stop"


DEFAULT_TOOL = FunctionTool(
    name="get_weather",
    description="Get the current weather for a location.",
    parameters={
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
        "additionalProperties": False,
    },
    strict=True,
)

# What the ``custom-tool-call`` scenario calls when the request declares no custom tool.
DEFAULT_CUSTOM_TOOL = CustomTool(name="run_command", description="Run a shell command.")

_BUILTIN_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "confidence": {"type": "number"}},
    "required": ["answer", "confidence"],
    "additionalProperties": False,
}

# Hidden reasoning tokens per reasoning.effort (low-high, seeded), when no summary is asked for.
HIDDEN_REASONING_TOKENS: Mapping[str, tuple[int, int]] = {
    "minimal": (4, 12),
    "low": (24, 48),
    "medium": (64, 128),
    "high": (160, 320),
    "xhigh": (320, 640),
}
CUTOFF_DEFAULT = 16
FAIL_AFTER = 5
FAILURE_MESSAGE = "The mock engine failed mid-stream (scenario 'failure')."


def build_plan(scenario: str, request: GenerationRequest, rng: random.Random) -> Plan:
    """The plan for ``scenario`` (a name from ``SCENARIOS``)."""
    msgs = request.messages
    budget = request.max_output_tokens
    if scenario == "auto":
        return auto(request, rng)
    if scenario == "text":
        return Plan((_text(rng, request),), budget)
    if scenario == "long-text":
        return Plan((Segment("text", prose.answer(rng, msgs, 500)),), budget)
    if scenario == "reasoning":
        parts = tuple(
            Segment("summary", prose.reasoning_summary(rng, msgs, i), index=i) for i in (0, 1)
        )
        return Plan((*parts, _text(rng, request)), budget)
    if scenario == "raw-reasoning":
        raw = Segment("raw", "Let me think. " + prose.sentences(rng, 24))
        return Plan((raw, _text(rng, request)), budget)
    if scenario == "function-call":
        return Plan(_calls(request, rng, 1), budget)
    if scenario == "parallel-function-calls":
        n = 1 if not request.parallel_tool_calls else min(3, max(2, len(request.tools)))
        return Plan(_calls(request, rng, n), budget)
    if scenario == "text-then-function-call":
        lead = Segment("text", "Let me look that up for you.")
        return Plan((lead, *_calls(request, rng, 1)), budget)
    if scenario == "refusal":
        return Plan((Segment("refusal", prose.refusal(rng)),), budget)
    if scenario == "max-output-tokens":
        long = Segment("text", prose.answer(rng, msgs, max(64, 2 * (budget or 0))))
        return Plan((long,), budget or CUTOFF_DEFAULT)
    if scenario == "failure":
        return Plan((_text(rng, request),), budget, FAIL_AFTER, FAILURE_MESSAGE)
    if scenario == "structured-output":
        return Plan((_structured(request, rng),), budget)
    if scenario == "web-search":
        return Plan(hosted_plan(request, rng, default="web_search") or (), budget)
    if scenario == "hosted-tool-failure":
        return Plan(hosted_plan(request, rng, default="web_search", fail=True) or (), budget)
    if scenario == "custom-tool-call":
        return Plan(_calls(request, rng, 1, prefer_custom=True), budget)
    raise ValueError(f"unknown scenario {scenario!r}")


def auto(request: GenerationRequest, rng: random.Random) -> Plan:
    """Answer as a model would, from the request's parameters and the user's own words
    (:mod:`mock_server.instructions`), first match wins:

    - the last input is a tool's output → a text answer quoting it;
    - ``tool_choice`` forces a call (``required``, a named function or custom tool,
      ``allowed_tools`` required) → one call per independent thing the last user turn asks for
      (:func:`mock_server.instructions.asks`: "the weather in Paris and in Tokyo" → two calls,
      issued in parallel), one when ``parallel_tool_calls`` is false; to the named tool, else
      the tools the user's words ask for (:func:`mock_server.tool_intent.wanted`), else the
      declared ones in order;
    - ``tool_choice`` forces a hosted tool (a hosted type, ``mcp``, ``allowed_tools``) → its
      call (:func:`hosted_plan`);
    - the last user turn makes a simple request (recall a fact an earlier turn stated, "Reply
      only with OK.": :func:`mock_server.instructions.reply`) and no JSON is asked for → that
      answer, tools or not;
    - ``tool_choice`` ``auto`` (or unset) and the user's own words in the last user turn ask for
      what a declared function or custom tool does (the rule of :mod:`mock_server.tool_intent`:
      its name, the content words of its description, a place / path / command the call
      needs) → calls to those tools, with the arguments a model would write
      (:func:`mock_server.tool_intent.arguments`); several tools asked for → one call each;
    - likewise for a declared hosted tool ("search the web for …" → ``web_search``);
    - ``text.format`` ``json_schema`` / ``json_object`` → JSON valid for it;
    - else the simple request's answer, else prose of 40–80 tokens (so a small
      ``max_output_tokens`` cuts it off). A conversation, a greeting, a question the tools
      have nothing to do with: text, never an invented call.

    ``reasoning.summary`` set puts a summary (two parts when ``"detailed"``) before any of these;
    ``reasoning.effort`` set (not ``"none"``) without a summary puts a reasoning item that shows no
    text (``summary: []``, as OpenAI sends), its tokens (``HIDDEN_REASONING_TOKENS``) counted as
    reasoning tokens.
    """
    segments = list(reasoning_prefix(request, rng))
    last = request.messages[-1] if request.messages else None
    role = last.role if last is not None else None
    parallel = request.parallel_tool_calls
    if role == "tool":
        segments.append(Segment("text", prose.tool_result_answer(rng, request.messages, 30)))
    elif _forced_call(request):
        n = instructions.asks(request.messages) if parallel else 1
        segments.extend(_calls(request, rng, n, model_args=True))
    elif role == "user" and _forces_hosted(request) and (found := hosted_plan(request, rng)):
        segments.extend(found)
    elif role == "user" and (answer := _reply(request)) is not None:
        segments.append(Segment("text", answer))
    elif role == "user" and (asked := _asked(request)):
        n = instructions.asks(request.messages) if parallel else 1
        if n == 1 and parallel:
            n = min(len(asked), instructions.MAX_ASKS)
        segments.extend(_calls(request, rng, n, model_args=True, asked=asked))
    elif role == "user" and (hosted_asked := _asked_hosted(request)):
        segments.extend(hosted_plan(request, rng, tools=hosted_asked) or ())
    elif _json_format(request.text_format) is not None:
        segments.append(_structured(request, rng))
    elif (answer := instructions.reply(request.messages)) is not None:
        segments.append(Segment("text", answer))
    else:
        segments.append(_text(rng, request))
    return Plan(tuple(segments), request.max_output_tokens)


def reasoning_prefix(request: GenerationRequest, rng: random.Random) -> tuple[Segment, ...]:
    """The reasoning :func:`auto` puts before its answer: a summary (two parts when
    ``"detailed"``) when ``reasoning.summary`` is set, else hidden reasoning for
    ``reasoning.effort`` (not ``"none"``), else nothing."""
    if request.reasoning_summary:
        parts = 2 if request.reasoning_summary == "detailed" else 1
        return tuple(
            Segment("summary", prose.reasoning_summary(rng, request.messages, i), index=i)
            for i in range(parts)
        )
    if (effort := request.reasoning_effort) is not None and effort in HIDDEN_REASONING_TOKENS:
        low, high = HIDDEN_REASONING_TOKENS[effort]
        return (Segment("hidden", prose.sentences(rng, rng.randint(low, high))),)
    return ()


def _forced_call(request: GenerationRequest) -> bool:
    """``tool_choice`` forces a call to a declared function or custom tool."""
    choice = request.tool_choice
    if not (request.tools or request.custom_tools) or choice == "none":
        return False
    if choice == "required":
        return True
    if isinstance(choice, Mapping):
        if choice.get("type") in ("function", "custom"):
            return True
        if choice.get("type") == "allowed_tools" and choice.get("mode") == "required":
            return True
    return False


def _auto_choice(request: GenerationRequest) -> bool:
    """``tool_choice`` lets the model choose: ``auto`` (the default), or ``allowed_tools``
    in ``auto`` mode."""
    choice = request.tool_choice
    if choice in (None, "auto"):
        return True
    return isinstance(choice, Mapping) and choice.get("type") == "allowed_tools"


def _forces_hosted(request: GenerationRequest) -> bool:
    """``tool_choice`` names a hosted tool (or allows only some), or is ``required`` with no
    function or custom tool to call."""
    choice = request.tool_choice
    if isinstance(choice, Mapping):
        if choice.get("type") == "allowed_tools":
            return choice.get("mode") == "required"
        return choice.get("type") not in ("function", "custom")
    return choice == "required"


def _reply(request: GenerationRequest) -> str | None:
    """The simple request's answer, unless JSON is asked for (which comes first)."""
    if _json_format(request.text_format) is not None:
        return None
    return instructions.reply(request.messages)


def _asked(request: GenerationRequest) -> list[Tool]:
    """The declared (and allowed) function and custom tools the user's words ask for."""
    if not _auto_choice(request):
        return []
    return tool_intent.wanted(
        request.messages, _allowed(request, [*request.tools, *request.custom_tools])
    )


def _asked_hosted(request: GenerationRequest) -> list[Mapping[str, Any]]:
    if not _auto_choice(request):
        return []
    return tool_intent.wanted_hosted(request.messages, _forced_hosted(request))


def _forced_hosted(request: GenerationRequest) -> list[Mapping[str, Any]]:
    """The hosted tools ``tool_choice`` forces: a hosted type ([OAPI] ToolChoiceTypes, ``mcp``
    with its ``server_label``, ``shell`` / ``apply_patch``), or ``allowed_tools`` naming them;
    for ``auto`` / ``required``, the declared ones."""
    declared = hosted.declared_hosted(request)
    choice = request.tool_choice
    if not isinstance(choice, Mapping):
        return declared if choice != "none" else []
    kind = choice.get("type")
    if kind == "allowed_tools":
        wanted = [t for t in choice.get("tools", ()) if isinstance(t, Mapping)]
        return [
            t for t in declared
            if any(w.get("type") == t.get("type") and w.get("server_label") in
                   (None, t.get("server_label")) for w in wanted)
        ]  # fmt: skip
    if kind == "mcp":
        return [
            t for t in declared
            if t.get("type") == "mcp" and t.get("server_label") == choice.get("server_label")
        ]  # fmt: skip
    forced = hosted.tool_type_of(choice)
    if forced is None:
        return []
    same = [t for t in declared if _same_kind(str(t.get("type")), forced)]
    return same or [{"type": forced}]


def _same_kind(declared: str, forced: str) -> bool:
    if forced.startswith("web_search"):
        return declared.startswith("web_search")
    if forced.startswith("computer"):
        return declared.startswith("computer")
    return declared == forced


def hosted_plan(
    request: GenerationRequest,
    rng: random.Random,
    *,
    default: str | None = None,
    fail: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> tuple[Segment, ...] | None:
    """The segments of the hosted (or client-executed built-in) tool call(s) the request asks
    for, with the answer; ``None`` when it asks for none. As many calls as the last user turn
    makes requests (:func:`mock_server.instructions.asks`), at most ``max_tool_calls`` (which
    counts built-in tool calls, [OAPI] ``max_tool_calls``); one call of a client-executed kind.
    ``default``: the tool type to use when the request declares none; ``tools``: the hosted
    tools to call (default: those ``tool_choice`` forces, else the declared ones)."""
    tools = list(tools) if tools is not None else _forced_hosted(request)
    if not tools and default is not None:
        tools = [{"type": default}]
    if not tools:
        return None
    tool = tools[0]
    include = frozenset(i for i in request.body.get("include") or () if isinstance(i, str))
    query = prose.quote(request.messages, 6)

    def fake(index: int, fail_it: bool = fail) -> hosted.Fake:
        return hosted.Fake(request, tool, query, rng, fail_it, include, Segment, index)

    kind = str(tool.get("type"))
    if kind == "mcp":
        return tuple(_mcp_plan(request, fake, tool))
    if kind in hosted.CLIENT_EXECUTED:
        return tuple(hosted.HOSTED_TOOLS[kind](fake(0)))
    limit = request.body.get("max_tool_calls")
    count = instructions.asks(request.messages) if request.parallel_tool_calls else 1
    if type(limit) is int and limit >= 1:
        count = min(count, limit)
    out: list[Segment] = []
    for i in range(count):
        segments = hosted.HOSTED_TOOLS[kind](fake(i))
        out.extend(segments if i == count - 1 else [s for s in segments if s.kind == "hosted"])
    return tuple(out)


def _mcp_plan(
    request: GenerationRequest, fake: Callable[..., hosted.Fake], tool: Mapping[str, Any]
) -> list[Segment]:
    label = tool.get("server_label")
    items = [i for i in request.body.get("input") or () if isinstance(i, Mapping)]
    answer = next((i for i in reversed(items) if i.get("type") == "mcp_approval_response"), None)
    if answer is not None:
        if answer.get("approve") is True:
            return list(hosted.mcp_call(fake(0), str(answer.get("approval_request_id"))))
        return [Segment("text", f"Understood: the {label} tool was not called.")]
    out: list[Segment] = []
    listed = any(
        i.get("type") == "mcp_list_tools" and i.get("server_label") == label for i in items
    )
    if not listed and hosted.mcp_unreachable(tool):
        return list(hosted.mcp_list_tools(fake(0, True)))  # nothing to call
    if not listed:
        out.extend(hosted.mcp_list_tools(fake(0, False)))  # the failure variant fails the call
    if hosted.mcp_needs_approval(tool):
        return [*out, *hosted.mcp_approval_request(fake(0, False))]
    return [*out, *hosted.mcp_call(fake(0))]


def _text(rng: random.Random, request: GenerationRequest) -> Segment:
    return Segment("text", prose.answer(rng, request.messages, rng.randint(40, 80)))


Tool = FunctionTool | CustomTool


def _allowed(request: GenerationRequest, tools: Sequence[Tool]) -> list[Tool]:
    """``tools`` less those ``tool_choice`` ``allowed_tools`` leaves out (all when it leaves
    none in)."""
    choice = request.tool_choice
    if not (isinstance(choice, Mapping) and choice.get("type") == "allowed_tools"):
        return list(tools)
    allowed = {
        (str(t.get("type")), str(t.get("name")))
        for t in choice.get("tools", ())
        if isinstance(t, Mapping)
    }
    return [
        t for t in tools
        if ("function" if isinstance(t, FunctionTool) else "custom", t.name) in allowed
    ] or list(tools)  # fmt: skip


def _choose_tools(
    request: GenerationRequest,
    n: int,
    *,
    prefer_custom: bool = False,
    asked: Sequence[Tool] | None = None,
) -> list[Tool]:
    """The ``n`` tools to call: ``asked`` (best first) when given; else the named tool, else the
    (allowed) tools the user's words ask for, else the declared ones in order; cycling."""
    if asked:
        return [asked[i % len(asked)] for i in range(n)]
    declared: list[Tool] = [*request.tools, *request.custom_tools]
    if prefer_custom:
        declared = list(request.custom_tools) or [DEFAULT_CUSTOM_TOOL]
    tools = declared or [DEFAULT_TOOL]
    choice = request.tool_choice
    if isinstance(choice, Mapping):
        kind = choice.get("type")
        if kind in ("function", "custom") and choice.get("name"):
            cls = FunctionTool if kind == "function" else CustomTool
            named = [t for t in tools if t.name == choice["name"] and isinstance(t, cls)]
            tools = named or tools
        elif kind == "allowed_tools":
            tools = _allowed(request, tools)
    # A user who names a tool, or asks for what it does, wants that one: "call get_weather once
    # for each city".
    user = prose.quote(request.messages, 10_000)
    ordered = [t for t in tools if t.name in user]
    if not ordered:
        wanted = tool_intent.wanted(request.messages, tools)
        ordered = [t for t in wanted if t in tools]
    ordered = ordered or tools
    return [ordered[i % len(ordered)] for i in range(n)]


def _calls(
    request: GenerationRequest,
    rng: random.Random,
    n: int,
    *,
    prefer_custom: bool = False,
    model_args: bool = False,
    asked: Sequence[Tool] | None = None,
) -> tuple[Segment, ...]:
    """Calls to ``n`` tools (:func:`_choose_tools`). A chosen tool that is still deferred
    (``defer_loading``, not loaded by a ``tool_search_output`` of the conversation) is searched
    for first when the request declares a ``tool_search`` tool: a server-executed search puts its
    ``tool_search_call`` and ``tool_search_output`` before the calls; a client-executed one is the
    whole turn (the client runs it and sends the ``tool_search_output`` back). ``model_args``:
    arguments as a model writes them (:func:`mock_server.tool_intent.arguments`), else any valid
    for the tool's schema."""
    chosen = _choose_tools(request, n, prefer_custom=prefer_custom, asked=asked)
    out: list[Segment] = []
    deferred = [t for t in chosen if t.deferred]
    search = _tool_search(request)
    if deferred and search is not None:
        include = frozenset(i for i in request.body.get("include") or () if isinstance(i, str))
        fake = hosted.Fake(
            request, search, prose.quote(request.messages, 12), rng, False, include, Segment
        )
        if search.get("execution") == "client":
            return tuple(hosted.tool_search_client(fake))
        out.extend(hosted.tool_search_server(fake, [_declaration(request, t) for t in deferred]))
    for i, tool in enumerate(chosen):
        namespace = _call_namespace(request, tool)
        if isinstance(tool, CustomTool):
            text = custom_input(tool, request, rng)
            out.append(Segment("custom_call", text, tool.name, i, namespace=namespace))
            continue
        if model_args:
            nth = sum(1 for t in chosen[:i] if t is tool)
            value = tool_intent.arguments(tool, request.messages, nth, rng)
        else:
            value = generate(tool.parameters or {"type": "object", "properties": {}}, rng)
        out.append(Segment("tool_call", orjson.dumps(value).decode(), name=tool.name, index=i,
                           namespace=namespace))  # fmt: skip
    return tuple(out)


def _tool_search(request: GenerationRequest) -> Mapping[str, Any] | None:
    """The request's ``tool_search`` tool ([OAPI] ``ToolSearchToolParam``), if it has one."""
    for tool in request.body.get("tools") or ():
        if isinstance(tool, Mapping) and tool.get("type") == "tool_search":
            return tool
    return None


def _declaration(request: GenerationRequest, tool: Tool) -> Mapping[str, Any]:
    """What a tool search loads for ``tool``: its declaration as sent, inside its namespace (with
    just that member) when it has one."""
    for declared in request.body.get("tools") or ():
        if not isinstance(declared, Mapping):
            continue
        if tool.namespace is None and declared.get("name") == tool.name:
            return declared
        if declared.get("type") == "namespace" and declared.get("name") == tool.namespace:
            members = [t for t in declared.get("tools") or () if t.get("name") == tool.name]
            return {**declared, "tools": members}
    return {"type": "function", "name": tool.name}


def _call_namespace(request: GenerationRequest, tool: Tool) -> str | None:
    """The ``namespace`` field of a call to ``tool``: its namespace tool's name; for a top-level
    tool declared with ``defer_loading``, its own name ([REC] openai-tool-search.1: a call to the
    deferred ``get_weather`` carries ``namespace: "get_weather"``); else none."""
    if tool.namespace is not None:
        return tool.namespace
    for declared in request.body.get("tools") or ():
        if (
            isinstance(declared, Mapping)
            and declared.get("name") == tool.name
            and declared.get("defer_loading") is True
        ):
            return tool.name
    return None


def custom_input(tool: CustomTool, request: GenerationRequest, rng: random.Random) -> str:
    """A custom tool call's input: text the tool's grammar accepts, else the user's request in
    a few words (free text)."""
    if tool.syntax and tool.definition is not None:
        return grammar_gen.generate(tool.syntax, tool.definition, rng)
    return prose.quote(request.messages, 12) or "run"


def _json_format(text_format: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if not text_format:
        return None
    if text_format.get("type") == "json_schema":
        schema = text_format.get("schema")
        return schema if isinstance(schema, Mapping) else _BUILTIN_SCHEMA
    if text_format.get("type") == "json_object":
        return _BUILTIN_SCHEMA
    return None


def _structured(request: GenerationRequest, rng: random.Random) -> Segment:
    schema = _json_format(request.text_format) or _BUILTIN_SCHEMA
    return Segment("text", orjson.dumps(generate(schema, rng)).decode())


SCENARIOS: Sequence[str] = (
    "auto",
    "text",
    "long-text",
    "reasoning",
    "raw-reasoning",
    "function-call",
    "parallel-function-calls",
    "text-then-function-call",
    "refusal",
    "max-output-tokens",
    "failure",
    "structured-output",
    "web-search",
    "custom-tool-call",
    "hosted-tool-failure",
)
