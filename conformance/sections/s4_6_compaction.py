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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog.registry import Check, Level, Violation, register
from ..catalog.render import short
from ..schema import SchemaValidator
from .s3_2_usage import judge_usage

__all__ = [
    "COMPACTION_ITEM_CONTENT",
    "COMPACTION_ITEM_PRESENT",
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
    changed."""
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
