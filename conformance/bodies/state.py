"""Checks on the state objects of the API besides the Response: compaction results, conversations,
deleted conversations and item lists.

- ``response.compaction`` — the body of ``POST /v1/responses/compact`` ([OAPI] ``CompactResource``):
  its rule is :mod:`conformance.sections.s4_6_compaction`'s (schema, a ``compaction`` item with
  a non-empty ``encrypted_content``, the usage rules of SPEC §3);
- ``conversation`` — ``POST/GET /v1/conversations[/{id}]`` ([OAPI] ``ConversationResource``):
  schema, ``metadata`` as OpenAI bounds it, the ``conv_`` prefix (INFO);
- ``conversation.deleted`` — ``DELETE /v1/conversations/{id}`` (``DeletedConversationResource``):
  schema, ``deleted: true``;
- ``list`` — ``GET /v1/responses/{id}/input_items`` (``ResponseItemList``) and
  ``GET /v1/conversations/{id}/items`` (``ConversationItemList``): the list is judged against
  whichever of the two schemas it fits better, then ``first_id``/``last_id`` against the page
  and item ids unique within it.

Sans-I/O: a parsed body in, violations out; the suite and the offline ``check`` both call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .. import catalog as C
from ..catalog.registry import Check, Violation
from ..catalog.render import short as _short
from ..schema import SCHEMAS, SchemaIssue, SchemaValidator
from ..sections.s4_6_compaction import judge_compaction
from .objects import _too_deep

__all__ = [
    "STATE_OBJECTS",
    "StateKind",
    "state_exercised",
    "state_kind",
    "validate_state_body",
]

StateKind = Literal["compaction", "conversation", "conversation_deleted", "item_list"]

STATE_OBJECTS: Mapping[str, StateKind] = {
    "response.compaction": "compaction",
    "conversation": "conversation",
    "conversation.deleted": "conversation_deleted",
    "list": "item_list",
}
"""The ``object`` value of each state body → its kind."""

# The compaction result's checks are its section module's (conformance.sections.s4_6_compaction).
_SCHEMA_CHECKS: Mapping[str, Mapping[str, Check | None]] = {
    # A conversation has no enumerated field but its `object` constant, which is `value`; a wrong
    # constant cannot reach here (the kind is told by it), so value issues are not reported.
    "conversation": {
        "required": C.CONVERSATION_SCHEMA_REQUIRED,
        "type": C.CONVERSATION_SCHEMA_TYPE,
        "value": None,
        "enum": None,
    },
    "item_list": {
        "required": C.ITEM_LIST_SCHEMA_REQUIRED,
        "type": C.ITEM_LIST_SCHEMA_TYPE,
        "value": C.ITEM_LIST_SCHEMA_VALUE,
        "enum": C.ITEM_LIST_SCHEMA_ENUM,
    },
}
_SCHEMA_NAMES: Mapping[StateKind, tuple[str, ...]] = {
    "conversation": ("ConversationResource",),
    "conversation_deleted": ("DeletedConversationResource",),
    # Both lists are `{object: list, data, has_more, first_id, last_id}`; only the item unions
    # differ (input items vs. conversation items), so the better fit is judged.
    "item_list": ("ResponseItemList", "ConversationItemList"),
}
_METADATA_PAIRS, _METADATA_KEY, _METADATA_VALUE = 16, 64, 512


def state_kind(body: Mapping[str, Any]) -> StateKind | None:
    """The kind of a state body, from its ``object`` field (None: not a state body)."""
    obj = body.get("object")
    return STATE_OBJECTS.get(obj) if isinstance(obj, str) else None


def validate_state_body(
    body: Mapping[str, Any],
    kind: StateKind | None = None,
    *,
    schemas: SchemaValidator | None = None,
    applied: set[str] | None = None,
) -> list[Violation]:
    """Judge one state body (``kind`` defaults to :func:`state_kind`'s answer); the compaction
    rule marks what it evaluated in ``applied``, when given."""
    kind = kind or state_kind(body)
    if kind is None:
        raise ValueError(f"not a state object: object={_short(body.get('object'))}")
    try:
        return _validate(dict(body), kind, schemas or SCHEMAS, applied)
    except RecursionError:
        return [_too_deep()]


def _validate(
    body: dict[str, Any], kind: StateKind, schemas: SchemaValidator, applied: set[str] | None
) -> list[Violation]:
    if kind == "compaction":
        return judge_compaction(body, schemas, applied)
    out = _schema(body, kind, schemas)
    if kind == "conversation":
        out.extend(_conversation(body))
    elif kind == "conversation_deleted":
        if body.get("deleted") is not True:
            out.append(
                C.CONVERSATION_DELETED_TRUE.violation(
                    expected="deleted: true", actual=_short(body.get("deleted")), path="deleted"
                )
            )
    else:
        out.extend(_item_list(body))
    return out


def _schema(body: dict[str, Any], kind: StateKind, schemas: SchemaValidator) -> list[Violation]:
    best: list[SchemaIssue] | None = None
    for name in _SCHEMA_NAMES[kind]:
        issues = schemas.validate(name, body)
        if best is None or len(issues) < len(best):
            best = issues
        if not issues:
            break
    checks = _SCHEMA_CHECKS["conversation" if kind == "conversation_deleted" else kind]
    out: list[Violation] = []
    for issue in best or ():
        check = checks[issue.kind]
        if check is not None:
            out.append(
                check.violation(expected=issue.expected, actual=issue.actual, path=issue.path)
            )
    return out


def _conversation(body: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    cid = body.get("id")
    if isinstance(cid, str) and not cid.startswith("conv_"):
        out.append(C.CONVERSATION_ID_PREFIX.violation(expected="conv_…", actual=cid, path="id"))
    if "metadata" not in body:
        return out  # conversation.schema.required says so
    metadata = body["metadata"]
    problem = ""
    if not isinstance(metadata, dict):
        problem = f"a {type(metadata).__name__}"
    elif len(metadata) > _METADATA_PAIRS:
        problem = f"{len(metadata)} pairs"
    else:
        for key, value in metadata.items():
            if not isinstance(value, str):
                problem = f"{key!r}: a {type(value).__name__}"
            elif len(key) > _METADATA_KEY:
                problem = f"a key of {len(key)} characters"
            elif len(value) > _METADATA_VALUE:
                problem = f"{key!r}: a value of {len(value)} characters"
            if problem:
                break
    if problem:
        out.append(
            C.CONVERSATION_METADATA.violation(
                expected="an object of ≤ 16 strings (keys ≤ 64, values ≤ 512 characters)",
                actual=problem,
                path="metadata",
            )
        )
    return out


def _item_list(body: dict[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    data = body.get("data")
    if not isinstance(data, list):
        return out  # item_list.schema.* said so
    ids = [item.get("id") if isinstance(item, dict) else None for item in data]
    if data:
        for field, want in (("first_id", ids[0]), ("last_id", ids[-1])):
            got = body.get(field)
            if isinstance(want, str) and got != want:
                out.append(
                    C.ITEM_LIST_BOUNDS.violation(
                        expected=f"{field} = {want!r}", actual=_short(got), path=field
                    )
                )
    seen: dict[str, int] = {}
    for i, iid in enumerate(ids):
        if not isinstance(iid, str):
            continue
        if iid in seen:
            out.append(
                C.ITEM_LIST_ID_UNIQUE.violation(
                    expected="ids unique in the page",
                    actual=f"{iid!r} at data[{seen[iid]}] and data[{i}]",
                    path=f"data[{i}].id",
                )
            )
        else:
            seen[iid] = i
    return out


def state_exercised(body: Mapping[str, Any], kind: StateKind | None = None) -> set[str]:
    """The checks one state body gives work to (a pass is provoked): its schema checks always;
    ``metadata`` when present; a list's bounds on a non-empty page and id uniqueness on one of
    two or more items. A compaction result's rules mark themselves where they evaluate
    (:mod:`conformance.sections.s4_6_compaction`)."""
    kind = kind or state_kind(body)
    if kind is None or kind == "compaction":
        return set()
    schema = _SCHEMA_CHECKS["conversation" if kind == "conversation_deleted" else kind]
    out = {c.id for c in schema.values() if c is not None}
    if kind == "conversation":
        out.add(C.CONVERSATION_ID_PREFIX.id)
        if "metadata" in body:
            out.add(C.CONVERSATION_METADATA.id)
    elif kind == "conversation_deleted":
        out.add(C.CONVERSATION_DELETED_TRUE.id)
    else:
        data = body.get("data")
        if isinstance(data, list) and data:
            out.add(C.ITEM_LIST_BOUNDS.id)
            if len(data) > 1:
                out.add(C.ITEM_LIST_ID_UNIQUE.id)
    return out
