"""State objects (§4.1, §4.5, §4.6): ``compaction.*``, ``conversation.*``, ``item_list.*``."""

from __future__ import annotations

from ..sections.s4_5_conversations import CONVERSATION_DELETED_TRUE as CONVERSATION_DELETED_TRUE
from ..sections.s4_5_conversations import CONVERSATION_ID_PREFIX as CONVERSATION_ID_PREFIX
from ..sections.s4_5_conversations import CONVERSATION_METADATA as CONVERSATION_METADATA
from ..sections.s4_5_conversations import (
    CONVERSATION_SCHEMA_REQUIRED as CONVERSATION_SCHEMA_REQUIRED,
)
from ..sections.s4_5_conversations import CONVERSATION_SCHEMA_TYPE as CONVERSATION_SCHEMA_TYPE
from ..sections.s4_5_conversations import ITEM_LIST_BOUNDS as ITEM_LIST_BOUNDS
from ..sections.s4_5_conversations import ITEM_LIST_ID_UNIQUE as ITEM_LIST_ID_UNIQUE
from ..sections.s4_5_conversations import ITEM_LIST_SCHEMA_ENUM as ITEM_LIST_SCHEMA_ENUM
from ..sections.s4_5_conversations import ITEM_LIST_SCHEMA_REQUIRED as ITEM_LIST_SCHEMA_REQUIRED
from ..sections.s4_5_conversations import ITEM_LIST_SCHEMA_TYPE as ITEM_LIST_SCHEMA_TYPE
from ..sections.s4_5_conversations import ITEM_LIST_SCHEMA_VALUE as ITEM_LIST_SCHEMA_VALUE

# The checks of the state objects are declared with their rules and examples in their section
# modules (conformance.sections): compaction.* in §4.6's; conversation.* and item_list.* in
# §4.5's. The bodies of POST /v1/responses/compact, the Conversations API and the item lists
# (`GET /v1/responses/{id}/input_items`, `GET /v1/conversations/{id}/items`) are judged offline
# by `check` and live by the suite (conformance.bodies.state hands each to its rule).
from ..sections.s4_6_compaction import COMPACTION_ITEM_CONTENT as COMPACTION_ITEM_CONTENT
from ..sections.s4_6_compaction import COMPACTION_ITEM_PRESENT as COMPACTION_ITEM_PRESENT
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_ENUM as COMPACTION_SCHEMA_ENUM
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_REQUIRED as COMPACTION_SCHEMA_REQUIRED
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_TYPE as COMPACTION_SCHEMA_TYPE
from ..sections.s4_6_compaction import COMPACTION_SCHEMA_VALUE as COMPACTION_SCHEMA_VALUE
