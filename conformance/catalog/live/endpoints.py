"""The checks only a live run can make: across requests, endpoints and state (docs/spec.md §3–§8).

They join the offline judge's checks in the one :data:`~conformance.catalog.registry.REGISTRY` (the
``live.*`` group), so reports, ``--strict`` and expected failures treat both alike. Each is
declared in the section module of its clause with the suite's case that evaluates it (its rule:
:mod:`conformance.sections.cases`) and its examples; this module re-exports them, by concern, for
``conformance.catalog.live``.
"""

from __future__ import annotations

# --- live.transport.*, live.case.*: the run itself, declared in conformance/sections/s6_live_suite.py
from ...sections.s6_live_suite import CASE_COMPLETED as CASE_COMPLETED
from ...sections.s6_live_suite import DEADLINE as DEADLINE

# isort: split
# --- live.http.*, live.create.*: declared with their cases in conformance/sections/s3_3_request.py
from ...sections.s3_3_request import CREATE_ANSWER as CREATE_ANSWER
from ...sections.s3_3_request import HTTP_OK as HTTP_OK
from ...sections.s3_3_request import INPUT_FORMS as INPUT_FORMS
from ...sections.s3_3_request import MAX_OUTPUT_INCOMPLETE as MAX_OUTPUT_INCOMPLETE
from ...sections.s3_3_request import RESPONSE_ECHO as RESPONSE_ECHO
from ...sections.s3_3_request import STREAM_CONTENT_TYPE as STREAM_CONTENT_TYPE
from ...sections.s3_3_request import STREAM_EQUALS_NONSTREAM as STREAM_EQUALS_NONSTREAM
from ...sections.s3_3_request import USAGE_STREAM_EQUALS_NONSTREAM as USAGE_STREAM_EQUALS_NONSTREAM

# --- live.errors.*: declared with their cases in conformance/sections/s4_4_errors.py ---------------
from ...sections.s4_4_errors import BAD_INPUT_4XX as BAD_INPUT_4XX
from ...sections.s4_4_errors import NOT_FOUND_404 as NOT_FOUND_404
from ...sections.s4_4_errors import PARAM_NAMED as PARAM_NAMED

# isort: split
# --- live.store.*, live.input_items.*: declared with their cases in conformance/sections/s4_1_endpoints.py
# --- live.tools.*: declared with their cases in conformance/sections/s3_3_tool_choice.py ------------
from ...sections.s3_3_tool_choice import TOOLS_ARGUMENTS as TOOLS_ARGUMENTS
from ...sections.s3_3_tool_choice import TOOLS_AUTO as TOOLS_AUTO
from ...sections.s3_3_tool_choice import TOOLS_NAMED as TOOLS_NAMED
from ...sections.s3_3_tool_choice import TOOLS_NONE as TOOLS_NONE
from ...sections.s3_3_tool_choice import TOOLS_OUTPUT_ROUND_TRIP as TOOLS_OUTPUT_ROUND_TRIP
from ...sections.s3_3_tool_choice import TOOLS_PARALLEL as TOOLS_PARALLEL
from ...sections.s3_3_tool_choice import TOOLS_REQUIRED as TOOLS_REQUIRED
from ...sections.s4_1_endpoints import DELETE as DELETE
from ...sections.s4_1_endpoints import INPUT_ITEMS_LIST as INPUT_ITEMS_LIST
from ...sections.s4_1_endpoints import INPUT_ITEMS_PAGING as INPUT_ITEMS_PAGING
from ...sections.s4_1_endpoints import RETRIEVE_EQUALS as RETRIEVE_EQUALS
from ...sections.s4_1_endpoints import STORE_FALSE as STORE_FALSE
from ...sections.s4_1_endpoints import USAGE_RETRIEVE_EQUALS_STREAM as USAGE_RETRIEVE_EQUALS_STREAM

# --- live.background.*: declared with their cases in conformance/sections/s4_2_background.py
from ...sections.s4_2_background import BACKGROUND_CANCEL as BACKGROUND_CANCEL
from ...sections.s4_2_background import BACKGROUND_LIFECYCLE as BACKGROUND_LIFECYCLE
from ...sections.s4_2_background import CANCEL_FOREGROUND as CANCEL_FOREGROUND
from ...sections.s4_2_background import CANCEL_IDEMPOTENT as CANCEL_IDEMPOTENT
from ...sections.s4_2_background import RESUME as RESUME

# --- live.previous_response.*, live.input_tokens.*: declared with their cases in
# conformance/sections/s4_3_previous_response.py
from ...sections.s4_3_previous_response import HISTORY as HISTORY
from ...sections.s4_3_previous_response import INPUT_TOKENS_COUNT as INPUT_TOKENS_COUNT
from ...sections.s4_3_previous_response import INPUT_TOKENS_MATCH as INPUT_TOKENS_MATCH
from ...sections.s4_3_previous_response import PREVIOUS_ECHO as PREVIOUS_ECHO
from ...sections.s4_3_previous_response import PREVIOUS_UNKNOWN as PREVIOUS_UNKNOWN
from ...sections.s4_3_previous_response import RECALL as RECALL
from ...sections.s4_3_previous_response import TOOL_ROUND_TRIP as TOOL_ROUND_TRIP

# isort: split
# --- live.reasoning.*, live.usage.reasoning_*: declared with their case in sections/s6_live_suite.py
from ...sections.s6_live_suite import REASONING_ITEMS as REASONING_ITEMS
from ...sections.s6_live_suite import REASONING_TOKENS_HARDCODED as REASONING_TOKENS_HARDCODED

# isort: split
# --- live.structured.*: declared with its case in conformance/sections/s3_3_request.py -----------
from ...sections.s3_3_request import STRUCTURED_JSON_SCHEMA as STRUCTURED_JSON_SCHEMA

# --- live.conversation.*: declared with their cases in conformance/sections/s4_5_conversation_endpoints.py
from ...sections.s4_5_conversation_endpoints import CONVERSATION_CRUD as CONVERSATION_CRUD
from ...sections.s4_5_conversation_endpoints import CONVERSATION_DELETE as CONVERSATION_DELETE
from ...sections.s4_5_conversation_endpoints import CONVERSATION_ECHO as CONVERSATION_ECHO
from ...sections.s4_5_conversation_endpoints import CONVERSATION_HISTORY as CONVERSATION_HISTORY
from ...sections.s4_5_conversation_endpoints import (
    CONVERSATION_ITEMS_APPENDED as CONVERSATION_ITEMS_APPENDED,
)
from ...sections.s4_5_conversation_endpoints import (
    CONVERSATION_ITEMS_PAGING as CONVERSATION_ITEMS_PAGING,
)
from ...sections.s4_5_conversation_endpoints import CONVERSATION_UNKNOWN as CONVERSATION_UNKNOWN
from ...sections.s4_5_conversation_endpoints import (
    CONVERSATION_WITH_PREVIOUS as CONVERSATION_WITH_PREVIOUS,
)

# --- live.compaction.*: declared with their cases in conformance/sections/s4_6_compaction.py
from ...sections.s4_6_compaction import COMPACTION_COMPACT as COMPACTION_COMPACT
from ...sections.s4_6_compaction import COMPACTION_CONTINUE as COMPACTION_CONTINUE
from ...sections.s4_6_compaction import COMPACTION_MODEL_REQUIRED as COMPACTION_MODEL_REQUIRED

# isort: split
# --- live.openresponses.*: declared with its case in conformance/sections/s3_4_openresponses.py
from ...sections.s3_4_openresponses import OPENRESPONSES_IMAGE_INPUT as OPENRESPONSES_IMAGE_INPUT

# isort: split
# --- live.stateless.*, live.include.*: declared with their cases in conformance/sections/s4_7_include.py
from ...sections.s4_7_include import INCLUDE_UNKNOWN as INCLUDE_UNKNOWN
from ...sections.s4_7_include import STATELESS_ENCRYPTED_ABSENT as STATELESS_ENCRYPTED_ABSENT
from ...sections.s4_7_include import STATELESS_ENCRYPTED_ACCEPTED as STATELESS_ENCRYPTED_ACCEPTED
from ...sections.s4_7_include import STATELESS_ENCRYPTED_PRESENT as STATELESS_ENCRYPTED_PRESENT
from ...sections.s4_7_include import STATELESS_ENCRYPTED_TAMPERED as STATELESS_ENCRYPTED_TAMPERED
from ...sections.s4_7_include import STATELESS_HISTORY_ITEMS as STATELESS_HISTORY_ITEMS

# isort: split
# --- live.ws.*: WebSocket mode (docs/websocket.md): declared with their cases in the §8 section modules
from ...sections.s8_1_frames import WS_UPGRADE as WS_UPGRADE
from ...sections.s8_2_lanes import WS_PREVIOUS_ACROSS_LANES as WS_PREVIOUS_ACROSS_LANES
from ...sections.s8_2_lanes import WS_RESPONSES as WS_RESPONSES
from ...sections.s8_3_refusals import WS_AFTER_ERROR as WS_AFTER_ERROR
from ...sections.s8_3_refusals import WS_BACKGROUND_REJECTED as WS_BACKGROUND_REJECTED
from ...sections.s8_5_steering import WS_STEERING as WS_STEERING
from ...sections.s8_6_two_transports import WS_SAME_AS_SSE as WS_SAME_AS_SSE
from ...sections.s8_7_connection_state import WS_CONNECTION_LOCAL as WS_CONNECTION_LOCAL
from ...sections.s8_7_connection_state import (
    WS_EVICTED_AFTER_FAILURE as WS_EVICTED_AFTER_FAILURE,
)
from ...sections.s8_7_connection_state import WS_GENERATE_FALSE as WS_GENERATE_FALSE
from ...sections.s8_7_connection_state import (
    WS_STORE_FALSE_CONTINUED as WS_STORE_FALSE_CONTINUED,
)
