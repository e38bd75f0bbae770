"""Stateless reasoning: the client keeps the state (`store: false`), as Codex CLI does. Reasoning
items carry `encrypted_content` exactly when `include` asks for it; sent back as input they are
accepted and the turn sees the history; an altered blob is refused; every item type an agent
replays is accepted as history; an unknown `include` value is refused."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ...catalog import live as L
from .. import answers as A
from ..probe import Probe
from .support import WEATHER_TOOL

pytestmark = pytest.mark.profiles("stateless-reasoning")

_INCLUDE = ["reasoning.encrypted_content"]
_REASONING = {"effort": "low"}


def _ask(probe: Probe, text: Any, *, stream: bool, **extra: Any) -> dict[str, Any]:
    body = probe.body(input=text, store=False, reasoning=_REASONING, **extra)
    return probe.create_stream(body)[0] if stream else probe.create(body)


def _blobs(response: dict[str, Any]) -> list[Any]:
    return [item.get("encrypted_content") for item in A.items_of(response, "reasoning")]


def _require_reasoning(probe: Probe, response: dict[str, Any], check: Any) -> None:
    probe.require(
        check, bool(A.items_of(response, "reasoning")), probe.last,
        expected="a reasoning item (reasoning.effort is set)",
        actual=f"output {A.output_types(response)}",
    )  # fmt: skip


@pytest.mark.checks(L.STATELESS_ENCRYPTED_PRESENT.id)
@pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])
def test_encrypted_content_when_asked(probe: Probe, stream: bool) -> None:
    response = _ask(probe, "Reply only with OK.", stream=stream, include=_INCLUDE)
    _require_reasoning(probe, response, L.STATELESS_ENCRYPTED_PRESENT)
    blobs = _blobs(response)
    probe.check(
        L.STATELESS_ENCRYPTED_PRESENT, all(isinstance(b, str) and b for b in blobs), probe.last,
        expected="encrypted_content: a non-empty string on every reasoning item",
        actual=[b if not isinstance(b, str) else f"{len(b)} chars" for b in blobs],
    )  # fmt: skip


@pytest.mark.checks(L.STATELESS_ENCRYPTED_ABSENT.id)
@pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])
def test_no_encrypted_content_unless_asked(probe: Probe, stream: bool) -> None:
    response = _ask(probe, "Reply only with OK.", stream=stream)
    _require_reasoning(probe, response, L.STATELESS_ENCRYPTED_ABSENT)
    blobs = _blobs(response)
    probe.check(
        L.STATELESS_ENCRYPTED_ABSENT, all(b is None for b in blobs), probe.last,
        expected="no encrypted_content (absent or null)",
        actual=[f"{len(b)} chars" if isinstance(b, str) else b for b in blobs],
    )  # fmt: skip


@pytest.mark.checks(L.STATELESS_ENCRYPTED_ACCEPTED.id, L.STATELESS_ENCRYPTED_PRESENT.id)
@pytest.mark.needs_instructions
@pytest.mark.attempts(3)
def test_encrypted_reasoning_sent_back(probe: Probe) -> None:
    word = f"{random.choice(('LANTERN', 'ZEPHYR', 'COBALT', 'MANGO'))}-{random.randint(100, 999)}"
    first_input = [
        {"role": "user", "content": f"Remember this code word: {word}. Reply only with OK."}
    ]
    first = _ask(probe, first_input, stream=False, include=_INCLUDE)
    _require_reasoning(probe, first, L.STATELESS_ENCRYPTED_ACCEPTED)
    ask = {
        "role": "user",
        "content": "What was the code word I asked you to remember? Reply with the code word only.",
    }
    history = [*first_input, *A.items_of(first), ask]
    ex = probe.send(
        "POST", "/responses", json_body=probe.body(
            input=history, store=False, reasoning=_REASONING, include=_INCLUDE)
    )  # fmt: skip
    probe.require(
        L.STATELESS_ENCRYPTED_ACCEPTED, ex.status == 200 and ex.json.get("object") == "response",
        ex, expected="HTTP 200: the reasoning item with its encrypted_content accepted",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    text = A.output_text(ex.json)
    probe.nondeterministic(
        word.lower() in text.lower(), "the model did not repeat the code word",
        check=L.STATELESS_ENCRYPTED_ACCEPTED, exchange=ex,
        expected=f"the code word {word!r} from the history", actual=text[:200],
    )  # fmt: skip


def _tampered(blob: str) -> str:
    """``blob`` with one character in its middle changed (still the same alphabet)."""
    mid = len(blob) // 2
    swap = "A" if blob[mid] != "A" else "B"
    return blob[:mid] + swap + blob[mid + 1 :]


@pytest.mark.checks(L.STATELESS_ENCRYPTED_TAMPERED.id)
def test_tampered_encrypted_content_refused(probe: Probe) -> None:
    first_input = [{"role": "user", "content": "Reply only with OK."}]
    first = _ask(probe, first_input, stream=False, include=_INCLUDE)
    _require_reasoning(probe, first, L.STATELESS_ENCRYPTED_TAMPERED)
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
            input=history, store=False, reasoning=_REASONING, include=_INCLUDE)
    )  # fmt: skip
    error = ex.json.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    probe.check(
        L.STATELESS_ENCRYPTED_TAMPERED, ex.status == 400 and kind == "invalid_request_error", ex,
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


@pytest.mark.checks(L.STATELESS_HISTORY_ITEMS.id)
def test_every_item_type_accepted_as_history(probe: Probe) -> None:
    ex = probe.send(
        "POST", "/responses",
        json_body=probe.body(input=_HISTORY, store=False, tools=[WEATHER_TOOL]),
    )  # fmt: skip
    error = ex.json.get("error")
    probe.check(
        L.STATELESS_HISTORY_ITEMS, ex.status == 200 and ex.json.get("object") == "response", ex,
        expected="HTTP 200 (every item accepted)",
        actual=f"HTTP {ex.status}: {error.get('message') if isinstance(error, dict) else ex.text!r}"[
            :300
        ],
    )  # fmt: skip


@pytest.mark.checks(L.INCLUDE_UNKNOWN.id)
def test_unknown_include_value_refused(probe: Probe) -> None:
    body = probe.body(input="Reply only with OK.", include=["reasoning.decrypted_content"])
    ex = probe.send("POST", "/responses", json_body=body)
    error = ex.json.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    probe.check(
        L.INCLUDE_UNKNOWN, ex.status == 400 and kind == "invalid_request_error", ex,
        expected="HTTP 400 invalid_request_error", actual=f"HTTP {ex.status}, type {kind!r}",
    )  # fmt: skip
