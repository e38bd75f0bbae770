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
- ``NAME`` may be a ``custom`` (freeform) tool the request declares — Codex's ``apply_patch``
  for catalogue models: ``{"call": "apply_patch", "arguments": "*** Begin Patch\\n…"}`` sends
  the string as the ``custom_tool_call``'s ``input``. Where the tool declares a grammar, the input
  must be in its language as LLGuidance reads it (:mod:`reference_impl.request.grammar`); one
  outside it is an error naming the step (``Mock agent script: rules[0].steps[1]: the input
  for the custom tool 'apply_patch' is outside its lark grammar: …``, HTTP 400 /
  ``response.failed``). Without ``arguments``, the input is written in the grammar's language
  (:mod:`mock_server.grammar_gen`). A custom tool's input is text: an object is refused.
- ``{"say": TEXT}`` answers ``TEXT``; ``{"scenario": NAME}`` answers as that scenario would
  (``auto``: as the mock answers without a script, e.g. recalling a code word).

**Checks** — a step after the first may say what the tool output(s) it receives (those the
request carries after the previous step's calls) must be, so a script cannot end in its canned
success when the agent's tool failed:

- ``"expect": TEXT`` — the outputs (joined) contain ``TEXT``; ``"expect_not": TEXT`` — they do
  not;
- ``"ok": true`` — no output is an error; ``"ok": false`` — one is (a step that tests a
  failure). **An error** is an output that reports a non-zero exit status as Codex writes it —
  ``Process exited with code N`` (``exec_command``, codex-rs unified exec), ``Exit code: N``
  (the ``shell`` tool's text), ``"exit_code": N`` (its JSON metadata) — or that begins with
  ``error`` / ``An error occurred`` (the Agents SDK's default failure text: "An error occurred
  while running the tool. …") or Codex's ``failed to parse function arguments`` /
  ``unsupported call``.

A check that does not hold answers the step's failure instead of its output: a message
``Mock script check failed at rules[0].steps[1]: expected … ; got …`` (the step's place in the
script, what it expected, the start of what came), then the response fails (``error`` +
``response.failed``, code ``invalid_request``; unstreamed: HTTP 400 with that message). A step
with checks on step 0 (nothing before it) is refused.

**Faults** — ``"fault": PLAN`` on a step injects :mod:`mock_server.faults` faults into the
request that gets that step (same syntax as ``x-mock-fault``: ``"429"``, ``"500"``, ``"slow=2"``,
``"error=5"``, ``"drop"``; several with ``;``), so an agent's retries can be tested at a given
turn. A fault without ``@`` / ``~`` hits the **first attempt only**: the mock counts attempts by
the request's bytes, and a client's retry resends the same body, so the retry (attempt 2) gets
the step's normal answer; ``"429@1,2"`` fails twice, ``"500@*"`` always. ``"drop"`` on a call
step cuts the stream in the middle of the call (``drop=call``: right after its first arguments
delta). The step is read from the request's own input, so faults need the whole history in the
request (``store: false`` clients such as Codex, the Agents SDK without
``previous_response_id``); over HTTP (not WebSocket mode).
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

import dataclasses
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from mock_server import grammar_gen, instructions, prose, scenarios
from mock_server.faults import Fault, FaultPlan, FaultSyntaxError
from mock_server.jsonschema_gen import generate
from mock_server.scenarios import Plan, Segment
from mock_server.tokenizer import tokenize
from reference_impl.engine import CustomTool, FunctionTool, GenerationRequest, Message
from reference_impl.json_limits import JSONTooDeep, loads_bounded
from reference_impl.request.messages import to_messages

__all__ = [
    "MAX_SCRIPT_BYTES",
    "AgentScript",
    "Call",
    "Rule",
    "ScriptError",
    "Step",
    "is_error",
    "parse",
    "step_faults",
]

MAX_SCRIPT_BYTES = 64 * 1024
_STEP_KEYS = frozenset({"call", "calls", "say", "scenario"})
_CHECK_KEYS = ("expect", "expect_not", "ok", "fault")
CHECK_FAILED_CODE = "invalid_request"
# A non-zero exit status as Codex reports it, or a failure text (module docstring).
_EXIT = re.compile(
    r"Process exited with code (-?\d+)|\bExit code:\s*(-?\d+)|\"exit_code\"\s*:\s*(-?\d+)"
)
_FAILURE_START = re.compile(
    r"\s*(?:error\b|an error occurred|failed to parse function arguments|unsupported call)",
    re.IGNORECASE,
)
_SNIPPET = 160


class ScriptError(ValueError):
    """A script that cannot be read; the message says where."""


@dataclass(frozen=True, slots=True)
class Call:
    names: tuple[str, ...]  # the first one the request declares is called
    arguments: str | None = None  # JSON text; None: generated from the tool's schema
    text: bool = False  # arguments given as a string (a custom tool's input), not an object


@dataclass(frozen=True, slots=True)
class Step:
    calls: tuple[Call, ...] = ()
    say: str | None = None
    scenario: str | None = None
    expect: str | None = None  # the tool outputs received contain this
    expect_not: str | None = None  # ... do not contain this
    ok: bool | None = None  # True: no output is an error (is_error); False: one is
    faults: tuple[Fault, ...] = ()  # injected into the request that gets this step
    where: str = ""  # "rules[0].steps[1]": for the failure message

    def check(self, outputs: Sequence[str]) -> str | None:
        """Why ``outputs`` (the tool outputs this step receives) fail its checks; ``None``: they
        pass."""
        joined = "\n".join(outputs)
        got = " ".join(joined.split())
        got = repr(got[:_SNIPPET] + ("…" if len(got) > _SNIPPET else "")) if outputs else "none"
        failed = [is_error(o) for o in outputs]
        if self.expect is not None and self.expect not in joined:
            want = f"a tool output containing {self.expect!r}"
        elif self.expect_not is not None and self.expect_not in joined:
            want = f"no tool output containing {self.expect_not!r}"
        elif self.ok is True and (any(failed) or not outputs):
            want = "a tool output that is not an error"
        elif self.ok is False and not any(failed):
            want = "a tool output that is an error"
        else:
            return None
        return f"Mock script check failed at {self.where}: expected {want}; got {got}."


@dataclass(frozen=True, slots=True)
class Rule:
    steps: tuple[Step, ...]
    when: str | None = None


@dataclass(frozen=True, slots=True)
class AgentScript:
    rules: tuple[Rule, ...] = field(default_factory=tuple)

    def rule_for(self, messages: Sequence[Message]) -> Rule | None:
        last_user = instructions.last_user_words(messages) or ""
        return next((r for r in self.rules if r.when is None or r.when in last_user), None)

    def plan(self, request: GenerationRequest, rng: random.Random) -> Plan:
        """The plan for ``request``: its rule's step, after the reasoning it asks for.
        :class:`ScriptError` when a step calls a tool the request does not declare."""
        rule = self.rule_for(request.messages)
        steps = rule.steps if rule is not None else ()
        index = step_index(request.messages)
        step = steps[index] if index < len(steps) else None
        failure = step.check(_outputs(request.messages)) if step is not None else None
        if step is not None and step.scenario is not None and failure is None:
            return scenarios.build_plan(step.scenario, request, rng)
        segments = list(scenarios.reasoning_prefix(request, rng))
        if failure is not None:
            # The failure, said and then failed on, so a test sees it whichever it reads.
            segments.append(Segment("text", failure))
            used = sum(len(tokenize(s.text)) for s in segments)
            return Plan(tuple(segments), None, used, failure, CHECK_FAILED_CODE)
        if step is None:
            answer = instructions.reply(request.messages)
            text = answer if answer is not None else prose.answer(rng, request.messages, 40)
            segments.append(Segment("text", text))
        elif step.say is not None:
            segments.append(Segment("text", step.say))
        else:
            for i, call in enumerate(step.calls):
                tool = _declared(call, request)
                if isinstance(tool, CustomTool):
                    text = _custom_input(call, tool, request, rng, step.where)
                    segments.append(Segment("custom_call", text, name=tool.name, index=i))
                    continue
                args = call.arguments
                if args is None:
                    schema = tool.parameters or {"type": "object", "properties": {}}
                    args = orjson.dumps(generate(schema, rng)).decode()
                segments.append(Segment("tool_call", args, name=tool.name, index=i))
        return Plan(tuple(segments), request.max_output_tokens)


def step_index(messages: Sequence[Message]) -> int:
    """Assistant turns with tool calls since the last user message (of the user's own words:
    a client's injected context is no new turn, :func:`mock_server.instructions.own_words`)."""
    count = 0
    for message in reversed(messages):
        if message.role == "user" and instructions.own_words(message.content):
            break
        if message.role == "assistant" and message.tool_calls:
            count += 1
    return count


def _outputs(messages: Sequence[Message]) -> list[str]:
    """The tool outputs after the last assistant turn with calls (what this step receives)."""
    out: list[str] = []
    for message in reversed(messages):
        if message.role == "tool":
            out.append(message.content)
        elif (message.role == "assistant" and message.tool_calls) or (
            message.role == "user" and instructions.own_words(message.content)
        ):
            break
    return out[::-1]


def is_error(output: str) -> bool:
    """Whether a tool output reports a failure (the module docstring's definition)."""
    if _FAILURE_START.match(output):
        return True
    return any(int(next(g for g in m.groups() if g)) != 0 for m in _EXIT.finditer(output))


def step_faults(
    headers: Mapping[str, str], body: bytes, default: AgentScript | None = None
) -> tuple[Fault, ...]:
    """The faults of the step a raw request gets (``MockMiddleware``'s ``step_faults``): its
    script (the ``x-mock-script`` header, ``metadata.mock_script``, else ``default``, in the
    engine's order — a scenario asked for wins), its rule and step read from its own input.
    Nothing when any of it is missing or malformed (the app answers that)."""
    if "x-mock-scenario" in headers:
        return ()
    try:
        doc = loads_bounded(body)  # past the limit, the app answers 400
        if not isinstance(doc, dict):
            return ()
        found = doc.get("metadata")
        metadata: dict[str, Any] = found if isinstance(found, dict) else {}
        text = headers.get("x-mock-script")
        if text is None and "mock_scenario" in metadata:
            return ()
        if text is None and isinstance(metadata.get("mock_script"), str):
            text = metadata["mock_script"]
        model = doc.get("model")
        scenario_model = (
            isinstance(model, str)
            and model.removeprefix("mock-") in (scenarios.SCENARIOS)
            and model.startswith("mock-")
        )
        script = parse(text) if text is not None else None if scenario_model else default
        if script is None or not any(s.faults for r in script.rules for s in r.steps):
            return ()
        raw = doc.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
        messages = to_messages(items if isinstance(items, list) else [], None)
    except Exception:  # a body the app refuses: no step to fault
        return ()
    rule = script.rule_for(messages)
    index = step_index(messages)
    if rule is None or index >= len(rule.steps):
        return ()
    return rule.steps[index].faults


def _declared(call: Call, request: GenerationRequest) -> FunctionTool | CustomTool:
    """The first of the call's names the request declares, as a function or a custom tool."""
    by_name: dict[str, FunctionTool | CustomTool] = {t.name: t for t in request.custom_tools}
    by_name.update((t.name, t) for t in request.tools)
    for name in call.names:
        if name in by_name:
            return by_name[name]
    functions = ", ".join(sorted(t.name for t in request.tools)) or "none"
    custom = ", ".join(sorted(t.name for t in request.custom_tools)) or "none"
    raise ScriptError(
        f"the script calls {' or '.join(call.names)}, which the request does not declare "
        f"(function tools: {functions}; custom tools: {custom})"
    )


def _custom_input(
    call: Call, tool: CustomTool, request: GenerationRequest, rng: random.Random, where: str
) -> str:
    """A scripted call's input to a custom tool: the script's text, which must be in the tool's
    grammar where it declares one; without one, what the mock writes unscripted."""
    if call.arguments is None:
        return scenarios.custom_input(tool, request, rng)
    if not call.text:
        raise ScriptError(
            f"{where}.arguments: {tool.name} is a custom tool, whose input is text: a string, "
            "not an object"
        )
    if tool.syntax is not None and tool.definition is not None:
        why = grammar_gen.problem(tool.syntax, tool.definition, call.arguments)
        if why:
            raise ScriptError(
                f"{where}: the input for the custom tool '{tool.name}' is outside its "
                f"{tool.syntax} grammar: {why}"
            )
    return call.arguments


def parse(text: str | bytes) -> AgentScript:
    """Read a script (the format in the module docstring); :class:`ScriptError` if malformed."""
    if len(text) > MAX_SCRIPT_BYTES:
        raise ScriptError(f"a script is at most {MAX_SCRIPT_BYTES} bytes")
    try:
        doc = loads_bounded(text, "The script")
    except JSONTooDeep as error:
        raise ScriptError(str(error).rstrip(".")) from None
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
    steps = tuple(_step(s, f"{where}.steps[{i}]", i) for i, s in enumerate(doc["steps"]))
    return Rule(steps, when)


def _step(doc: Any, where: str, index: int = 0) -> Step:
    if not isinstance(doc, dict) or len(_STEP_KEYS & doc.keys()) != 1:
        raise ScriptError(f"{where}: an object with one of call, calls, say, scenario")
    checks = _checks(doc, where, index)
    doc = {k: v for k, v in doc.items() if k not in _CHECK_KEYS}
    return dataclasses.replace(_action(doc, where), where=where, **checks)


def _checks(doc: Mapping[str, Any], where: str, index: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("expect", "expect_not"):
        if key in doc:
            if not isinstance(doc[key], str) or not doc[key]:
                raise ScriptError(f"{where}.{key}: a non-empty string")
            out[key] = doc[key]
    if "ok" in doc:
        if not isinstance(doc["ok"], bool):
            raise ScriptError(f"{where}.ok: true or false")
        out["ok"] = doc["ok"]
    if out and index == 0:
        raise ScriptError(f"{where}: the first step has no tool output to check")
    if "fault" in doc:
        text = doc["fault"]
        if not isinstance(text, str):
            raise ScriptError(f"{where}.fault: a fault plan (e.g. '429', 'drop', 'slow=2')")
        try:
            faults = FaultPlan.parse(text).faults
        except FaultSyntaxError as error:
            raise ScriptError(f"{where}.fault: {error}") from None
        out["faults"] = tuple(_first_attempt(f, bool(_STEP_KEYS & {"call", "calls"} & doc.keys()))
                              for f in faults)  # fmt: skip
    return out


def _first_attempt(fault: Fault, call: bool) -> Fault:
    """A step's fault as it applies: the first attempt only unless it says when; ``drop`` on a
    call step in the middle of the call."""
    if "@" not in fault.text and "~" not in fault.text:
        fault = dataclasses.replace(fault, spans=((1, 1),))
    if call and fault.kind == "drop" and fault.arg is None:
        fault = dataclasses.replace(fault, at_call=True)
    return fault


def _action(doc: dict[str, Any], where: str) -> Step:
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
        return Call(tuple(names), args, text=True)
    raise ScriptError(f"{where}.arguments: an object or a JSON string")
