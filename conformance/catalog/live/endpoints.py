"""The checks only a live run can make: across requests, endpoints and state (docs/spec.md §3–§4).

They join the offline judge's checks in the one :data:`~conformance.catalog.registry.REGISTRY` (the
``live.*`` group), so reports, ``--strict`` and expected failures treat both alike. The suite's
cases (:mod:`conformance.suite.cases`) are tagged with the IDs they exercise.
"""

from __future__ import annotations

from ..registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- live.transport.*, live.case.*: the run itself -----------------------------------------------
DEADLINE = register(
    "live.transport.deadline",
    MUST,
    "§6.1, §2.2",
    "every request is answered, and every stream ends, within the suite's per-request timeout",
)
CASE_COMPLETED = register(
    "live.case.completed",
    MUST,
    "§6.2",
    "the target's answers let a case run to its end (an answer the suite cannot interpret fails here)",
)

# --- live.http.*, live.create.*: creating responses (docs/spec.md §3, §4) --------------------------------
HTTP_OK = register(
    "live.http.status_ok",
    MUST,
    "§4.4 [OAPI]",
    "a well-formed request is answered 200 with a JSON body (an SSE body when `stream: true`)",
)
STREAM_CONTENT_TYPE = register(
    "live.stream.content_type",
    MUST,
    "§1.1",
    "a streamed response is sent as `Content-Type: text/event-stream`",
)
INPUT_FORMS = register(
    "live.create.input_forms",
    MUST,
    "§3.3 [OAPI] CreateResponse",
    "string input, message lists (user, system and developer roles; `input_text` parts) and "
    "`instructions` are all accepted",
)
CREATE_ANSWER = register(
    "live.create.answer",
    MUST,
    "§6.3",
    "a plain request without limits completes (`status: completed`) with an assistant message "
    "holding `output_text`",
)
RESPONSE_ECHO = register(
    "live.response.echo",
    MUST,
    "§3.3 [OAPI] Response",
    "the Response echoes the request's `instructions`, `metadata` and `max_output_tokens`",
)
STREAM_EQUALS_NONSTREAM = register(
    "live.stream.equals_nonstream",
    MUST,
    "§6.3",
    "the same request streamed and not gives Responses of one shape: same fields, status and "
    "output item types",
)
USAGE_STREAM_EQUALS_NONSTREAM = register(
    "live.usage.stream_equals_nonstream",
    MUST,
    "§3.2 (across requests)",
    "the same request has the same `input_tokens` streamed or not",
)
MAX_OUTPUT_INCOMPLETE = register(
    "live.max_output_tokens.incomplete",
    MUST,
    "§4.4; KB10",
    "a response cut by `max_output_tokens` ends `status: incomplete` with "
    "`incomplete_details.reason: max_output_tokens` (a stream with `response.incomplete`)",
)

# --- live.errors.* (docs/spec.md §4 Errors) --------------------------------------------------------------
BAD_INPUT_4XX = register(
    "live.errors.bad_input_4xx",
    MUST,
    "§4.4",
    "bad input (malformed JSON, wrong types, an invalid `tool_choice`) gets a 4xx in OpenAI's "
    "error shape, never 2xx or 5xx",
)
PARAM_NAMED = register(
    "live.errors.param_named",
    SHOULD,
    "§4.4",
    "a 400 for one bad field names that field in `error.param`",
)
NOT_FOUND_404 = register(
    "live.errors.not_found_404",
    MUST,
    "§4.1",
    "an unknown response id gets 404 on GET, DELETE, cancel and input_items",
)

# --- live.store.*, live.input_items.*: declared with their cases in conformance/sections/s4_1_endpoints.py
from ...sections.s4_1_endpoints import DELETE as DELETE  # noqa: E402
from ...sections.s4_1_endpoints import INPUT_ITEMS_LIST as INPUT_ITEMS_LIST  # noqa: E402
from ...sections.s4_1_endpoints import INPUT_ITEMS_PAGING as INPUT_ITEMS_PAGING  # noqa: E402
from ...sections.s4_1_endpoints import RETRIEVE_EQUALS as RETRIEVE_EQUALS  # noqa: E402
from ...sections.s4_1_endpoints import STORE_FALSE as STORE_FALSE  # noqa: E402
from ...sections.s4_1_endpoints import USAGE_RETRIEVE_EQUALS_STREAM as USAGE_RETRIEVE_EQUALS_STREAM  # noqa: E402

# --- live.background.* (docs/spec.md §2.13, §4 [BG]) ------------------------------------------------------
BACKGROUND_LIFECYCLE = register(
    "live.background.lifecycle",
    MUST,
    "§4.2 [BG]",
    "a `background: true` response is returned `queued` or `in_progress`, and polling reaches a "
    "terminal status without going back",
    profile="stateful",
)
BACKGROUND_CANCEL = register(
    "live.background.cancel",
    MUST,
    "§2.13, §4.2 [BG]",
    "cancelling a running background response returns it, and it ends `cancelled`",
    profile="stateful",
)
CANCEL_IDEMPOTENT = register(
    "live.background.cancel_idempotent",
    MUST,
    "§4.2 [BG]; KB20",
    "cancelling a finished (or already cancelled) background response returns its final object, "
    "unchanged, with 200",
    profile="stateful",
)
CANCEL_FOREGROUND = register(
    "live.background.cancel_foreground_4xx",
    SHOULD,
    "§4.2 [BG]",
    "cancelling a response not created with `background: true` is a 4xx error",
    profile="stateful",
)
RESUME = register(
    "live.background.resume",
    MUST,
    "§2.12, §4.2",
    "GET …?stream=true&starting_after=N replays the stream's events after N, the same events",
    profile="stateful",
)

# --- live.previous_response.*, live.input_tokens.* (docs/spec.md §3, §4) ---------------------------------
HISTORY = register(
    "live.previous_response.history",
    MUST,
    "§3.2, §4.3; KB19",
    "a `previous_response_id` turn counts the prior turns' input and output in `input_tokens`",
    profile="stateful",
)
RECALL = register(
    "live.previous_response.recall",
    MUST,
    "§4.3; KB19",
    "a chained turn sees the earlier turns' content (the model can repeat what it was told)",
    profile="stateful",
)
TOOL_ROUND_TRIP = register(
    "live.previous_response.tool_round_trip",
    MUST,
    "§4.3 [OR]; KB19",
    "a `function_call_output` sent with `previous_response_id` of the call is answered",
    profile="stateful",
)
PREVIOUS_ECHO = register(
    "live.previous_response.echo",
    MUST,
    "§3.3 [OAPI] Response",
    "a chained Response echoes its `previous_response_id`",
    profile="stateful",
)
PREVIOUS_UNKNOWN = register(
    "live.previous_response.unknown",
    MUST,
    "§4.3",
    "an unknown `previous_response_id` gets 404, or 400 with code `previous_response_not_found`",
    profile="stateful",
)
INPUT_TOKENS_COUNT = register(
    "live.input_tokens.count",
    MUST,
    "§4.1",
    'POST /v1/responses/input_tokens (where offered) returns `{object: "response.input_tokens", '
    "input_tokens}` counting the `previous_response_id` history",
    profile="stateful",
)
INPUT_TOKENS_MATCH = register(
    "live.input_tokens.matches_usage",
    SHOULD,
    "§4.1 (a server matches its own count)",
    "POST /v1/responses/input_tokens counts what the same request reports as `input_tokens`",
    profile="stateful",
)

# --- live.tools.* -------------------------------------------------------------------------------
TOOLS_REQUIRED = register(
    "live.tools.required",
    MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: required` gets at least one function call, to a declared tool",
    profile="tools",
)
TOOLS_NAMED = register(
    "live.tools.named",
    MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: {type: function, name}` gets calls to that function only",
    profile="tools",
)
TOOLS_NONE = register(
    "live.tools.none",
    MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: none` gets no function call",
    profile="tools",
)
TOOLS_AUTO = register(
    "live.tools.auto",
    MUST,
    "§3.3 (tool_choice)",
    "`tool_choice: auto` gets a message or calls to declared tools",
    profile="tools",
)
TOOLS_ARGUMENTS = register(
    "live.tools.arguments_valid",
    MUST,
    "§3.3 [OAPI] FunctionTool.strict",
    "function call arguments are a JSON object valid for the tool's `parameters` schema",
    profile="tools",
)
TOOLS_PARALLEL = register(
    "live.tools.parallel",
    MUST,
    "§3.3 (parallel_tool_calls)",
    "parallel calls carry distinct `call_id`s and item ids; `parallel_tool_calls: false` gets at "
    "most one call",
    profile="tools",
)
TOOLS_OUTPUT_ROUND_TRIP = register(
    "live.tools.output_round_trip",
    MUST,
    "§4.3 [OAPI] FunctionCallOutput",
    "a request carrying a `function_call` and its `function_call_output` is answered with a message",
    profile="tools",
)

# --- live.reasoning.*, live.usage.reasoning_* ----------------------------------------------------
REASONING_ITEMS = register(
    "live.reasoning.items",
    MUST,
    "§6.3",
    "a reasoning target answers a `reasoning` request with a reasoning item before its message",
    profile="reasoning",
)
REASONING_TOKENS_HARDCODED = register(
    "live.usage.reasoning_tokens_hardcoded",
    SHOULD,
    "§3.2; KB25",
    "responses with reasoning content do not all report `reasoning_tokens: 0` (a hard-coded count)",
    profile="reasoning",
)

# --- live.structured.* --------------------------------------------------------------------------
STRUCTURED_JSON_SCHEMA = register(
    "live.structured.json_schema",
    MUST,
    "§3.3 (text.format)",
    "`text.format: json_schema` (strict) gets output text that is JSON valid for the schema",
    profile="structured",
)

# --- live.conversation.*, live.compaction.*, live.stateless.*, live.include.* (§4.5–§4.7) --------
CONVERSATION_CRUD = register(
    "live.conversation.crud",
    MUST,
    "§4.5 [OAPI] ConversationResource",
    "a conversation is created with its metadata and items, retrieved as created, and its "
    "metadata updated",
    profile="conversations",
)
CONVERSATION_ECHO = register(
    "live.conversation.echo",
    MUST,
    "§4.5 [OAPI] Response [REC] pydantic-ai cassettes",
    "a response created with `conversation` echoes `conversation: {id}`",
    profile="conversations",
)
CONVERSATION_HISTORY = register(
    "live.conversation.history",
    MUST,
    "§4.5 [OAPI] ConversationParam",
    "a response created with `conversation` sees the conversation's earlier turns (it recalls a "
    "code word an earlier turn gave)",
    profile="conversations",
)
CONVERSATION_ITEMS_APPENDED = register(
    "live.conversation.items_appended",
    MUST,
    "§4.5 [OAPI] ConversationParam",
    "after a turn, the conversation's items are its earlier items, then the turn's input, then "
    "its output, in order",
    profile="conversations",
)
CONVERSATION_ITEMS_PAGING = register(
    "live.conversation.items_paging",
    MUST,
    "§4.5 [OAPI] ConversationItemList",
    "conversation items page with `limit`, `order` and `after`, and `has_more` says whether more "
    "follow",
    profile="conversations",
)
CONVERSATION_DELETE = register(
    "live.conversation.delete",
    MUST,
    "§4.5 [OAPI] DeletedConversationResource",
    "DELETE answers `{id, object: conversation.deleted, deleted: true}`; the conversation is then "
    "gone (404)",
    profile="conversations",
)
CONVERSATION_WITH_PREVIOUS = register(
    "live.conversation.with_previous_response",
    MUST,
    "§4.5 [OAPI] CreateResponse",
    "`conversation` with `previous_response_id` is a 400 `invalid_request_error`",
    profile="conversations",
)
CONVERSATION_UNKNOWN = register(
    "live.conversation.unknown",
    MUST,
    "§4.5, §4.4",
    "an unknown conversation id is a 404 in OpenAI's error shape, on retrieve and on create",
    profile="conversations",
)
COMPACTION_COMPACT = register(
    "live.compaction.compact",
    MUST,
    "§4.6 [OAPI] CompactResource",
    "`POST /responses/compact` with a history answers 200 with a compaction result "
    "(`object: response.compaction`) holding a compaction item",
    profile="compaction",
)
COMPACTION_CONTINUE = register(
    "live.compaction.continue",
    MUST,
    "§4.6 [OAPI] CompactResource",
    "a create whose input is the compaction's output plus a new turn is accepted and sees the "
    "compacted history (it recalls a code word given before the compaction)",
    profile="compaction",
)
COMPACTION_MODEL_REQUIRED = register(
    "live.compaction.model_required",
    MUST,
    "§4.6 [OR] CompactResponseMethodPublicBody (`model` required); llm-comply 0.5.0 "
    "`compact-missing-model`",
    "`POST /responses/compact` without `model` is refused with a 4xx, not compacted with a "
    "default model",
    profile="compaction",
)
OPENRESPONSES_IMAGE_INPUT = register(
    "live.openresponses.image_input",
    MUST,
    "§3.4 [OR] InputImageContentParamAutoParam (`image_url` a data URL); llm-comply 0.5.0 "
    "`image-input`",
    "a create whose user message holds an `input_image` with a base64 data URL is accepted and "
    "answered (200, a completed Response with output)",
    profile="openresponses",
)
STATELESS_ENCRYPTED_PRESENT = register(
    "live.stateless.encrypted_present",
    MUST,
    "§4.7 [OAPI] Includable",
    "with `store: false` and `include: [reasoning.encrypted_content]`, every reasoning item "
    "(streamed and not) carries a non-empty `encrypted_content`",
    profile="stateless-reasoning",
)
STATELESS_ENCRYPTED_ABSENT = register(
    "live.stateless.encrypted_absent",
    SHOULD,
    "§4.7 [OAPI] Includable",
    "without `reasoning.encrypted_content` in `include`, reasoning items carry no "
    "`encrypted_content` (absent or null)",
    profile="stateless-reasoning",
)
STATELESS_ENCRYPTED_ACCEPTED = register(
    "live.stateless.encrypted_accepted",
    MUST,
    "§4.7 [OAPI] ReasoningItem",
    "a reasoning item with the server's `encrypted_content`, sent back as input with "
    "`store: false`, is accepted and the turn sees the history",
    profile="stateless-reasoning",
)
STATELESS_ENCRYPTED_TAMPERED = register(
    "live.stateless.encrypted_tampered",
    MUST,
    "§4.7, §4.4",
    "a reasoning item whose `encrypted_content` was altered is a 400 `invalid_request_error`",
    profile="stateless-reasoning",
)
STATELESS_HISTORY_ITEMS = register(
    "live.stateless.history_items",
    MUST,
    "§4.7 [OAPI] InputItem",
    "a history holding every kind of item an agent sends back (messages of each role, "
    "reasoning, function, custom tool, shell, local shell, apply_patch and computer calls with "
    "their outputs) is accepted as input",
    profile="stateless-reasoning",
)
INCLUDE_UNKNOWN = register(
    "live.include.unknown",
    SHOULD,
    "§4.7 [OAPI] Includable",
    "an `include` value OpenAI does not define is a 400 `invalid_request_error` (not silently "
    "ignored)",
    profile="stateless-reasoning",
)
# --- live.ws.*: WebSocket mode (docs/websocket.md): declared with their cases in the §8 section modules
from ...sections.s8_1_frames import WS_UPGRADE as WS_UPGRADE  # noqa: E402
from ...sections.s8_2_lanes import WS_PREVIOUS_ACROSS_LANES as WS_PREVIOUS_ACROSS_LANES  # noqa: E402
from ...sections.s8_2_lanes import WS_RESPONSES as WS_RESPONSES  # noqa: E402
from ...sections.s8_3_refusals import WS_AFTER_ERROR as WS_AFTER_ERROR  # noqa: E402
from ...sections.s8_3_refusals import WS_BACKGROUND_REJECTED as WS_BACKGROUND_REJECTED  # noqa: E402
from ...sections.s8_5_steering import WS_STEERING as WS_STEERING  # noqa: E402
from ...sections.s8_6_two_transports import WS_SAME_AS_SSE as WS_SAME_AS_SSE  # noqa: E402
from ...sections.s8_7_connection_state import WS_CONNECTION_LOCAL as WS_CONNECTION_LOCAL  # noqa: E402
from ...sections.s8_7_connection_state import (  # noqa: E402
    WS_EVICTED_AFTER_FAILURE as WS_EVICTED_AFTER_FAILURE,
)
from ...sections.s8_7_connection_state import WS_GENERATE_FALSE as WS_GENERATE_FALSE  # noqa: E402
from ...sections.s8_7_connection_state import (  # noqa: E402
    WS_STORE_FALSE_CONTINUED as WS_STORE_FALSE_CONTINUED,
)
