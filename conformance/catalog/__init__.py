"""Every check the judge knows, by stable ID. IDs never change meaning; retired IDs are not reused.

Each check is a named constant (``C.STREAM_SEQUENCE_START`` …) of one module of this package, by
concern, all re-exported here (``from conformance import catalog as C``; ``__all__`` lists every
name); importing the package registers them in :data:`conformance.catalog.registry.REGISTRY`:

- :mod:`.framing` — ``sse.*`` framing of the byte stream, ``event.*`` one event on its own (its
  schema included);
- :mod:`.stream` — ``stream.*``: the invariants across one stream (sequence, lifecycle, items,
  parts, text consistency);
- :mod:`.objects` — ``response.*`` one Response object (streamed terminal or non-stream body),
  ``usage.*`` usage accounting, ``error.*`` error bodies;
- :mod:`.client_rules` — the rules clients enforce (item status and identity, logprobs, Open
  Responses event types);
- :mod:`.websocket` — ``ws.*``, WebSocket mode sessions;
- :mod:`.tools` — per-tool stream rules (hosted tool progress, image partials, citations);
- :mod:`.refinements` — the one-requirement refinements of ``stream.part.order`` and
  ``stream.summary.order``;
- :mod:`.state` — ``compaction.*``, ``conversation.*``, ``item_list.*`` state objects.

The live suite's checks (``live.*``) are in :mod:`conformance.catalog.live`.

Checks moved to their spec section's module (:mod:`conformance.sections`: the check, its rule and
its examples together; ``stream.sequence.*`` so far) are re-exported by the module of their
concern at the place they were declared. A new check of such a section is declared there only.
"""

from __future__ import annotations

# The modules are imported in the order their checks were declared (REGISTRY keeps it), hence the
# splits.
from .framing import (
    EVENT_SCHEMA_ENUM,
    EVENT_SCHEMA_REQUIRED,
    EVENT_SCHEMA_TYPE,
    EVENT_SCHEMA_VALUE,
    EVENT_TYPE_KNOWN,
    EVENT_TYPE_NONSTANDARD,
    EVENT_TYPE_PRESENT,
    SSE_AFTER_DONE,
    SSE_DATA_JSON,
    SSE_DONE_REQUIRED,
    SSE_EVENT_NAME_MATCHES,
    SSE_EVENT_NAME_PRESENT,
    SSE_EVENT_NAME_REQUIRED,
    SSE_ID_ABSENT,
    SSE_LIMIT_DEPTH,
    SSE_LIMIT_EVENT_COUNT,
    SSE_LIMIT_EVENT_SIZE,
)
from .registry import Level

# isort: split
from .stream import (
    ANNOTATIONS_MATCH,
    ARGS_ADDED_FIRST,
    ARGS_ORDER,
    DELTA_TYPE_FITS_ITEM,
    DELTAS_EQUAL_DONE,
    DONE_EQUALS_PART,
    ERROR_FOLLOWED_BY_FAILED,
    ITEM_ADDED_BEFORE_USE,
    ITEM_ADDED_ONCE,
    ITEM_ADDED_STATE,
    ITEM_CLOSED_BEFORE_TERMINAL,
    ITEM_CONTENT_MATCHES,
    ITEM_DONE_MATCHES_ADDED,
    ITEM_DONE_ONCE,
    ITEM_ID_MATCHES,
    ITEM_ID_PREFIX,
    ITEM_ID_UNIQUE,
    ITEM_INCOMPLETE_LAST,
    ITEM_INTERLEAVE,
    LIFECYCLE_AFTER_TERMINAL,
    LIFECYCLE_CREATED_FIRST,
    LIFECYCLE_IN_PROGRESS,
    LIFECYCLE_TERMINAL_PRESENT,
    LIFECYCLE_UNIQUE,
    OUTPUT_EQUALS_ITEMS,
    OUTPUT_INDEX_CONTIGUOUS,
    PART_ADDED_BEFORE_USE,
    PART_CLOSED,
    PART_INDEX_CONTIGUOUS,
    PART_KIND_MATCHES,
    PART_ORDER,
    PART_TYPE_FITS_ITEM,
    RESPONSE_CREATED_AT_STABLE,
    RESPONSE_ID_STABLE,
    RESPONSE_INTERIM_STATE,
    RESPONSE_TERMINAL_STATUS,
    SEQ_CONTIGUOUS,
    SEQ_PRESENT,
    SEQ_START,
    SUMMARY_INDEX,
    SUMMARY_ORDER,
    SUMMARY_PART_ADDED,
)

# isort: split
from .objects import (
    ERROR_CODE_TYPE,
    ERROR_SHAPE,
    RESPONSE_FAILED_ERROR,
    RESPONSE_INCOMPLETE_DETAILS,
    RESPONSE_OPENRESPONSES_FIELDS,
    RESPONSE_SCHEMA_ENUM,
    RESPONSE_SCHEMA_REQUIRED,
    RESPONSE_SCHEMA_TYPE,
    RESPONSE_SCHEMA_VALUE,
    USAGE_CACHED_LE_INPUT,
    USAGE_DETAILS,
    USAGE_INTEGERS,
    USAGE_MAX_OUTPUT,
    USAGE_OUTPUT_NONZERO,
    USAGE_PRESENT,
    USAGE_REASONING_LE_OUTPUT,
    USAGE_TOTAL,
)

# isort: split
from .client_rules import (
    EVENT_TYPE_OPENRESPONSES,
    ITEM_CALL_IDENTITY,
    ITEM_STATUS_COMPLETED,
    LOGPROBS_DELTAS_EQUAL_DONE,
    LOGPROBS_NONPOSITIVE,
    LOGPROBS_TOP_COUNT,
)

# isort: split
from .websocket import (
    WS_ERROR_SHAPE,
    WS_EVENT_ROUTED,
    WS_FRAME_JSON,
    WS_FRAME_TEXT,
    WS_LANE_ORDER,
    WS_LANE_SERIAL,
    WS_REQUEST_ANSWERED,
    WS_REQUEST_REJECTED,
    WS_STEER_KNOWN,
    WS_STEER_LIVE,
    WS_STEER_PENDING_AFTER_TERMINAL,
    WS_STEER_SHAPE,
    WS_STREAM_ID_ECHOED,
)

# isort: split
from .tools import (
    ANNOTATION_OFFSETS,
    HOSTED_FAILED_STATUS,
    HOSTED_PROGRESS_ORDER,
    IMAGE_PARTIAL_INDEX,
)

# isort: split
from .refinements import (
    PART_AFTER_PART_DONE,
    PART_DELTA_AFTER_DONE,
    PART_DONE_BEFORE_PART_DONE,
    PART_DONE_ONCE,
    PART_OPENS_EMPTY,
    PART_TYPE_STABLE,
    SUMMARY_AFTER_PART_DONE,
    SUMMARY_CLOSED_BEFORE_ITEM,
    SUMMARY_CLOSED_BEFORE_NEXT,
    SUMMARY_DELTA_AFTER_DONE,
    SUMMARY_DONE_BEFORE_PART_DONE,
    SUMMARY_DONE_ONCE,
    SUMMARY_OPENS_EMPTY,
)

# isort: split
from .state import (
    COMPACTION_ITEM_CONTENT,
    COMPACTION_ITEM_PRESENT,
    COMPACTION_SCHEMA_ENUM,
    COMPACTION_SCHEMA_REQUIRED,
    COMPACTION_SCHEMA_TYPE,
    COMPACTION_SCHEMA_VALUE,
    CONVERSATION_DELETED_TRUE,
    CONVERSATION_ID_PREFIX,
    CONVERSATION_METADATA,
    CONVERSATION_SCHEMA_REQUIRED,
    CONVERSATION_SCHEMA_TYPE,
    ITEM_LIST_BOUNDS,
    ITEM_LIST_ID_UNIQUE,
    ITEM_LIST_SCHEMA_ENUM,
    ITEM_LIST_SCHEMA_REQUIRED,
    ITEM_LIST_SCHEMA_TYPE,
    ITEM_LIST_SCHEMA_VALUE,
)

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

__all__ = [
    "ANNOTATIONS_MATCH",
    "ANNOTATION_OFFSETS",
    "ARGS_ADDED_FIRST",
    "ARGS_ORDER",
    "COMPACTION_ITEM_CONTENT",
    "COMPACTION_ITEM_PRESENT",
    "COMPACTION_SCHEMA_ENUM",
    "COMPACTION_SCHEMA_REQUIRED",
    "COMPACTION_SCHEMA_TYPE",
    "COMPACTION_SCHEMA_VALUE",
    "CONVERSATION_DELETED_TRUE",
    "CONVERSATION_ID_PREFIX",
    "CONVERSATION_METADATA",
    "CONVERSATION_SCHEMA_REQUIRED",
    "CONVERSATION_SCHEMA_TYPE",
    "DELTAS_EQUAL_DONE",
    "DELTA_TYPE_FITS_ITEM",
    "DONE_EQUALS_PART",
    "ERROR_CODE_TYPE",
    "ERROR_FOLLOWED_BY_FAILED",
    "ERROR_SHAPE",
    "EVENT_SCHEMA_ENUM",
    "EVENT_SCHEMA_REQUIRED",
    "EVENT_SCHEMA_TYPE",
    "EVENT_SCHEMA_VALUE",
    "EVENT_TYPE_KNOWN",
    "EVENT_TYPE_NONSTANDARD",
    "EVENT_TYPE_OPENRESPONSES",
    "EVENT_TYPE_PRESENT",
    "HOSTED_FAILED_STATUS",
    "HOSTED_PROGRESS_ORDER",
    "IMAGE_PARTIAL_INDEX",
    "INFO",
    "ITEM_ADDED_BEFORE_USE",
    "ITEM_ADDED_ONCE",
    "ITEM_ADDED_STATE",
    "ITEM_CALL_IDENTITY",
    "ITEM_CLOSED_BEFORE_TERMINAL",
    "ITEM_CONTENT_MATCHES",
    "ITEM_DONE_MATCHES_ADDED",
    "ITEM_DONE_ONCE",
    "ITEM_ID_MATCHES",
    "ITEM_ID_PREFIX",
    "ITEM_ID_UNIQUE",
    "ITEM_INCOMPLETE_LAST",
    "ITEM_INTERLEAVE",
    "ITEM_LIST_BOUNDS",
    "ITEM_LIST_ID_UNIQUE",
    "ITEM_LIST_SCHEMA_ENUM",
    "ITEM_LIST_SCHEMA_REQUIRED",
    "ITEM_LIST_SCHEMA_TYPE",
    "ITEM_LIST_SCHEMA_VALUE",
    "ITEM_STATUS_COMPLETED",
    "LIFECYCLE_AFTER_TERMINAL",
    "LIFECYCLE_CREATED_FIRST",
    "LIFECYCLE_IN_PROGRESS",
    "LIFECYCLE_TERMINAL_PRESENT",
    "LIFECYCLE_UNIQUE",
    "LOGPROBS_DELTAS_EQUAL_DONE",
    "LOGPROBS_NONPOSITIVE",
    "LOGPROBS_TOP_COUNT",
    "MUST",
    "OUTPUT_EQUALS_ITEMS",
    "OUTPUT_INDEX_CONTIGUOUS",
    "PART_ADDED_BEFORE_USE",
    "PART_AFTER_PART_DONE",
    "PART_CLOSED",
    "PART_DELTA_AFTER_DONE",
    "PART_DONE_BEFORE_PART_DONE",
    "PART_DONE_ONCE",
    "PART_INDEX_CONTIGUOUS",
    "PART_KIND_MATCHES",
    "PART_OPENS_EMPTY",
    "PART_ORDER",
    "PART_TYPE_FITS_ITEM",
    "PART_TYPE_STABLE",
    "RESPONSE_CREATED_AT_STABLE",
    "RESPONSE_FAILED_ERROR",
    "RESPONSE_ID_STABLE",
    "RESPONSE_INCOMPLETE_DETAILS",
    "RESPONSE_INTERIM_STATE",
    "RESPONSE_OPENRESPONSES_FIELDS",
    "RESPONSE_SCHEMA_ENUM",
    "RESPONSE_SCHEMA_REQUIRED",
    "RESPONSE_SCHEMA_TYPE",
    "RESPONSE_SCHEMA_VALUE",
    "RESPONSE_TERMINAL_STATUS",
    "SEQ_CONTIGUOUS",
    "SEQ_PRESENT",
    "SEQ_START",
    "SHOULD",
    "SSE_AFTER_DONE",
    "SSE_DATA_JSON",
    "SSE_DONE_REQUIRED",
    "SSE_EVENT_NAME_MATCHES",
    "SSE_EVENT_NAME_PRESENT",
    "SSE_EVENT_NAME_REQUIRED",
    "SSE_ID_ABSENT",
    "SSE_LIMIT_DEPTH",
    "SSE_LIMIT_EVENT_COUNT",
    "SSE_LIMIT_EVENT_SIZE",
    "SUMMARY_AFTER_PART_DONE",
    "SUMMARY_CLOSED_BEFORE_ITEM",
    "SUMMARY_CLOSED_BEFORE_NEXT",
    "SUMMARY_DELTA_AFTER_DONE",
    "SUMMARY_DONE_BEFORE_PART_DONE",
    "SUMMARY_DONE_ONCE",
    "SUMMARY_INDEX",
    "SUMMARY_OPENS_EMPTY",
    "SUMMARY_ORDER",
    "SUMMARY_PART_ADDED",
    "USAGE_CACHED_LE_INPUT",
    "USAGE_DETAILS",
    "USAGE_INTEGERS",
    "USAGE_MAX_OUTPUT",
    "USAGE_OUTPUT_NONZERO",
    "USAGE_PRESENT",
    "USAGE_REASONING_LE_OUTPUT",
    "USAGE_TOTAL",
    "WS_ERROR_SHAPE",
    "WS_EVENT_ROUTED",
    "WS_FRAME_JSON",
    "WS_FRAME_TEXT",
    "WS_LANE_ORDER",
    "WS_LANE_SERIAL",
    "WS_REQUEST_ANSWERED",
    "WS_REQUEST_REJECTED",
    "WS_STEER_KNOWN",
    "WS_STEER_LIVE",
    "WS_STEER_PENDING_AFTER_TERMINAL",
    "WS_STEER_SHAPE",
    "WS_STREAM_ID_ECHOED",
]
