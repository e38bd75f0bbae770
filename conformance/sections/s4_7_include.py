"""§4.7 Stateless reasoning and include (docs/spec.md#s4-7):
``response.reasoning.encrypted_content_included``, ``live.stateless.*``, ``live.include.unknown``.

A request whose ``include`` lists ``reasoning.encrypted_content`` (how Codex CLI always calls,
with ``store: false``) is answered with each reasoning item's opaque state: a non-empty
``encrypted_content`` string on every finished reasoning item — a stream's
``output_item.done`` items (what a client keeps as history) and a non-stream Response's
``output``. Null, ``""`` or a missing field there leaves the client nothing to send back, and its
next turn loses the reasoning. Only a judge that sees the request and its answer together can
tell: the live suite, the proxy and ``check`` on a cassette. An item still ``in_progress`` or cut
``incomplete`` is not judged (its state may be unfinished).

Live, the client keeps the state (``store: false``), as Codex CLI does: reasoning items carry
``encrypted_content`` exactly when ``include`` asks for it; sent back as input they are accepted
and the turn sees the history; an altered blob is refused; every item type an agent replays is
accepted as history; an ``include`` value OpenAI does not define is refused. Their rules are the
cases below (:mod:`.cases`), run against a target that declares ``stateless-reasoning``; each
failing example is a misbehaving server (tests/suite/broken_state_servers.py), its near miss the
embedded mock.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, Violation, register
from ..suite import answers as A
from .case_support import WEATHER_TOOL, repeats_the_code_word
from .cases import STREAMS, case, params

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "ENCRYPTED_INCLUDED",
    "INCLUDE_UNKNOWN",
    "STATELESS_ENCRYPTED_ABSENT",
    "STATELESS_ENCRYPTED_ACCEPTED",
    "STATELESS_ENCRYPTED_PRESENT",
    "STATELESS_ENCRYPTED_TAMPERED",
    "STATELESS_HISTORY_ITEMS",
    "asks_encrypted_reasoning",
    "declare_examples",
    "judge_included",
]

ENCRYPTED_INCLUDED = register(
    "response.reasoning.encrypted_content_included",
    Level.MUST,
    '§4.7 [OAPI] Includable (`reasoning.encrypted_content`: "includes an encrypted version of '
    'reasoning tokens in reasoning item outputs"); [REC] pydantic-ai cassettes (every reasoning '
    "item of a request that asked carries one)",
    "a response to a request whose `include` lists `reasoning.encrypted_content` carries a "
    "non-empty `encrypted_content` string on every finished reasoning item",
)
STATELESS_ENCRYPTED_PRESENT = register(
    "live.stateless.encrypted_present",
    Level.MUST,
    "§4.7 [OAPI] Includable",
    "with `store: false` and `include: [reasoning.encrypted_content]`, every reasoning item "
    "(streamed and not) carries a non-empty `encrypted_content`",
    profile="stateless-reasoning",
)
STATELESS_ENCRYPTED_ABSENT = register(
    "live.stateless.encrypted_absent",
    Level.SHOULD,
    "§4.7 [OAPI] Includable",
    "without `reasoning.encrypted_content` in `include`, reasoning items carry no "
    "`encrypted_content` (absent or null)",
    profile="stateless-reasoning",
)
STATELESS_ENCRYPTED_ACCEPTED = register(
    "live.stateless.encrypted_accepted",
    Level.MUST,
    "§4.7 [OAPI] ReasoningItem",
    "a reasoning item with the server's `encrypted_content`, sent back as input with "
    "`store: false`, is accepted and the turn sees the history",
    profile="stateless-reasoning",
)
STATELESS_ENCRYPTED_TAMPERED = register(
    "live.stateless.encrypted_tampered",
    Level.MUST,
    "§4.7, §4.4",
    "a reasoning item whose `encrypted_content` was altered is a 400 `invalid_request_error`",
    profile="stateless-reasoning",
)
STATELESS_HISTORY_ITEMS = register(
    "live.stateless.history_items",
    Level.MUST,
    "§4.7 [OAPI] InputItem",
    "a history holding every kind of item an agent sends back (messages of each role, "
    "reasoning, function, custom tool, shell, local shell, apply_patch and computer calls with "
    "their outputs) is accepted as input",
    profile="stateless-reasoning",
)
INCLUDE_UNKNOWN = register(
    "live.include.unknown",
    Level.SHOULD,
    "§4.7 [OAPI] Includable",
    "an `include` value OpenAI does not define is a 400 `invalid_request_error` (not silently "
    "ignored)",
    profile="stateless-reasoning",
)
_INCLUDE = "reasoning.encrypted_content"
_CUT = frozenset({"in_progress", "incomplete"})
_Item = tuple[int | None, str, Mapping[str, Any]]  # (event index, path, item)


def asks_encrypted_reasoning(request: Any) -> bool:
    """Whether the request's ``include`` lists ``reasoning.encrypted_content``."""
    include = request.get("include") if isinstance(request, Mapping) else None
    return isinstance(include, list) and _INCLUDE in include


def _show(item: Mapping[str, Any]) -> str:
    if "encrypted_content" not in item:
        return "absent"
    value = item["encrypted_content"]
    return '""' if value == "" else "null" if value is None else repr(value)[:60]


def judge_included(
    request: Any, items: Iterable[_Item], *, response_cut: bool = False
) -> tuple[list[Violation], bool]:
    """The violations among ``items`` (event index, path, item) and whether the rule judged a
    reasoning item (what marks it exercised)."""
    violations: list[Violation] = []
    judged = False
    if not asks_encrypted_reasoning(request):
        return violations, judged
    for index, path, item in items:
        if item.get("type") != "reasoning":
            continue
        status = item.get("status")
        if status in _CUT or (status is None and response_cut):
            continue
        judged = True
        value = item.get("encrypted_content")
        if isinstance(value, str) and value:
            continue
        violations.append(
            ENCRYPTED_INCLUDED.violation(
                expected="a non-empty `encrypted_content` string (the request's `include` "
                "lists `reasoning.encrypted_content`)",
                actual=_show(item),
                event_index=index,
                path=f"{path}.encrypted_content",
            )
        )
    return violations, judged


def declare_examples() -> None:
    """The failing example (null where asked for) and the passing near miss (the blob), each a
    stream with the request that asked; a live check's failing example is a misbehaving server,
    its near miss the mock."""
    from ..examples.build import at, find, reasoning_stream
    from ..examples.live import live
    from ..examples.registry import Sample, example

    request = {
        "model": "gpt-5",
        "input": "Think, then say hi.",
        "store": False,
        "include": [_INCLUDE],
        "reasoning": {"effort": "low", "summary": "auto"},
    }

    def blob(value: Any) -> list[dict[str, Any]]:
        events = reasoning_stream()
        at(events, find(events, "response.output_item.done"), "item.encrypted_content", value)
        at(events, "response.completed", "response.output.0.encrypted_content", value)
        return events

    example(
        ENCRYPTED_INCLUDED.id,
        Sample(
            "stream",
            lambda: blob(None),
            "asked for with `include`, answered null (as without it)",
            request=request,
        ),
        Sample(
            "stream",
            lambda: blob("gAAAAABpRG9uZQ"),
            "the blob, as Codex sends back",
            request=request,
        ),
    )
    for check, server, note in (
        (STATELESS_ENCRYPTED_PRESENT, "encrypted_dropped",
         "a server that never returns `encrypted_content`, whatever `include` asks"),
        (STATELESS_ENCRYPTED_ABSENT, "encrypted_always",
         "a server that returns `encrypted_content` although `include` did not ask for it"),
        (STATELESS_ENCRYPTED_ACCEPTED, "encrypted_not_round_tripping",
         "a server whose own blobs are refused when sent back"),
        (STATELESS_ENCRYPTED_TAMPERED, "tampered_accepted",
         "a server that accepts an altered `encrypted_content` (it never authenticates the blob)"),
        (STATELESS_HISTORY_ITEMS, "shell_items_refused",
         "a server that knows no `shell_call` items in an agent's history"),
        (INCLUDE_UNKNOWN, "include_unchecked",
         "a server that ignores an `include` value OpenAI does not define"),
    ):  # fmt: skip
        live(check.id, server, note)


# --- the cases (the rules of live.stateless.*, live.include.unknown) ---------------------------

STATELESS = ("stateless-reasoning",)
_ASK_BLOB = [_INCLUDE]
_REASONING = {"effort": "low"}


def _ask(probe: Probe, text: Any, *, stream: bool, **extra: Any) -> dict[str, Any]:
    body = probe.body(input=text, store=False, reasoning=_REASONING, **extra)
    return probe.create_stream(body)[0] if stream else probe.create(body)


def _blobs(response: dict[str, Any]) -> list[Any]:
    return [item.get("encrypted_content") for item in A.items_of(response, "reasoning")]


def _require_reasoning(probe: Probe, response: dict[str, Any], check: Check) -> None:
    probe.require(
        check, bool(A.items_of(response, "reasoning")), probe.last,
        expected="a reasoning item (reasoning.effort is set)",
        actual=f"output {A.output_types(response)}",
    )  # fmt: skip


@case("stateless", STATELESS_ENCRYPTED_PRESENT, profiles=STATELESS)
@params("stream", STREAMS)
def test_encrypted_content_when_asked(probe: Probe, stream: bool) -> None:
    response = _ask(probe, "Reply only with OK.", stream=stream, include=_ASK_BLOB)
    _require_reasoning(probe, response, STATELESS_ENCRYPTED_PRESENT)
    blobs = _blobs(response)
    probe.check(
        STATELESS_ENCRYPTED_PRESENT, all(isinstance(b, str) and b for b in blobs), probe.last,
        expected="encrypted_content: a non-empty string on every reasoning item",
        actual=[b if not isinstance(b, str) else f"{len(b)} chars" for b in blobs],
    )  # fmt: skip


@case("stateless", STATELESS_ENCRYPTED_ABSENT, profiles=STATELESS)
@params("stream", STREAMS)
def test_no_encrypted_content_unless_asked(probe: Probe, stream: bool) -> None:
    response = _ask(probe, "Reply only with OK.", stream=stream)
    _require_reasoning(probe, response, STATELESS_ENCRYPTED_ABSENT)
    blobs = _blobs(response)
    probe.check(
        STATELESS_ENCRYPTED_ABSENT, all(b is None for b in blobs), probe.last,
        expected="no encrypted_content (absent or null)",
        actual=[f"{len(b)} chars" if isinstance(b, str) else b for b in blobs],
    )  # fmt: skip


@case(
    "stateless", STATELESS_ENCRYPTED_ACCEPTED, STATELESS_ENCRYPTED_PRESENT,
    profiles=STATELESS, attempts=3, needs_instructions=True,
)  # fmt: skip
def test_encrypted_reasoning_sent_back(probe: Probe) -> None:
    word = f"{random.choice(('LANTERN', 'ZEPHYR', 'COBALT', 'MANGO'))}-{random.randint(100, 999)}"
    first_input = [
        {"role": "user", "content": f"Remember this code word: {word}. Reply only with OK."}
    ]
    first = _ask(probe, first_input, stream=False, include=_ASK_BLOB)
    _require_reasoning(probe, first, STATELESS_ENCRYPTED_ACCEPTED)
    ask = {
        "role": "user",
        "content": "What was the code word I asked you to remember? Reply with the code word only.",
    }
    history = [*first_input, *A.items_of(first), ask]
    ex = probe.send(
        "POST", "/responses", json_body=probe.body(
            input=history, store=False, reasoning=_REASONING, include=_ASK_BLOB)
    )  # fmt: skip
    probe.require(
        STATELESS_ENCRYPTED_ACCEPTED, ex.status == 200 and ex.json.get("object") == "response",
        ex, expected="HTTP 200: the reasoning item with its encrypted_content accepted",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    text = A.output_text(ex.json)
    repeats_the_code_word(probe, STATELESS_ENCRYPTED_ACCEPTED, word, text, ex, "from the history")


def _tampered(blob: str) -> str:
    """``blob`` with one character in its middle changed (still the same alphabet)."""
    mid = len(blob) // 2
    swap = "A" if blob[mid] != "A" else "B"
    return blob[:mid] + swap + blob[mid + 1 :]


@case("stateless", STATELESS_ENCRYPTED_TAMPERED, profiles=STATELESS)
def test_tampered_encrypted_content_refused(probe: Probe) -> None:
    first_input = [{"role": "user", "content": "Reply only with OK."}]
    first = _ask(probe, first_input, stream=False, include=_ASK_BLOB)
    _require_reasoning(probe, first, STATELESS_ENCRYPTED_TAMPERED)
    items = A.items_of(first)
    blobs = [i.get("encrypted_content") for i in items if i.get("type") == "reasoning"]
    if not blobs or not isinstance(blobs[0], str) or not blobs[0]:
        probe.skip("no encrypted_content to alter (live.stateless.encrypted_present says why)")
    for item in items:
        if item.get("type") == "reasoning":
            item["encrypted_content"] = _tampered(item["encrypted_content"])
            break
    history = [*first_input, *items, {"role": "user", "content": "Reply only with OK."}]
    ex = probe.send(
        "POST", "/responses", json_body=probe.body(
            input=history, store=False, reasoning=_REASONING, include=_ASK_BLOB)
    )  # fmt: skip
    error = ex.json.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    probe.check(
        STATELESS_ENCRYPTED_TAMPERED, ex.status == 400 and kind == "invalid_request_error", ex,
        expected="HTTP 400 invalid_request_error", actual=f"HTTP {ex.status}, type {kind!r}",
    )  # fmt: skip


# One of each item an agent replays as history (what Codex CLI, the Agents SDK and the Vercel
# AI SDK send back), with the calls answered. [OAPI] InputItem; shapes as the SDK's params.
_HISTORY: list[dict[str, Any]] = [
    {"type": "message", "role": "system", "content": "You are terse."},
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Be brief."}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Start."}]},
    {"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "Started.", "annotations": []}]},
    {"type": "function_call", "call_id": "call_fn_1", "name": "get_weather",
     "arguments": json.dumps({"city": "Paris", "unit": "celsius"})},
    {"type": "function_call_output", "call_id": "call_fn_1", "output": "21 C, sunny"},
    {"type": "custom_tool_call", "call_id": "call_custom_1", "name": "run_sql", "input": "SELECT 1"},
    {"type": "custom_tool_call_output", "call_id": "call_custom_1", "output": "1"},
    {"type": "shell_call", "call_id": "call_shell_1", "status": "completed",
     "action": {"commands": ["echo hi"], "timeout_ms": 1000, "max_output_length": 1000}},
    {"type": "shell_call_output", "call_id": "call_shell_1", "output": [
        {"stdout": "hi\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]},
    {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_local_1", "status": "completed",
     "action": {"type": "exec", "command": ["echo", "hi"], "env": {}}},
    {"type": "local_shell_call_output", "id": "call_local_1", "output": "hi\n"},
    {"type": "apply_patch_call", "call_id": "call_patch_1", "status": "completed",
     "operation": {"type": "create_file", "path": "a.txt", "diff": "+hello\n"}},
    {"type": "apply_patch_call_output", "call_id": "call_patch_1", "status": "completed",
     "output": "created a.txt"},
    {"type": "computer_call", "id": "cu_1", "call_id": "call_computer_1", "status": "completed",
     "action": {"type": "screenshot"}, "pending_safety_checks": []},
    {"type": "computer_call_output", "call_id": "call_computer_1", "output": {
        "type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="}},
    {"type": "message", "role": "user", "content": "Reply only with OK."},
]  # fmt: skip


@case("stateless", STATELESS_HISTORY_ITEMS, profiles=STATELESS)
def test_every_item_type_accepted_as_history(probe: Probe) -> None:
    ex = probe.send(
        "POST", "/responses",
        json_body=probe.body(input=_HISTORY, store=False, tools=[WEATHER_TOOL]),
    )  # fmt: skip
    error = ex.json.get("error")
    probe.check(
        STATELESS_HISTORY_ITEMS, ex.status == 200 and ex.json.get("object") == "response", ex,
        expected="HTTP 200 (every item accepted)",
        actual=f"HTTP {ex.status}: {error.get('message') if isinstance(error, dict) else ex.text!r}"[
            :300
        ],
    )  # fmt: skip


@case("stateless", INCLUDE_UNKNOWN, profiles=STATELESS)
def test_unknown_include_value_refused(probe: Probe) -> None:
    body = probe.body(input="Reply only with OK.", include=["reasoning.decrypted_content"])
    ex = probe.send("POST", "/responses", json_body=body)
    error = ex.json.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    probe.check(
        INCLUDE_UNKNOWN, ex.status == 400 and kind == "invalid_request_error", ex,
        expected="HTTP 400 invalid_request_error", actual=f"HTTP {ex.status}, type {kind!r}",
    )  # fmt: skip
