"""§4.5 Conversations (docs/spec.md#s4-5): ``conversation.*``, ``item_list.*``.

A conversation is ``{id, object: "conversation", created_at, metadata}`` ([OAPI]
``ConversationResource``; ids ``conv_…`` as [REC] pydantic-ai's cassettes show, an INFO);
``metadata`` is at most 16 string pairs, keys ≤ 64 and values ≤ 512 characters ([OAPI]
``Metadata``). ``DELETE`` answers ``{id, object: "conversation.deleted", deleted: true}`` ([OAPI]
``DeletedConversationResource``). A conversation's items (``GET /v1/conversations/{id}/items``,
a ``ConversationItemList``) page like a response's input items (§4.1, ``GET
/v1/responses/{id}/input_items``, a ``ResponseItemList``): ``object: "list"``, ``data``,
``first_id``, ``last_id``, ``has_more``; ``first_id`` and ``last_id`` are the ids of the page's
first and last items, and no two items of a page share an id. The two lists differ only in their
item unions, so a list is judged against whichever of the two schemas it fits better.

The rules judge one body each (``check`` on a body, the suite, the proxy: conformance.bodies.state
hands it over by its ``object``): :func:`judge_conversation`, :func:`judge_deleted_conversation`,
:func:`judge_item_list`. Each marks the checks it evaluated in ``applied`` where it evaluates
them: the schema checks on every body, ``conversation.id_prefix`` on every conversation,
``conversation.metadata`` where ``metadata`` is present, ``item_list.bounds`` on a non-empty page
and ``item_list.id_unique`` on one of two or more items.

The live checks of the conversation endpoints (``live.conversation.*``) and their rules, the
suite's cases, are in :mod:`.s4_5_conversation_endpoints`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog.registry import Check, Level, Violation, register
from ..catalog.render import short
from ..schema import SchemaIssue, SchemaValidator

__all__ = [
    "CONVERSATION_DELETED_TRUE",
    "CONVERSATION_ID_PREFIX",
    "CONVERSATION_METADATA",
    "CONVERSATION_SCHEMA_REQUIRED",
    "CONVERSATION_SCHEMA_TYPE",
    "ITEM_LIST_BOUNDS",
    "ITEM_LIST_ID_UNIQUE",
    "ITEM_LIST_SCHEMA_ENUM",
    "ITEM_LIST_SCHEMA_REQUIRED",
    "ITEM_LIST_SCHEMA_TYPE",
    "ITEM_LIST_SCHEMA_VALUE",
    "declare_examples",
    "judge_conversation",
    "judge_deleted_conversation",
    "judge_item_list",
]

CONVERSATION_SCHEMA_REQUIRED = register(
    "conversation.schema.required",
    Level.MUST,
    "§4.5 [OAPI] ConversationResource, DeletedConversationResource",
    "a conversation (`object: conversation`) carries `id`, `metadata`, `created_at`; a deleted "
    "one (`object: conversation.deleted`) `id` and `deleted`",
)
CONVERSATION_SCHEMA_TYPE = register(
    "conversation.schema.type",
    Level.MUST,
    "§4.5 [OAPI] ConversationResource, DeletedConversationResource",
    "every field of a conversation object or of a deleted-conversation body has the type "
    "OpenAI's schema gives it",
)
CONVERSATION_METADATA = register(
    "conversation.metadata",
    Level.MUST,
    "§4.5 [OAPI] ConversationResource, Metadata",
    "a conversation's `metadata` is an object of at most 16 string values (keys ≤ 64 "
    "characters, values ≤ 512)",
)
CONVERSATION_ID_PREFIX = register(
    "conversation.id_prefix",
    Level.INFO,
    "§4.5 [REC] pydantic-ai cassettes",
    "conversation ids carry OpenAI's prefix `conv_`",
)
CONVERSATION_DELETED_TRUE = register(
    "conversation.deleted.true",
    Level.MUST,
    "§4.5 [OAPI] DeletedConversationResource [REC] pydantic-ai cassettes",
    "a deleted-conversation body says `deleted: true`",
)
ITEM_LIST_SCHEMA_REQUIRED = register(
    "item_list.schema.required",
    Level.MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "an item list (`object: list`) carries `data`, `has_more`, `first_id` and `last_id`, and "
    "each item every field its schema requires",
)
ITEM_LIST_SCHEMA_TYPE = register(
    "item_list.schema.type",
    Level.MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "every field of an item list and of its items has the type OpenAI's schema gives it",
)
ITEM_LIST_SCHEMA_VALUE = register(
    "item_list.schema.value",
    Level.MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "constant and discriminator fields of an item list and of its items have the values "
    "OpenAI's schema gives",
)
ITEM_LIST_SCHEMA_ENUM = register(
    "item_list.schema.enum",
    Level.INFO,
    "§1a (enum values are open)",
    "enumerated fields of an item list's items use a value OpenAI's schema lists",
)
ITEM_LIST_BOUNDS = register(
    "item_list.bounds",
    Level.MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "a non-empty list's `first_id` is its first item's id and `last_id` its last item's (a client "
    "pages on with `after=last_id`)",
)
ITEM_LIST_ID_UNIQUE = register(
    "item_list.id_unique",
    Level.MUST,
    "§4.1, §4.5",
    "no two items of one list page share an id",
)
# A conversation has no enumerated field but its `object` constant, which is `value`; a wrong
# constant cannot reach here (the kind is told by it), so value issues are not reported.
_CONVERSATION_SCHEMA: Mapping[str, Check | None] = {
    "required": CONVERSATION_SCHEMA_REQUIRED,
    "type": CONVERSATION_SCHEMA_TYPE,
    "value": None,
    "enum": None,
}
_ITEM_LIST_SCHEMA: Mapping[str, Check | None] = {
    "required": ITEM_LIST_SCHEMA_REQUIRED,
    "type": ITEM_LIST_SCHEMA_TYPE,
    "value": ITEM_LIST_SCHEMA_VALUE,
    "enum": ITEM_LIST_SCHEMA_ENUM,
}
# Both lists are `{object: list, data, has_more, first_id, last_id}`; only the item unions differ
# (input items vs. conversation items), so the better fit is judged.
_ITEM_LIST_NAMES = ("ResponseItemList", "ConversationItemList")
_METADATA_PAIRS, _METADATA_KEY, _METADATA_VALUE = 16, 64, 512


def _schema(
    body: Mapping[str, Any],
    names: tuple[str, ...],
    checks: Mapping[str, Check | None],
    schemas: SchemaValidator,
    applied: set[str] | None,
) -> list[Violation]:
    """The body against the schema of ``names`` it fits best, its issues under ``checks``."""
    if applied is not None:
        applied.update(c.id for c in checks.values() if c is not None)
    best: list[SchemaIssue] | None = None
    for name in names:
        issues = schemas.validate(name, body)
        if best is None or len(issues) < len(best):
            best = issues
        if not issues:
            break
    out: list[Violation] = []
    for issue in best or ():
        check = checks[issue.kind]
        if check is not None:
            out.append(
                check.violation(expected=issue.expected, actual=issue.actual, path=issue.path)
            )
    return out


def judge_conversation(
    body: Mapping[str, Any], schemas: SchemaValidator, applied: set[str] | None = None
) -> list[Violation]:
    """A conversation (``object: conversation``): [OAPI] ``ConversationResource``, its id's
    prefix, its ``metadata``; the checks evaluated go into ``applied`` when given."""
    out = _schema(body, ("ConversationResource",), _CONVERSATION_SCHEMA, schemas, applied)
    if applied is not None:
        applied.add(CONVERSATION_ID_PREFIX.id)
        if "metadata" in body:
            applied.add(CONVERSATION_METADATA.id)
    return out + _conversation(body)


def judge_deleted_conversation(
    body: Mapping[str, Any], schemas: SchemaValidator, applied: set[str] | None = None
) -> list[Violation]:
    """A deleted-conversation body: [OAPI] ``DeletedConversationResource``, ``deleted: true``;
    the checks evaluated go into ``applied`` when given."""
    names = ("DeletedConversationResource",)
    out = _schema(body, names, _CONVERSATION_SCHEMA, schemas, applied)
    if applied is not None:
        applied.add(CONVERSATION_DELETED_TRUE.id)
    if body.get("deleted") is not True:
        out.append(
            CONVERSATION_DELETED_TRUE.violation(
                expected="deleted: true", actual=short(body.get("deleted")), path="deleted"
            )
        )
    return out


def judge_item_list(
    body: Mapping[str, Any], schemas: SchemaValidator, applied: set[str] | None = None
) -> list[Violation]:
    """An item list (``object: list``): the schema it fits better, its bounds, its ids; the
    checks evaluated go into ``applied`` when given."""
    out = _schema(body, _ITEM_LIST_NAMES, _ITEM_LIST_SCHEMA, schemas, applied)
    data = body.get("data")
    if applied is not None and isinstance(data, list) and data:
        applied.add(ITEM_LIST_BOUNDS.id)
        if len(data) > 1:
            applied.add(ITEM_LIST_ID_UNIQUE.id)
    return out + _item_list(body)


def _conversation(body: Mapping[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    cid = body.get("id")
    if isinstance(cid, str) and not cid.startswith("conv_"):
        out.append(CONVERSATION_ID_PREFIX.violation(expected="conv_…", actual=cid, path="id"))
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
            CONVERSATION_METADATA.violation(
                expected="an object of ≤ 16 strings (keys ≤ 64, values ≤ 512 characters)",
                actual=problem,
                path="metadata",
            )
        )
    return out


def _item_list(body: Mapping[str, Any]) -> list[Violation]:
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
                    ITEM_LIST_BOUNDS.violation(
                        expected=f"{field} = {want!r}", actual=short(got), path=field
                    )
                )
    seen: dict[str, int] = {}
    for i, iid in enumerate(ids):
        if not isinstance(iid, str):
            continue
        if iid in seen:
            out.append(
                ITEM_LIST_ID_UNIQUE.violation(
                    expected="ids unique in the page",
                    actual=f"{iid!r} at data[{seen[iid]}] and data[{i}]",
                    path=f"data[{i}].id",
                )
            )
        else:
            seen[iid] = i
    return out


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples): a
    conversation, a deleted conversation, a page of two user messages, one thing changed."""
    from ..examples.offline_state import (
        S,
        _file_search,
        _user,
        conversation,
        deleted,
        drop,
        edit,
        item_list,
    )
    from ..examples.registry import example

    def _page(item: dict[str, Any]) -> dict[str, Any]:
        return {**item_list(), "data": [item], "first_id": "fs_1", "last_id": "fs_1"}

    example(CONVERSATION_SCHEMA_REQUIRED.id, S(drop(conversation, "created_at")), S(conversation))
    example(
        CONVERSATION_SCHEMA_TYPE.id,
        S(edit(conversation, "created_at", "2025-01-01")),
        S(edit(conversation, "created_at", 1)),
    )
    example(
        CONVERSATION_METADATA.id,
        S(edit(conversation, "metadata", {f"k{i}": "v" for i in range(17)}), "17 pairs"),
        S(edit(conversation, "metadata", {f"k{i}": "v" * 512 for i in range(16)})),
    )
    example(
        CONVERSATION_ID_PREFIX.id,
        S(edit(conversation, "id", "thread_example")),
        S(conversation),
    )
    example(CONVERSATION_DELETED_TRUE.id, S(edit(deleted, "deleted", False)), S(deleted))

    example(ITEM_LIST_SCHEMA_REQUIRED.id, S(drop(item_list, "has_more")), S(item_list))
    example(ITEM_LIST_SCHEMA_TYPE.id, S(edit(item_list, "has_more", "no")), S(item_list))
    example(
        ITEM_LIST_SCHEMA_VALUE.id,
        S(lambda: _page(_file_search("k" * 65)), "an attribute key of 65 chars"),
        S(lambda: _page(_file_search())),
    )
    example(
        ITEM_LIST_SCHEMA_ENUM.id,
        S(edit(item_list, "data.0.status", "archived")),
        S(edit(item_list, "data.0.status", "incomplete")),
    )
    example(
        ITEM_LIST_BOUNDS.id,
        S(edit(item_list, "last_id", "msg_1")),
        S(edit(item_list, "has_more", True)),
    )
    example(
        ITEM_LIST_ID_UNIQUE.id,
        S(
            lambda: {
                **item_list(),
                "data": [_user("hi", "msg_1"), _user("again", "msg_1")],
                "last_id": "msg_1",
            }
        ),
        S(item_list),
    )
