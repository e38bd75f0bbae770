"""Agent scripts: drive an agent (Codex CLI, the Agents SDK, your own loop) through a task.

A script says which tool the mock calls at each step of a turn, with which arguments, and what it
answers at the end. It is stateless — the step is read from the request's own history — so it is
deterministic across runs, replicas and restarts, and works with ``store: false`` clients that
send their whole history each time (Codex).

Format (JSON; a bare list is ``{"steps": [...]}``)::

    {"rules": [
        {"when": "CONTEXT CHECKPOINT COMPACTION", "steps": [{"say": "Summary: ..."}]},
        {"steps": [
            {"call": ["exec_command", "shell"], "arguments": {"cmd": "echo hi"}},
            {"call": "read_file"},
            {"say": "Done: the command printed hi."}
        ]}
    ]}

- A **rule** applies when its ``when`` text occurs in the last user message (no ``when``: always);
  the first that applies is used. ``{"steps": [...]}`` alone is one rule without ``when``.
- The **step** of a request is the number of assistant turns with tool calls since the last user
  message: the first request of a turn gets step 0, the request that carries the first call's
  output step 1, and so on.
- ``{"call": NAME, "arguments": {...}}`` calls the function tool ``NAME`` (a list: the first of
  them the request declares) with exactly these arguments (an object, or a string sent as is);
  without ``arguments``, with arguments generated valid for the tool's schema (seeded).
  ``{"calls": [call, ...]}`` issues several calls in one response (parallel calls).
- ``{"say": TEXT}`` answers ``TEXT``; ``{"scenario": NAME}`` answers as that scenario would
  (``auto``: as the mock answers without a script, e.g. recalling a code word).
- A key the format does not name (a typo: ``argument``, ``step``, ``steps`` next to ``rules``) is
  refused, never dropped.
- Past the last step (or with no steps) the mock answers as ``auto`` would with no tools to call:
  the reply to a simple request of the last user turn (recalling a code word an earlier turn
  gave, "Reply only with OK.": :func:`mock_server.instructions.reply`), else prose.

Reasoning the request asks for (``reasoning.summary`` / ``reasoning.effort``) comes before each
step's output, as with ``auto`` — so a ``store: false`` client that asks for
``reasoning.encrypted_content`` gets reasoning items to send back.

Where a script comes from (:mod:`mock_server.engine`): the ``x-mock-script`` header (the JSON
itself), ``metadata["mock_script"]``, or the server's ``--script FILE`` for every request.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from mock_server import instructions, prose, scenarios
from mock_server.jsonschema_gen import generate
from mock_server.scenarios import Plan, Segment
from reference_impl.engine import FunctionTool, GenerationRequest, Message

__all__ = ["MAX_SCRIPT_BYTES", "AgentScript", "Call", "Rule", "ScriptError", "Step", "parse"]

MAX_SCRIPT_BYTES = 64 * 1024
_STEP_KEYS = frozenset({"call", "calls", "say", "scenario"})


class ScriptError(ValueError):
    """A script that cannot be read; the message says where."""


@dataclass(frozen=True, slots=True)
class Call:
    names: tuple[str, ...]  # the first one the request declares is called
    arguments: str | None = None  # JSON text; None: generated from the tool's schema


@dataclass(frozen=True, slots=True)
class Step:
    calls: tuple[Call, ...] = ()
    say: str | None = None
    scenario: str | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    steps: tuple[Step, ...]
    when: str | None = None


@dataclass(frozen=True, slots=True)
class AgentScript:
    rules: tuple[Rule, ...] = field(default_factory=tuple)

    def rule_for(self, messages: Sequence[Message]) -> Rule | None:
        last_user = next((m.content for m in reversed(messages) if m.role == "user"), "")
        return next((r for r in self.rules if r.when is None or r.when in last_user), None)

    def plan(self, request: GenerationRequest, rng: random.Random) -> Plan:
        """The plan for ``request``: its rule's step, after the reasoning it asks for.
        :class:`ScriptError` when a step calls a tool the request does not declare."""
        rule = self.rule_for(request.messages)
        steps = rule.steps if rule is not None else ()
        index = step_index(request.messages)
        step = steps[index] if index < len(steps) else None
        if step is not None and step.scenario is not None:
            return scenarios.build_plan(step.scenario, request, rng)
        segments = list(scenarios.reasoning_prefix(request, rng))
        if step is None:
            answer = instructions.reply(request.messages)
            text = answer if answer is not None else prose.answer(rng, request.messages, 40)
            segments.append(Segment("text", text))
        elif step.say is not None:
            segments.append(Segment("text", step.say))
        else:
            for i, call in enumerate(step.calls):
                tool = _declared(call, request.tools)
                args = call.arguments
                if args is None:
                    schema = tool.parameters or {"type": "object", "properties": {}}
                    args = orjson.dumps(generate(schema, rng)).decode()
                segments.append(Segment("tool_call", args, name=tool.name, index=i))
        return Plan(tuple(segments), request.max_output_tokens)


def step_index(messages: Sequence[Message]) -> int:
    """Assistant turns with tool calls since the last user message."""
    count = 0
    for message in reversed(messages):
        if message.role == "user":
            break
        if message.role == "assistant" and message.tool_calls:
            count += 1
    return count


def _declared(call: Call, tools: Sequence[FunctionTool]) -> FunctionTool:
    by_name = {t.name: t for t in tools}
    for name in call.names:
        if name in by_name:
            return by_name[name]
    declared = ", ".join(sorted(by_name)) or "none"
    raise ScriptError(
        f"the script calls {' or '.join(call.names)}, which the request does not declare "
        f"(function tools: {declared})"
    )


def parse(text: str | bytes) -> AgentScript:
    """Read a script (the format in the module docstring); :class:`ScriptError` if malformed."""
    if len(text) > MAX_SCRIPT_BYTES:
        raise ScriptError(f"a script is at most {MAX_SCRIPT_BYTES} bytes")
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise ScriptError(f"not JSON: {error}") from None
    if isinstance(doc, list):
        doc = {"steps": doc}
    if not isinstance(doc, dict):
        raise ScriptError("a script is a JSON object or a list of steps")
    if "rules" in doc:
        _known(doc, ("rules",), "script")
        rules = doc["rules"]
        if not isinstance(rules, list) or not rules:
            raise ScriptError("rules: a non-empty list")
        return AgentScript(tuple(_rule(r, f"rules[{i}]") for i, r in enumerate(rules)))
    return AgentScript((_rule(doc, "script"),))


def _known(doc: Mapping[str, Any], keys: tuple[str, ...], where: str) -> None:
    """A key the format does not have is a typo (``argument``, ``step``) that would otherwise be
    dropped silently: refused."""
    unknown = [k for k in doc if k not in keys]
    if unknown:
        names = ", ".join(repr(k) for k in unknown[:3]) + (" ..." if len(unknown) > 3 else "")
        raise ScriptError(f"{where}: unknown key(s) {names}; expected {', '.join(keys)}")


def _rule(doc: Any, where: str) -> Rule:
    if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
        raise ScriptError(f"{where}: an object with a list of steps")
    _known(doc, ("when", "steps"), where)
    when = doc.get("when")
    if when is not None and (not isinstance(when, str) or not when):
        raise ScriptError(f"{where}.when: a non-empty string")
    steps = tuple(_step(s, f"{where}.steps[{i}]") for i, s in enumerate(doc["steps"]))
    return Rule(steps, when)


def _step(doc: Any, where: str) -> Step:
    if not isinstance(doc, dict) or len(_STEP_KEYS & doc.keys()) != 1:
        raise ScriptError(f"{where}: an object with one of call, calls, say, scenario")
    if "say" in doc:
        _known(doc, ("say",), where)
        if not isinstance(doc["say"], str):
            raise ScriptError(f"{where}.say: a string")
        return Step(say=doc["say"])
    if "scenario" in doc:
        _known(doc, ("scenario",), where)
        name = doc["scenario"]
        if name not in scenarios.SCENARIOS:
            raise ScriptError(f"{where}.scenario: one of {', '.join(scenarios.SCENARIOS)}")
        return Step(scenario=name)
    if "calls" in doc:
        _known(doc, ("calls",), where)
        calls = doc["calls"]
        if not isinstance(calls, list) or not calls:
            raise ScriptError(f"{where}.calls: a non-empty list of calls")
        return Step(calls=tuple(_call(c, f"{where}.calls[{i}]") for i, c in enumerate(calls)))
    return Step(calls=(_call(doc, where),))


def _call(doc: Any, where: str) -> Call:
    if not isinstance(doc, dict):
        raise ScriptError(f"{where}: an object with call (and arguments)")
    _known(doc, ("call", "arguments"), where)
    names = doc.get("call")
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ScriptError(f"{where}.call: a tool name or a list of them")
    args = doc.get("arguments")
    if args is None:
        return Call(tuple(names))
    if isinstance(args, Mapping):
        return Call(tuple(names), orjson.dumps(args).decode())
    if isinstance(args, str):
        return Call(tuple(names), args)
    raise ScriptError(f"{where}.arguments: an object or a JSON string")
