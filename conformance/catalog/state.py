"""State objects (§4.1, §4.5, §4.6): ``compaction.*``, ``conversation.*``, ``item_list.*``."""

from __future__ import annotations

# compaction.* (docs/spec.md §4.6) is declared with its rule and examples in its section module
# (conformance.sections).
from ..sections.s4_6_compaction import COMPACTION_ITEM_CONTENT as COMPACTION_ITEM_CONTENT
from ..sections.s4_6_compaction import COMPACTION_ITEM_PRESENT as COMPACTION_ITEM_PRESENT
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_ENUM as COMPACTION_SCHEMA_ENUM
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_REQUIRED as COMPACTION_SCHEMA_REQUIRED
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_TYPE as COMPACTION_SCHEMA_TYPE
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_VALUE as COMPACTION_SCHEMA_VALUE
from .registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- compaction.*, conversation.*, item_list.*: state objects (§4.1, §4.5, §4.6) -------------
# The bodies of POST /v1/responses/compact, the Conversations API and the item lists
# (`GET /v1/responses/{id}/input_items`, `GET /v1/conversations/{id}/items`), judged offline by
# `check` and live by the suite (conformance.bodies.state).
CONVERSATION_SCHEMA_REQUIRED = register(
    "conversation.schema.required",
    MUST,
    "§4.5 [OAPI] ConversationResource, DeletedConversationResource",
    "a conversation (`object: conversation`) carries `id`, `metadata`, `created_at`; a deleted "
    "one (`object: conversation.deleted`) `id` and `deleted`",
)
CONVERSATION_SCHEMA_TYPE = register(
    "conversation.schema.type",
    MUST,
    "§4.5 [OAPI] ConversationResource, DeletedConversationResource",
    "every field of a conversation object or of a deleted-conversation body has the type "
    "OpenAI's schema gives it",
)
CONVERSATION_METADATA = register(
    "conversation.metadata",
    MUST,
    "§4.5 [OAPI] ConversationResource, Metadata",
    "a conversation's `metadata` is an object of at most 16 string values (keys ≤ 64 "
    "characters, values ≤ 512)",
)
CONVERSATION_ID_PREFIX = register(
    "conversation.id_prefix",
    INFO,
    "§4.5 [REC] pydantic-ai cassettes",
    "conversation ids carry OpenAI's prefix `conv_`",
)
CONVERSATION_DELETED_TRUE = register(
    "conversation.deleted.true",
    MUST,
    "§4.5 [OAPI] DeletedConversationResource [REC] pydantic-ai cassettes",
    "a deleted-conversation body says `deleted: true`",
)
ITEM_LIST_SCHEMA_REQUIRED = register(
    "item_list.schema.required",
    MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "an item list (`object: list`) carries `data`, `has_more`, `first_id` and `last_id`, and "
    "each item every field its schema requires",
)
ITEM_LIST_SCHEMA_TYPE = register(
    "item_list.schema.type",
    MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "every field of an item list and of its items has the type OpenAI's schema gives it",
)
ITEM_LIST_SCHEMA_VALUE = register(
    "item_list.schema.value",
    MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "constant and discriminator fields of an item list and of its items have the values "
    "OpenAI's schema gives",
)
ITEM_LIST_SCHEMA_ENUM = register(
    "item_list.schema.enum",
    INFO,
    "§1a (enum values are open)",
    "enumerated fields of an item list's items use a value OpenAI's schema lists",
)
ITEM_LIST_BOUNDS = register(
    "item_list.bounds",
    MUST,
    "§4.1, §4.5 [OAPI] ResponseItemList, ConversationItemList",
    "a non-empty list's `first_id` is its first item's id and `last_id` its last item's (a client "
    "pages on with `after=last_id`)",
)
ITEM_LIST_ID_UNIQUE = register(
    "item_list.id_unique",
    MUST,
    "§4.1, §4.5",
    "no two items of one list page share an id",
)
