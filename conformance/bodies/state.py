"""Checks on the state objects of the API besides the Response: compaction results, conversations,
deleted conversations and item lists.

- ``response.compaction`` — the body of ``POST /v1/responses/compact`` ([OAPI] ``CompactResource``):
  schema, a ``compaction`` item with a non-empty ``encrypted_content``, the usage rules of SPEC §3
  (:mod:`conformance.sections.s4_6_compaction`);
- ``conversation`` — ``POST/GET /v1/conversations[/{id}]`` ([OAPI] ``ConversationResource``):
  schema, ``metadata`` as OpenAI bounds it, the ``conv_`` prefix (INFO);
- ``conversation.deleted`` — ``DELETE /v1/conversations/{id}`` (``DeletedConversationResource``):
  schema, ``deleted: true``;
- ``list`` — ``GET /v1/responses/{id}/input_items`` (``ResponseItemList``) and
  ``GET /v1/conversations/{id}/items`` (``ConversationItemList``): the list is judged against
  whichever of the two schemas it fits better, then ``first_id``/``last_id`` against the page
  and item ids unique within it (the last three: :mod:`conformance.sections.s4_5_conversations`).

This module tells a body's kind by its ``object`` and hands it to its section's rule, which marks
the checks it evaluated (what a live run reports as exercised). Sans-I/O: a parsed body in,
violations out; the suite and the offline ``check`` both call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..catalog.registry import Violation
from ..catalog.render import short as _short
from ..schema import SCHEMAS, SchemaValidator
from ..sections.s4_5_conversations import (
    judge_conversation,
    judge_deleted_conversation,
    judge_item_list,
)
from ..sections.s4_6_compaction import judge_compaction
from ..sections.s5_limits import too_deep_to_follow

__all__ = [
    "STATE_OBJECTS",
    "StateKind",
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
    """Judge one state body (``kind`` defaults to :func:`state_kind`'s answer); its section's
    rule marks what it evaluated in ``applied``, when given."""
    kind = kind or state_kind(body)
    if kind is None:
        raise ValueError(f"not a state object: object={_short(body.get('object'))}")
    try:
        return _validate(dict(body), kind, schemas or SCHEMAS, applied)
    except RecursionError:
        return [too_deep_to_follow()]  # §5 (conformance.sections)


def _validate(
    body: dict[str, Any], kind: StateKind, schemas: SchemaValidator, applied: set[str] | None
) -> list[Violation]:
    if kind == "compaction":
        return judge_compaction(body, schemas, applied)
    if kind == "conversation":
        return judge_conversation(body, schemas, applied)
    if kind == "conversation_deleted":
        return judge_deleted_conversation(body, schemas, applied)
    return judge_item_list(body, schemas, applied)
