"""The checks only a live run can make: across requests, endpoints and state (docs/spec.md §3–§4).

They join the offline judge's checks in the one :data:`~conformance.catalog.registry.REGISTRY` (the
``live.*`` group), so reports, ``--strict`` and expected failures treat both alike. The suite's
cases (:mod:`conformance.suite.cases`) are tagged with the IDs they exercise.
"""

from __future__ import annotations

from ..registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- live.transport.*, live.case.*: the run itself, declared in conformance/sections/s6_live_suite.py
from ...sections.s6_live_suite import CASE_COMPLETED as CASE_COMPLETED  # noqa: E402
from ...sections.s6_live_suite import DEADLINE as DEADLINE  # noqa: E402

# isort: split
# --- live.http.*, live.create.*: declared with their cases in conformance/sections/s3_3_request.py
from ...sections.s3_3_request import CREATE_ANSWER as CREATE_ANSWER  # noqa: E402
from ...sections.s3_3_request import HTTP_OK as HTTP_OK  # noqa: E402
from ...sections.s3_3_request import INPUT_FORMS as INPUT_FORMS  # noqa: E402
from ...sections.s3_3_request import MAX_OUTPUT_INCOMPLETE as MAX_OUTPUT_INCOMPLETE  # noqa: E402
from ...sections.s3_3_request import RESPONSE_ECHO as RESPONSE_ECHO  # noqa: E402
from ...sections.s3_3_request import STREAM_CONTENT_TYPE as STREAM_CONTENT_TYPE  # noqa: E402
from ...sections.s3_3_request import STREAM_EQUALS_NONSTREAM as STREAM_EQUALS_NONSTREAM  # noqa: E402
from ...sections.s3_3_request import USAGE_STREAM_EQUALS_NONSTREAM as USAGE_STREAM_EQUALS_NONSTREAM  # noqa: E402

# --- live.errors.*: declared with their cases in conformance/sections/s4_4_errors.py ---------------
from ...sections.s4_4_errors import BAD_INPUT_4XX as BAD_INPUT_4XX  # noqa: E402
from ...sections.s4_4_errors import NOT_FOUND_404 as NOT_FOUND_404  # noqa: E402
from ...sections.s4_4_errors import PARAM_NAMED as PARAM_NAMED  # noqa: E402

# isort: split
# --- live.store.*, live.input_items.*: declared with their cases in conformance/sections/s4_1_endpoints.py
# --- live.tools.*: declared with their cases in conformance/sections/s3_3_tool_choice.py ------------
from ...sections.s3_3_tool_choice import TOOLS_ARGUMENTS as TOOLS_ARGUMENTS  # noqa: E402
from ...sections.s3_3_tool_choice import TOOLS_AUTO as TOOLS_AUTO  # noqa: E402
from ...sections.s3_3_tool_choice import TOOLS_NAMED as TOOLS_NAMED  # noqa: E402
from ...sections.s3_3_tool_choice import TOOLS_NONE as TOOLS_NONE  # noqa: E402
from ...sections.s3_3_tool_choice import TOOLS_OUTPUT_ROUND_TRIP as TOOLS_OUTPUT_ROUND_TRIP  # noqa: E402
from ...sections.s3_3_tool_choice import TOOLS_PARALLEL as TOOLS_PARALLEL  # noqa: E402
from ...sections.s3_3_tool_choice import TOOLS_REQUIRED as TOOLS_REQUIRED  # noqa: E402
from ...sections.s4_1_endpoints import DELETE as DELETE  # noqa: E402
from ...sections.s4_1_endpoints import INPUT_ITEMS_LIST as INPUT_ITEMS_LIST  # noqa: E402
from ...sections.s4_1_endpoints import INPUT_ITEMS_PAGING as INPUT_ITEMS_PAGING  # noqa: E402
from ...sections.s4_1_endpoints import RETRIEVE_EQUALS as RETRIEVE_EQUALS  # noqa: E402
from ...sections.s4_1_endpoints import STORE_FALSE as STORE_FALSE  # noqa: E402
from ...sections.s4_1_endpoints import USAGE_RETRIEVE_EQUALS_STREAM as USAGE_RETRIEVE_EQUALS_STREAM  # noqa: E402

# --- live.background.*: declared with their cases in conformance/sections/s4_2_background.py
from ...sections.s4_2_background import BACKGROUND_CANCEL as BACKGROUND_CANCEL  # noqa: E402
from ...sections.s4_2_background import BACKGROUND_LIFECYCLE as BACKGROUND_LIFECYCLE  # noqa: E402
from ...sections.s4_2_background import CANCEL_FOREGROUND as CANCEL_FOREGROUND  # noqa: E402
from ...sections.s4_2_background import CANCEL_IDEMPOTENT as CANCEL_IDEMPOTENT  # noqa: E402
from ...sections.s4_2_background import RESUME as RESUME  # noqa: E402

# --- live.previous_response.*, live.input_tokens.*: declared with their cases in
# conformance/sections/s4_3_previous_response.py
from ...sections.s4_3_previous_response import HISTORY as HISTORY  # noqa: E402
from ...sections.s4_3_previous_response import INPUT_TOKENS_COUNT as INPUT_TOKENS_COUNT  # noqa: E402
from ...sections.s4_3_previous_response import INPUT_TOKENS_MATCH as INPUT_TOKENS_MATCH  # noqa: E402
from ...sections.s4_3_previous_response import PREVIOUS_ECHO as PREVIOUS_ECHO  # noqa: E402
from ...sections.s4_3_previous_response import PREVIOUS_UNKNOWN as PREVIOUS_UNKNOWN  # noqa: E402
from ...sections.s4_3_previous_response import RECALL as RECALL  # noqa: E402
from ...sections.s4_3_previous_response import TOOL_ROUND_TRIP as TOOL_ROUND_TRIP  # noqa: E402

# isort: split
# --- live.reasoning.*, live.usage.reasoning_*: declared with their case in sections/s6_live_suite.py
from ...sections.s6_live_suite import REASONING_ITEMS as REASONING_ITEMS  # noqa: E402
from ...sections.s6_live_suite import REASONING_TOKENS_HARDCODED as REASONING_TOKENS_HARDCODED  # noqa: E402

# isort: split
# --- live.structured.*: declared with its case in conformance/sections/s3_3_request.py -----------
from ...sections.s3_3_request import STRUCTURED_JSON_SCHEMA as STRUCTURED_JSON_SCHEMA  # noqa: E402

# --- live.conversation.*: declared with their cases in conformance/sections/s4_5_conversation_endpoints.py
from ...sections.s4_5_conversation_endpoints import CONVERSATION_CRUD as CONVERSATION_CRUD  # noqa: E402
from ...sections.s4_5_conversation_endpoints import CONVERSATION_DELETE as CONVERSATION_DELETE  # noqa: E402
from ...sections.s4_5_conversation_endpoints import CONVERSATION_ECHO as CONVERSATION_ECHO  # noqa: E402
from ...sections.s4_5_conversation_endpoints import CONVERSATION_HISTORY as CONVERSATION_HISTORY  # noqa: E402
from ...sections.s4_5_conversation_endpoints import (  # noqa: E402
    CONVERSATION_ITEMS_APPENDED as CONVERSATION_ITEMS_APPENDED,
)
from ...sections.s4_5_conversation_endpoints import (  # noqa: E402
    CONVERSATION_ITEMS_PAGING as CONVERSATION_ITEMS_PAGING,
)
from ...sections.s4_5_conversation_endpoints import CONVERSATION_UNKNOWN as CONVERSATION_UNKNOWN  # noqa: E402
from ...sections.s4_5_conversation_endpoints import (  # noqa: E402
    CONVERSATION_WITH_PREVIOUS as CONVERSATION_WITH_PREVIOUS,
)

# --- live.compaction.*: declared with their cases in conformance/sections/s4_6_compaction.py
from ...sections.s4_6_compaction import COMPACTION_COMPACT as COMPACTION_COMPACT  # noqa: E402
from ...sections.s4_6_compaction import COMPACTION_CONTINUE as COMPACTION_CONTINUE  # noqa: E402
from ...sections.s4_6_compaction import COMPACTION_MODEL_REQUIRED as COMPACTION_MODEL_REQUIRED  # noqa: E402

# isort: split
# --- live.openresponses.*: declared with its case in conformance/sections/s3_4_openresponses.py
from ...sections.s3_4_openresponses import OPENRESPONSES_IMAGE_INPUT as OPENRESPONSES_IMAGE_INPUT  # noqa: E402

# isort: split
# --- live.stateless.*, live.include.*: declared with their cases in conformance/sections/s4_7_include.py
from ...sections.s4_7_include import INCLUDE_UNKNOWN as INCLUDE_UNKNOWN  # noqa: E402
from ...sections.s4_7_include import STATELESS_ENCRYPTED_ABSENT as STATELESS_ENCRYPTED_ABSENT  # noqa: E402
from ...sections.s4_7_include import STATELESS_ENCRYPTED_ACCEPTED as STATELESS_ENCRYPTED_ACCEPTED  # noqa: E402
from ...sections.s4_7_include import STATELESS_ENCRYPTED_PRESENT as STATELESS_ENCRYPTED_PRESENT  # noqa: E402
from ...sections.s4_7_include import STATELESS_ENCRYPTED_TAMPERED as STATELESS_ENCRYPTED_TAMPERED  # noqa: E402
from ...sections.s4_7_include import STATELESS_HISTORY_ITEMS as STATELESS_HISTORY_ITEMS  # noqa: E402

# --- live.ws.*: WebSocket mode (docs/websocket.md) ------------------------------------------------
WS_UPGRADE = register(
    "live.ws.upgrade",
    MUST,
    "§8.1 [OAPI] ResponsesClientEvent",
    "`GET /v1/responses` upgrades to a WebSocket (the base URL's scheme mapped http→ws, https→wss)",
    profile="websocket",
)
WS_RESPONSES = register(
    "live.ws.responses",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate",
    "`response.create` over the socket is answered with a completed response: several in sequence "
    "on one connection, and on two lanes at once",
    profile="websocket",
)
WS_PREVIOUS_ACROSS_LANES = register(
    "live.ws.previous_across_lanes",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id",
    "a response on one lane continues (`previous_response_id`) a response created on another",
    profile="websocket",
)
WS_BACKGROUND_REJECTED = register(
    "live.ws.background_rejected",
    MUST,
    "§8.3 [OAPI] ResponsesClientEventResponseCreate",
    "`background: true` over the socket is refused with an `error` event of status 400",
    profile="websocket",
)
WS_AFTER_ERROR = register(
    "live.ws.after_error",
    MUST,
    "§8.3 (no source: the project's decision)",
    "after refusing a malformed client event with an `error` event, the server either keeps "
    "serving the connection or closes it with a close frame (it is never left silent)",
    profile="websocket",
)
WS_SAME_AS_SSE = register(
    "live.ws.same_as_sse",
    MUST,
    "§8.6 [OAPI] ResponsesWebSocketStreamEvent",
    "the same request over the socket and over SSE gives shape-equal responses (fields, status, "
    "output item and part types)",
    profile="websocket",
)
# §8.7 connection state: declared with their examples in conformance/sections/s8_7_connection_state.py
from ...sections.s8_7_connection_state import WS_CONNECTION_LOCAL as WS_CONNECTION_LOCAL  # noqa: E402
from ...sections.s8_7_connection_state import (  # noqa: E402
    WS_EVICTED_AFTER_FAILURE as WS_EVICTED_AFTER_FAILURE,
)
from ...sections.s8_7_connection_state import WS_GENERATE_FALSE as WS_GENERATE_FALSE  # noqa: E402
from ...sections.s8_7_connection_state import (  # noqa: E402
    WS_STORE_FALSE_CONTINUED as WS_STORE_FALSE_CONTINUED,
)

WS_STEERING = register(
    "live.ws.steering",
    MUST,
    "§8.5 [SDK] response_steer_event",
    "`response.steer` on a running response is answered: accepted and committed (an automatic "
    "successor continuing it, or `response.steer.pending` when it waits for tool output), or "
    "refused as completed only when it had finished",
    profile="websocket:steering",
)
