"""§4.6 Compaction (docs/spec.md#s4-6): ``compaction.*``.

``POST /v1/responses/compact`` answers a compaction result ([OAPI] ``CompactResource``):
``{id, object: "response.compaction", created_at, output, usage}``, whose ``output`` is the
compacted window — the items kept, then a ``compaction`` item (``{type: "compaction", id,
encrypted_content}``, [OAPI] ``CompactionBody``; [REC] ``openai-compaction.1``) holding the opaque
state of what it replaced. A client sends that window back as the next turn's input, so an empty
blob restores nothing. ``usage`` follows §3.2 (:mod:`.s3_2_usage`), but the window's messages are
the history sent in, not output the call generated.

The rule, :func:`judge_compaction`, judges one compaction result (``check`` on a body, the suite,
the proxy: conformance.bodies.state hands it the body): its schema, its ``compaction`` item, its
usage. It marks the checks it evaluated in ``applied`` where it evaluates them: the schema checks
on every result, ``compaction.item.present`` where ``output`` is a list,
``compaction.item.encrypted_content`` where a ``compaction`` item is in it.

Live (``live.compaction.*``): the endpoint compacts a history into such a result, refuses a
request without ``model`` (a 4xx, not a default model), and a create whose input is the result's
``output`` plus a new turn sees the compacted history, as Codex and the Agents SDK continue. Their
rules are the cases below (:mod:`.cases`), run against a target that declares ``compaction``; each
failing example is a misbehaving server (tests/suite/broken_state_servers.py), its near miss the
embedded mock.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, Violation, register
from ..catalog.render import short
from ..schema import SchemaValidator
from ..suite import answers as A
from .case_support import repeats_the_code_word
from .cases import case
from .s3_2_usage import judge_usage

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "COMPACTION_COMPACT",
    "COMPACTION_CONTINUE",
    "COMPACTION_ITEM_CONTENT",
    "COMPACTION_ITEM_PRESENT",
    "COMPACTION_MODEL_REQUIRED",
    "COMPACTION_SCHEMA_ENUM",
    "COMPACTION_SCHEMA_REQUIRED",
    "COMPACTION_SCHEMA_TYPE",
    "COMPACTION_SCHEMA_VALUE",
    "declare_examples",
    "judge_compaction",
]

COMPACTION_SCHEMA_REQUIRED = register(
    "compaction.schema.required",
    Level.MUST,
    "§4.6, §1a [OAPI] CompactResource",
    "a compaction result (`object: response.compaction`) carries every field OpenAI's schema "
    "requires (`id`, `output`, `created_at`, `usage`)",
)
COMPACTION_SCHEMA_TYPE = register(
    "compaction.schema.type",
    Level.MUST,
    "§4.6, §1a [OAPI] CompactResource",
    "every field of a compaction result has the type OpenAI's schema gives it",
)
COMPACTION_SCHEMA_VALUE = register(
    "compaction.schema.value",
    Level.MUST,
    "§4.6, §1a [OAPI] CompactResource",
    "constant and discriminator fields of a compaction result have the values OpenAI's schema gives",
)
COMPACTION_SCHEMA_ENUM = register(
    "compaction.schema.enum",
    Level.INFO,
    "§1a (enum values are open)",
    "enumerated fields of a compaction result use a value OpenAI's schema lists",
)
COMPACTION_ITEM_PRESENT = register(
    "compaction.item.present",
    Level.MUST,
    "§4.6 [OAPI] CompactResource, CompactionBody",
    "a compaction result's `output` holds a `compaction` item (the opaque state that replaces the "
    "history it summarises)",
)
COMPACTION_ITEM_CONTENT = register(
    "compaction.item.encrypted_content",
    Level.MUST,
    "§4.6 [OAPI] CompactionBody [REC] openai-compaction.1",
    "every `compaction` item carries a non-empty `encrypted_content` string (a client sends it "
    "back as input; an empty blob cannot restore anything)",
)
COMPACTION_COMPACT = register(
    "live.compaction.compact",
    Level.MUST,
    "§4.6 [OAPI] CompactResource",
    "`POST /responses/compact` with a history answers 200 with a compaction result "
    "(`object: response.compaction`) holding a compaction item",
    profile="compaction",
)
COMPACTION_CONTINUE = register(
    "live.compaction.continue",
    Level.MUST,
    "§4.6 [OAPI] CompactResource",
    "a create whose input is the compaction's output plus a new turn is accepted and sees the "
    "compacted history (it recalls a code word given before the compaction)",
    profile="compaction",
)
COMPACTION_MODEL_REQUIRED = register(
    "live.compaction.model_required",
    Level.MUST,
    "§4.6 [OR] CompactResponseMethodPublicBody (`model` required); llm-comply 0.5.0 "
    "`compact-missing-model`",
    "`POST /responses/compact` without `model` is refused with a 4xx, not compacted with a "
    "default model",
    profile="compaction",
)
_SCHEMA_CHECKS: Mapping[str, Check] = {
    "required": COMPACTION_SCHEMA_REQUIRED,
    "type": COMPACTION_SCHEMA_TYPE,
    "value": COMPACTION_SCHEMA_VALUE,
    "enum": COMPACTION_SCHEMA_ENUM,
}


def judge_compaction(
    body: Mapping[str, Any], schemas: SchemaValidator, applied: set[str] | None = None
) -> list[Violation]:
    """One compaction result: [OAPI] ``CompactResource`` (through ``schemas``), its
    ``compaction`` item, its usage; the checks evaluated go into ``applied`` when given."""
    if applied is not None:
        applied.update(c.id for c in _SCHEMA_CHECKS.values())
    out = [
        _SCHEMA_CHECKS[issue.kind].violation(
            expected=issue.expected, actual=issue.actual, path=issue.path
        )
        for issue in schemas.validate("CompactResource", body)
    ]
    output = body.get("output")
    items = output if isinstance(output, list) else []
    compactions = [
        (i, item)
        for i, item in enumerate(items)
        if isinstance(item, dict) and item.get("type") == "compaction"
    ]
    if applied is not None and isinstance(output, list):
        applied.add(COMPACTION_ITEM_PRESENT.id)
        if compactions:
            applied.add(COMPACTION_ITEM_CONTENT.id)
    if isinstance(output, list) and not compactions:
        types = [item.get("type") if isinstance(item, dict) else None for item in items]
        out.append(
            COMPACTION_ITEM_PRESENT.violation(
                expected="an item with type: compaction",
                actual=f"output types: {short(types)}",
                path="output",
            )
        )
    for i, item in compactions:
        blob = item.get("encrypted_content")
        if not isinstance(blob, str) or not blob:
            out.append(
                COMPACTION_ITEM_CONTENT.violation(
                    expected="a non-empty string",
                    actual=short(blob),
                    path=f"output[{i}].encrypted_content",
                )
            )

    def report(check: Check, expected: Any, actual: Any, where: str, message: str = "") -> None:
        out.append(check.violation(expected=expected, actual=actual, path=where, message=message))

    # The usage rules a finished Response gets (SPEC §3 usage accounting), under the same IDs —
    # but for usage.output_nonzero: the messages of a compaction's output are the retained
    # window (the history sent in), not text this call generated, so they prove nothing.
    judge_usage(body, "completed", [], report, applied=applied)
    return out


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples): a
    compaction result holding the retained user turn and the compaction item, one thing
    changed; a live check's failing example is a misbehaving server, its near miss the mock."""
    from ..examples.live import live
    from ..examples.offline_state import S, _file_search, _user, compaction, drop, edit, with_item
    from ..examples.registry import example

    example(COMPACTION_SCHEMA_REQUIRED.id, S(drop(compaction, "created_at")), S(compaction))
    example(COMPACTION_SCHEMA_TYPE.id, S(edit(compaction, "created_at", "soon")), S(compaction))
    example(
        COMPACTION_SCHEMA_VALUE.id,
        S(
            with_item(compaction, "output", _file_search("k" * 65), 0),
            "an attribute key of 65 chars",
        ),
        S(with_item(compaction, "output", _file_search("k" * 64), 0)),
    )
    example(
        COMPACTION_SCHEMA_ENUM.id,
        S(edit(compaction, "output.0.role", "narrator")),
        S(edit(compaction, "output.0.role", "developer")),
    )
    example(
        COMPACTION_ITEM_PRESENT.id,
        S(lambda: {**compaction(), "output": [_user("Remember the code word PLUM.")]}),
        S(lambda: {**compaction(), "output": compaction()["output"][1:]}),
    )
    example(
        COMPACTION_ITEM_CONTENT.id,
        S(edit(compaction, "output.1.encrypted_content", "")),
        S(edit(compaction, "output.1.encrypted_content", "x")),
    )
    live(
        COMPACTION_COMPACT.id,
        "compact_without_item",
        "a server whose `/responses/compact` answers without a compaction item",
    )
    live(
        COMPACTION_CONTINUE.id,
        "compaction_input_dropped",
        "a server that drops compaction items (and the history they hold) from `input`",
    )
    live(
        COMPACTION_MODEL_REQUIRED.id,
        "compact_default_model",
        "a server whose `/responses/compact` compacts with a default model when `model` is missing",
    )


# --- the cases (the rules of live.compaction.*) ------------------------------------------------

COMPACTION = ("compaction",)


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
        COMPACTION_COMPACT,
        ex.status == 200 and body.get("object") == "response.compaction"
        and isinstance(body.get("output"), list), ex,
        expected="HTTP 200 with a compaction result (object: response.compaction)",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    types = [i.get("type") for i in body["output"] if isinstance(i, dict)]
    probe.require(
        COMPACTION_COMPACT, "compaction" in types, ex,
        expected="a compaction item in output", actual=f"output types {types}",
    )  # fmt: skip
    return body


@case("compaction", COMPACTION_COMPACT, profiles=COMPACTION)
def test_compact(probe: Probe) -> None:
    _compact(probe, _history("OSPREY-101"))


@case(
    "compaction", COMPACTION_COMPACT, COMPACTION_CONTINUE,
    profiles=COMPACTION, attempts=3, needs_instructions=True,
)  # fmt: skip
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
        COMPACTION_CONTINUE, ex.status == 200 and ex.json.get("object") == "response", ex,
        expected="HTTP 200: the compaction's output accepted as input",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    text = A.output_text(ex.json)
    repeats_the_code_word(probe, COMPACTION_CONTINUE, word, text, ex, "from the compacted history")


@case("compaction", COMPACTION_MODEL_REQUIRED, profiles=COMPACTION)
def test_compact_without_model(probe: Probe) -> None:
    # [OR] CompactResponseMethodPublicBody requires `model`; llm-comply's `compact-missing-model`
    # sends exactly this (docs/spec.md §4.6). A default model would compact with a model the
    # client never chose.
    body = {"input": _history("OSPREY-102")}
    ex = probe.send("POST", "/responses/compact", json_body=body)
    status = ex.status
    probe.check(
        COMPACTION_MODEL_REQUIRED, status is not None and 400 <= status < 500 and status != 429,
        ex, expected="a 4xx error (`model` is required)",
        actual=f"HTTP {status}" if status is not None else ex.error,
    )  # fmt: skip
