"""Compaction ([OAPI] `POST /v1/responses/compact`): compact a history, then continue from the
compacted window (its `output` sent as the next turn's input, as Codex and the Agents SDK do);
the continuation must see the compacted history. The result is judged by `compaction.*`."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ...catalog import live as L
from .. import answers as A
from ..probe import Probe

pytestmark = pytest.mark.profiles("compaction")


def _history(word: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"Remember this code word: {word}. Reply only with OK."},
        {"role": "assistant", "content": "OK"},
        {"role": "user", "content": "Reply only with the name of one colour."},
        {"role": "assistant", "content": "Blue"},
    ]


def _compact(probe: Probe, history: list[dict[str, Any]]) -> dict[str, Any]:
    ex = probe.send("POST", "/responses/compact", json_body=probe.body(input=history))
    body = ex.json
    probe.require(
        L.COMPACTION_COMPACT,
        ex.status == 200 and body.get("object") == "response.compaction"
        and isinstance(body.get("output"), list), ex,
        expected="HTTP 200 with a compaction result (object: response.compaction)",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    types = [i.get("type") for i in body["output"] if isinstance(i, dict)]
    probe.require(
        L.COMPACTION_COMPACT, "compaction" in types, ex,
        expected="a compaction item in output", actual=f"output types {types}",
    )  # fmt: skip
    return body


@pytest.mark.checks(L.COMPACTION_COMPACT.id)
def test_compact(probe: Probe) -> None:
    _compact(probe, _history("OSPREY-101"))


@pytest.mark.checks(L.COMPACTION_COMPACT.id, L.COMPACTION_CONTINUE.id)
@pytest.mark.needs_instructions
@pytest.mark.attempts(3)
def test_continue_from_the_compacted_window(probe: Probe) -> None:
    word = f"{random.choice(('OSPREY', 'JUNIPER', 'PULSAR', 'KUMQUAT'))}-{random.randint(100, 999)}"
    compacted = _compact(probe, _history(word))
    ask = {
        "role": "user",
        "content": "What was the code word I asked you to remember? Reply with the code word only.",
    }
    ex = probe.send(
        "POST", "/responses", json_body=probe.body(input=[*compacted["output"], ask], store=False)
    )
    probe.require(
        L.COMPACTION_CONTINUE, ex.status == 200 and ex.json.get("object") == "response", ex,
        expected="HTTP 200: the compaction's output accepted as input",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    text = A.output_text(ex.json)
    probe.nondeterministic(
        word.lower() in text.lower(), "the model did not repeat the code word",
        check=L.COMPACTION_CONTINUE, exchange=ex,
        expected=f"the code word {word!r} from the compacted history", actual=text[:200],
    )  # fmt: skip


@pytest.mark.checks(L.COMPACTION_MODEL_REQUIRED.id)
def test_compact_without_model(probe: Probe) -> None:
    # [OR] CompactResponseMethodPublicBody requires `model`; llm-comply's `compact-missing-model`
    # sends exactly this (docs/spec.md §4.6). A default model would compact with a model the
    # client never chose.
    body = {"input": _history("OSPREY-102")}
    ex = probe.send("POST", "/responses/compact", json_body=body)
    status = ex.status
    probe.check(
        L.COMPACTION_MODEL_REQUIRED, status is not None and 400 <= status < 500 and status != 429,
        ex, expected="a 4xx error (`model` is required)",
        actual=f"HTTP {status}" if status is not None else ex.error,
    )  # fmt: skip
