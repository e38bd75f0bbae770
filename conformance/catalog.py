"""Every check the judge knows, by stable ID. IDs never change meaning; retired IDs are not reused.

Groups: ``sse.*`` framing of the byte stream, ``event.*`` one event on its own (schema included),
``stream.*`` the invariants across a stream, ``response.*`` one Response object (streamed terminal or
non-stream body), ``usage.*`` usage accounting, ``error.*`` error bodies.
"""

from __future__ import annotations

from .checks import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- sse.*: framing (docs/spec.md §1 "Framing") -------------------------------------------------------
SSE_EVENT_NAME_MATCHES = register(
    "sse.event_name.matches_type",
    MUST,
    "§1.1 [OR]",
    "the SSE `event:` name equals the JSON body's `type`",
)
SSE_EVENT_NAME_PRESENT = register(
    "sse.event_name.present",
    INFO,
    "§2.14, §1.1 [OR]",
    "each event carries an `event:` line (the SDK does not need it)",
)
SSE_EVENT_NAME_REQUIRED = register(
    "sse.event_name.required",
    MUST,
    "§1.1 [OR]",
    "Open Responses: each event carries an `event:` line equal to its `type`",
    profile="openresponses",
)
SSE_ID_ABSENT = register(
    "sse.id.absent",
    SHOULD,
    "§1.1 [OR]",
    "Open Responses: servers should not send SSE `id:` fields",
    profile="openresponses",
)
SSE_DATA_JSON = register(
    "sse.data.json",
    MUST,
    "§1.1",
    "every `data:` payload (but the `[DONE]` sentinel) is one JSON object",
)
SSE_DONE_REQUIRED = register(
    "sse.done.required",
    MUST,
    "§1.1 [OR], decision",
    "Open Responses: the stream ends with `data: [DONE]`",
    profile="openresponses",
)
SSE_AFTER_DONE = register(
    "sse.done.last",
    MUST,
    "§2.2",
    "nothing follows the `[DONE]` sentinel",
)
SSE_LIMIT_EVENT_SIZE = register(
    "sse.limit.event_size",
    MUST,
    "§5",
    "no single event exceeds the judge's size limit",
)
SSE_LIMIT_EVENT_COUNT = register(
    "sse.limit.event_count",
    MUST,
    "§5",
    "the stream does not exceed the judge's event-count limit",
)
SSE_LIMIT_DEPTH = register(
    "sse.limit.depth",
    MUST,
    "§5",
    "no event or body nests JSON deeper than the judge follows (about 900 levels; Python's "
    "`json` and the openai SDK fail on such JSON too)",
)

# --- event.*: one event on its own (docs/spec.md §1, §1a) ---------------------------------------------
EVENT_TYPE_PRESENT = register(
    "event.type.present",
    MUST,
    "§1",
    "every event is a JSON object with a string `type`",
)
EVENT_TYPE_KNOWN = register(
    "event.type.known",
    INFO,
    "§1.3",
    "event types outside OpenAI's documented union are reported (OpenAI itself sends some)",
)
EVENT_TYPE_NONSTANDARD = register(
    "event.type.nonstandard",
    SHOULD,
    "§1.3, decision; KB24",
    "event names known to be wrong (e.g. `response.reasoning_part.added`) are not used",
)
EVENT_SCHEMA_REQUIRED = register(
    "event.schema.required",
    MUST,
    "§1a [OAPI] ResponseStreamEvent",
    "every field OpenAI's schema requires is present (with §1a's relaxations)",
)
EVENT_SCHEMA_TYPE = register(
    "event.schema.type",
    MUST,
    "§1a [OAPI] ResponseStreamEvent",
    "every field has the type OpenAI's schema gives it",
)
EVENT_SCHEMA_VALUE = register(
    "event.schema.value",
    MUST,
    "§1a, §7.5 [OAPI] ResponseStreamEvent",
    "constant and discriminator fields have the value OpenAI's schema gives them",
)
EVENT_SCHEMA_ENUM = register(
    "event.schema.enum",
    INFO,
    "§1a (enumerations are open)",
    "enumerated fields use a value OpenAI's schema lists",
)

# --- stream.sequence.* (docs/spec.md §2.1) -------------------------------------------------------------
SEQ_PRESENT = register(
    "stream.sequence.present",
    MUST,
    "§1, §2.1, §7.1 [REC]; KB17",
    "every event carries an integer `sequence_number`",
)
SEQ_START = register(
    "stream.sequence.start",
    MUST,
    "§2.1, §2.12 [REC]",
    "the first event is numbered 0 (N+1 on a stream resumed after N)",
)
SEQ_CONTIGUOUS = register(
    "stream.sequence.contiguous",
    MUST,
    "§2.1 [REC]; KB13",
    "`sequence_number` rises by exactly 1 per event, with no gap or repeat",
)

# --- stream.lifecycle.* (docs/spec.md §2.2, §2.3) -----------------------------------------------------
LIFECYCLE_CREATED_FIRST = register(
    "stream.lifecycle.created_first",
    MUST,
    "§2.2 [REC][SDK]",
    "the first event is `response.created`",
)
LIFECYCLE_IN_PROGRESS = register(
    "stream.lifecycle.in_progress_second",
    MUST,
    "§2.2 [REC]",
    "`response.in_progress` follows `response.created` (a background stream may put `response.queued` between)",
)
LIFECYCLE_UNIQUE = register(
    "stream.lifecycle.unique",
    MUST,
    "§2.2, §2.12, §7.6",
    "`response.created`, `response.queued` and `response.in_progress` each appear at most once, in that order",
)
LIFECYCLE_TERMINAL_PRESENT = register(
    "stream.lifecycle.terminal_present",
    MUST,
    "§2.2 [SDK]",
    "the stream ends with exactly one terminal event (`response.completed`, `.incomplete` or `.failed`)",
)
LIFECYCLE_AFTER_TERMINAL = register(
    "stream.lifecycle.after_terminal",
    MUST,
    "§2.2",
    "no event follows the terminal event",
)
RESPONSE_ID_STABLE = register(
    "stream.response.id_stable",
    MUST,
    "§2.3 [SDK]",
    "every lifecycle event carries the same `response.id`",
)
RESPONSE_CREATED_AT_STABLE = register(
    "stream.response.created_at_stable",
    MUST,
    "§2.3 [REC]",
    "every lifecycle event carries the same `response.created_at`",
)
RESPONSE_INTERIM_STATE = register(
    "stream.response.interim_state",
    MUST,
    "§2.3 [REC]",
    "before the terminal event the response has status `in_progress`/`queued`, `output: []` and `usage: null`",
)
RESPONSE_TERMINAL_STATUS = register(
    "stream.response.terminal_status",
    MUST,
    "§2.2, §3.1",
    "the terminal event's `response.status` matches the event (`completed`, `incomplete`, `failed`)",
)
ERROR_FOLLOWED_BY_FAILED = register(
    "stream.error.followed_by_failed",
    MUST,
    "§1.2, decision",
    "an `error` event is followed by exactly one `response.failed`",
)

# --- stream.item.* (docs/spec.md §2.4–§2.10) ----------------------------------------------------------
ITEM_ADDED_BEFORE_USE = register(
    "stream.item.added_before_use",
    MUST,
    "§2.4 [SDK]",
    "an item is opened by `response.output_item.added` before any event names it",
)
ITEM_ADDED_ONCE = register(
    "stream.item.added_once",
    MUST,
    "§2.4",
    "no output item is added twice (by `output_index` or by `id`)",
)
OUTPUT_INDEX_CONTIGUOUS = register(
    "stream.output_index.contiguous",
    MUST,
    "§2.5 [REC]",
    "`output_index` runs 0, 1, 2, … in the order items are added",
)
ITEM_INTERLEAVE = register(
    "stream.item.no_interleave",
    SHOULD,
    "§2.5",
    "items do not interleave: an item's events end before the next item is added",
)
ITEM_ID_UNIQUE = register(
    "stream.item.id_unique",
    MUST,
    "§2.7 [REC]",
    "item ids are unique within a response",
)
ITEM_ID_PREFIX = register(
    "stream.item.id_prefix",
    INFO,
    "§2.14",
    "item ids carry OpenAI's prefix for their type (`msg_`, `rs_`, `fc_`, …)",
)
ITEM_DONE_MATCHES_ADDED = register(
    "stream.item.done_matches_added",
    MUST,
    "§2.7",
    "`output_item.done` carries the same item `id` and `type` as its `output_item.added`",
)
ITEM_ID_MATCHES = register(
    "stream.item.item_id_matches",
    MUST,
    "§2.7",
    "every inner event's `item_id` equals the id of the item open at its `output_index`",
)
ITEM_ADDED_STATE = register(
    "stream.item.added_state",
    MUST,
    "§2.6, §7.4 [REC][SDK]",
    'an item opens empty: message `content: []`, reasoning `summary: []`, function call `arguments: ""` with `call_id` and `name` set, status `in_progress` (or `incomplete`, kept to its `.done`, for an item cut before it began)',
)
ITEM_DONE_ONCE = register(
    "stream.item.done_once",
    MUST,
    "§2.4, §2.6",
    "an item is closed by `output_item.done` once, and nothing names it afterwards",
)
ITEM_CLOSED_BEFORE_TERMINAL = register(
    "stream.item.closed_before_terminal",
    MUST,
    "§2.9 [SDK]",
    "on `response.completed` and `response.incomplete` every added item is done",
)
ITEM_INCOMPLETE_LAST = register(
    "stream.item.incomplete_last",
    MUST,
    "§2.10 [OR]",
    "an item that ends `incomplete` is the last item, and the response is `incomplete`",
)
ITEM_CONTENT_MATCHES = register(
    "stream.item.content_matches",
    MUST,
    "§2.8",
    "the item in `output_item.done` holds the parts, text and arguments its events streamed",
)

# --- stream.part.* (docs/spec.md §2.6, §2.11) ---------------------------------------------------------
PART_ADDED_BEFORE_USE = register(
    "stream.part.added_before_use",
    MUST,
    "§2.6 [SDK]",
    "a content part is opened by `content_part.added` before deltas or `.done` events name it",
)
PART_INDEX_CONTIGUOUS = register(
    "stream.part.content_index",
    MUST,
    "§2.6",
    "`content_index` runs 0, 1, … within an item, and every event of a part carries the part's index",
)
PART_ORDER = register(
    "stream.part.order",
    MUST,
    "§2.6",
    "inside a part: `content_part.added` → deltas → `<kind>.done` → `content_part.done` "
    "(refined by the `stream.part.order.*` checks)",
)
PART_CLOSED = register(
    "stream.part.closed",
    MUST,
    "§2.6",
    "every content part is closed by `content_part.done` before the next part or `output_item.done`",
)
PART_TYPE_FITS_ITEM = register(
    "stream.part.type_fits_item",
    MUST,
    "§2.11; KB04",
    "a part's type fits its item: `output_text`/`refusal` in a message, `reasoning_text` in reasoning",
)
PART_KIND_MATCHES = register(
    "stream.part.kind_matches",
    MUST,
    "§2.6",
    "text events go to `output_text` parts, refusal events to `refusal` parts, reasoning text events to `reasoning_text` parts",
)
SUMMARY_PART_ADDED = register(
    "stream.summary.part_added",
    MUST,
    "§2.6 [REC]",
    "reasoning summary text is framed by `reasoning_summary_part.added` / `.done`",
)
SUMMARY_INDEX = register(
    "stream.summary.index",
    MUST,
    "§2.6",
    "`summary_index` runs 0, 1, … within a reasoning item",
)
SUMMARY_ORDER = register(
    "stream.summary.order",
    MUST,
    "§2.6",
    "inside a summary part: `part.added` → text deltas → `text.done` → `part.done`, closed before "
    "the item (refined by the `stream.summary.order.*` checks)",
)
ARGS_ORDER = register(
    "stream.arguments.order",
    MUST,
    "§2.6",
    "argument/input deltas come before their `.done`, which comes once, before `output_item.done`",
)
ARGS_ADDED_FIRST = register(
    "stream.arguments.added_first",
    MUST,
    "§2.6, §1.6 [SDK]",
    "a value whose family has an `.added` event (`shell_call_command.added`) is opened by it, once, before its deltas and `.done`",
)
DELTA_TYPE_FITS_ITEM = register(
    "stream.delta.type_fits_item",
    MUST,
    "§2.6",
    "an event's kind fits the item it names (argument deltas for function calls, text for messages, …)",
)

# --- stream.text.* consistency (docs/spec.md §2.8, §2.9) ----------------------------------------------
DELTAS_EQUAL_DONE = register(
    "stream.text.deltas_equal_done",
    MUST,
    "§2.8",
    "the deltas of a text, refusal, arguments, reasoning or summary value concatenate to its `.done` value",
)
DONE_EQUALS_PART = register(
    "stream.text.done_equals_part",
    MUST,
    "§2.8",
    "the `.done` value equals the value in `content_part.done` / `reasoning_summary_part.done`",
)
ANNOTATIONS_MATCH = register(
    "stream.text.annotations_match",
    MUST,
    "§2.8, §1.5 [SDK]",
    "the annotations streamed by `output_text.annotation.added`, numbered 0, 1, … by `annotation_index`, are the part's `annotations` in `content_part.done` and `output_item.done`",
)
OUTPUT_EQUALS_ITEMS = register(
    "stream.output.equals_items",
    MUST,
    "§2.9 [SDK]",
    "the terminal response's `output` equals the `output_item.done` items, in order (opaque fields exempt)",
)

# --- response.* (docs/spec.md §3) ---------------------------------------------------------------------
RESPONSE_SCHEMA_REQUIRED = register(
    "response.schema.required",
    MUST,
    "§3.1 [OAPI] Response",
    "a Response object carries every field OpenAI's schema requires (with §1a's relaxations)",
)
RESPONSE_SCHEMA_TYPE = register(
    "response.schema.type",
    MUST,
    "§3.1 [OAPI] Response",
    "every field of a Response object has the type OpenAI's schema gives it",
)
RESPONSE_SCHEMA_VALUE = register(
    "response.schema.value",
    MUST,
    "§3.1, §7.5 [OAPI] Response",
    "constant and discriminator fields of a Response object have the values OpenAI's schema gives",
)
RESPONSE_SCHEMA_ENUM = register(
    "response.schema.enum",
    INFO,
    "§1a (enumerations are open)",
    "enumerated fields of a Response object use a value OpenAI's schema lists",
)
RESPONSE_INCOMPLETE_DETAILS = register(
    "response.incomplete_details",
    MUST,
    "§3.1",
    "`status: incomplete` comes with `incomplete_details.reason`; other statuses have `incomplete_details: null`",
)
RESPONSE_FAILED_ERROR = register(
    "response.failed.error",
    MUST,
    "§1.2, §3.1",
    "`status: failed` comes with `error: {code, message}`; other statuses have `error: null`",
)
RESPONSE_OPENRESPONSES_FIELDS = register(
    "response.openresponses.required_fields",
    MUST,
    "§3.4 [OR] ResponseResource",
    "Open Responses: the Response carries every field `ResponseResource` requires",
    profile="openresponses",
)

# --- usage.* (docs/spec.md §3 Decision: usage accounting) ---------------------------------------------
USAGE_PRESENT = register(
    "usage.present",
    MUST,
    "§3.2",
    "`usage` is present on a `completed` or `incomplete` response",
)
USAGE_DETAILS = register(
    "usage.details_present",
    MUST,
    "§3.2",
    "`usage` has `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`",
)
USAGE_INTEGERS = register(
    "usage.integers",
    MUST,
    "§3.2",
    "every usage count is an integer ≥ 0",
)
USAGE_TOTAL = register(
    "usage.total",
    MUST,
    "§3.2",
    "`total_tokens = input_tokens + output_tokens`",
)
USAGE_CACHED_LE_INPUT = register(
    "usage.cached_le_input",
    MUST,
    "§3.2",
    "`cached_tokens ≤ input_tokens`",
)
USAGE_REASONING_LE_OUTPUT = register(
    "usage.reasoning_le_output",
    MUST,
    "§3.2",
    "`reasoning_tokens ≤ output_tokens`",
)
USAGE_OUTPUT_NONZERO = register(
    "usage.output_nonzero",
    MUST,
    "§3.2, §7.2",
    "`output_tokens ≥ 1` when the output shows generated tokens: message text (but in a "
    "content-filter stop), reasoning (but in a `max_output_tokens` cut-off), a call the model "
    "issued (but an unmetered batch of parallel function calls)",
)
USAGE_MAX_OUTPUT = register(
    "usage.max_output_tokens",
    MUST,
    "§3.2, §7.3",
    "`output_tokens ≤ max_output_tokens` when it is set, for one generation (`reasoning.mode` "
    "`standard` or absent; `pro` runs several)",
)

# --- error.* (docs/spec.md §4 Errors) -----------------------------------------------------------------
ERROR_SHAPE = register(
    "error.shape",
    MUST,
    "§4.4 [OAPI] ErrorResponse",
    'an error body is `{"error": {"message", "type", "param", "code"}}` (`param`, `code` may be null)',
)
ERROR_CODE_TYPE = register(
    "error.code.type",
    MUST,
    "§4.4; KB21",
    "`error.code` is a string or null, never the HTTP status number",
)

# --- judge-truth (issue 12 item 5): rules clients enforce -------------------------------------
# Each cites the client code that breaks without it; docs/spec.md §7 has the evidence.
ITEM_STATUS_COMPLETED = register(
    "response.item.status_completed",
    MUST,
    "§3.1, §7.7 [OR][SDK]",
    "in a `completed` response every message, function call and custom tool call is `completed` "
    "(a call a program issued may stay `in_progress`; hosted-tool items may keep their own status)",
)
LOGPROBS_NONPOSITIVE = register(
    "response.logprobs.nonpositive",
    MUST,
    "§1, §7.8 [OAPI]",
    "every `logprob` (of a token and of each alternative in `top_logprobs`) is ≤ 0",
)
LOGPROBS_TOP_COUNT = register(
    "response.logprobs.top_count",
    MUST,
    "§3.3, §7.8 [OAPI]",
    "a token lists at most `top_logprobs` alternatives (the number the response echoes)",
)

# --- ws.*: WebSocket mode sessions (docs/spec.md §8, docs/websocket.md) ---------------------------
# One connection carries many responses: each is judged by the stream checks above (the same IDs as
# over SSE); these are the rules of the session around them. Sources: [OAPI] ResponsesClientEvent,
# ResponsesServerEvent, ResponseWsError; [SDK] openai 3.x types/responses/response_steer_*.py and
# lib/responses_websocket/README.md.
WS_FRAME_TEXT = register(
    "ws.frame.text",
    MUST,
    "§8, §8.1 [OAPI] ResponsesServerEvent",
    "every server frame is a text frame (a JSON event); no binary frames",
    profile="websocket",
)
WS_FRAME_JSON = register(
    "ws.frame.json",
    MUST,
    "§8.1 [OAPI] ResponsesServerEvent",
    "every server text frame is one JSON object with a string `type`",
    profile="websocket",
)
WS_EVENT_ROUTED = register(
    "ws.event.routed",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id",
    "every server event belongs to a request the client sent on its lane (or is a connection-scoped "
    "`error`); none names a lane the client never opened",
    profile="websocket",
)
WS_STREAM_ID_ECHOED = register(
    "ws.stream_id.echoed",
    MUST,
    "§8.2 [OAPI] ResponsesServerEvent.stream_id",
    "every event of a response created with a `stream_id` carries that `stream_id`",
    profile="websocket",
)
WS_LANE_SERIAL = register(
    "ws.lane.serial",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id (FIFO)",
    "one lane runs one response at a time: no `response.created` on a lane before its previous "
    "response's terminal event",
    profile="websocket",
)
WS_LANE_ORDER = register(
    "ws.lane.order",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id (FIFO)",
    "a lane's requests are answered in the order they were sent",
    profile="websocket",
)
WS_REQUEST_ANSWERED = register(
    "ws.request.answered",
    MUST,
    "§8.2",
    "every `response.create` is answered, by a response or an `error` event, before the session ends",
    profile="websocket",
)
WS_REQUEST_REJECTED = register(
    "ws.request.rejected",
    MUST,
    "§8.3 [OAPI] ResponsesClientEventResponseCreate",
    "a client event WebSocket mode does not accept (not JSON, unknown `type`, `background: true`, a "
    "`stream_id` outside ^[A-Za-z0-9_.-]{1,256}$) is answered with an `error` event, not a response",
    profile="websocket",
)
WS_ERROR_SHAPE = register(
    "ws.error.shape",
    MUST,
    "§8.4 [OAPI] ResponseWsError, ErrorPayload",
    "an `error` event is `{type: error, error: {type, code, message, param}, status?, "
    "sequence_number?, stream_id?}` (`code`, `param` may be null; `status` an HTTP status)",
    profile="websocket",
)
WS_STEER_SHAPE = register(
    "ws.steer.shape",
    MUST,
    "§8.5 [SDK] response_steer_{accepted,pending,failed}_event",
    "`response.steer.accepted` / `.pending` / `.failed` have the fields the SDK's types require",
    profile="websocket:steering",
)
WS_STEER_KNOWN = register(
    "ws.steer.known",
    MUST,
    "§8.5 [SDK] response_steer_event",
    "a steering event answers a `response.steer` the client sent for that `previous_response_id`",
    profile="websocket:steering",
)
WS_STEER_LIVE = register(
    "ws.steer.live",
    MUST,
    "§8.5 [SDK] response_steer_failed_event (response_not_found, response_already_completed)",
    "steering is accepted only for a response of this connection that had not finished when the "
    "client steered it",
    profile="websocket:steering",
)
WS_STEER_PENDING_AFTER_TERMINAL = register(
    "ws.steer.pending_after_terminal",
    MUST,
    "§8.5 [SDK] response_steer_pending_event",
    "`response.steer.pending` follows its target's `response.completed`, for a steer it accepted",
    profile="websocket:steering",
)
# --- per-tool stream rules (issue 15; conformance/tool_rules.py) --------------------------------
HOSTED_PROGRESS_ORDER = register(
    "stream.hosted.progress_order",
    MUST,
    "§1.7, §2.8 [OAPI] ResponseWebSearchCall*/FileSearchCall*/CodeInterpreterCall*/ImageGenCall*/"
    "MCPCall*/MCPListTools* events; [REC] openai-*-tool streams",
    "a hosted tool call's progress events run forward (in_progress → searching / interpreting / "
    "generating / partial_image → completed or failed), none after the one that ends it; stages "
    "may be missing or repeated",
)
HOSTED_FAILED_STATUS = register(
    "stream.hosted.failed_status",
    MUST,
    "§1.7 [OAPI] ResponseMCPCallFailedEvent, ResponseMCPListToolsFailedEvent, MCPToolCall.status",
    "a `*.failed` progress event is followed by the item's `status: failed`; a `*.completed` one "
    "by a status other than `failed`",
)
IMAGE_PARTIAL_INDEX = register(
    "stream.image.partial_image_index",
    MUST,
    "§1.7 [OAPI] ResponseImageGenCallPartialImageEvent.partial_image_index; [REC] "
    "openai-image-generation-tool.1",
    "an image generation call's `partial_image` events carry `partial_image_index` 0, 1, 2, … in "
    "order",
)
ANNOTATION_OFFSETS = register(
    "stream.annotation.offsets",
    MUST,
    "§1.7, §1.5 [OAPI] UrlCitationBody (start_index, end_index), FileCitationBody.index; [REC] "
    "openai-web-search-tool.1",
    "a citation's offsets lie inside the text it annotates: 0 <= start_index <= end_index <= "
    "len(text) (url / container file citations), 0 <= index <= len(text) (file citations, paths)",
)

# The refinements of stream.part.order and stream.summary.order (one requirement per ID), declared
# in their own module after the checks they refine, and re-exported here.
from . import catalog_refinements as _refined  # noqa: E402

PART_AFTER_PART_DONE = _refined.PART_AFTER_PART_DONE
PART_DELTA_AFTER_DONE = _refined.PART_DELTA_AFTER_DONE
PART_DONE_BEFORE_PART_DONE = _refined.PART_DONE_BEFORE_PART_DONE
PART_DONE_ONCE = _refined.PART_DONE_ONCE
PART_OPENS_EMPTY = _refined.PART_OPENS_EMPTY
PART_TYPE_STABLE = _refined.PART_TYPE_STABLE
SUMMARY_AFTER_PART_DONE = _refined.SUMMARY_AFTER_PART_DONE
SUMMARY_CLOSED_BEFORE_ITEM = _refined.SUMMARY_CLOSED_BEFORE_ITEM
SUMMARY_CLOSED_BEFORE_NEXT = _refined.SUMMARY_CLOSED_BEFORE_NEXT
SUMMARY_DELTA_AFTER_DONE = _refined.SUMMARY_DELTA_AFTER_DONE
SUMMARY_DONE_BEFORE_PART_DONE = _refined.SUMMARY_DONE_BEFORE_PART_DONE
SUMMARY_DONE_ONCE = _refined.SUMMARY_DONE_ONCE
SUMMARY_OPENS_EMPTY = _refined.SUMMARY_OPENS_EMPTY

# --- compaction.*, conversation.*, item_list.*: state objects (§4.1, §4.5, §4.6) -------------
# The bodies of POST /v1/responses/compact, the Conversations API and the item lists
# (`GET /v1/responses/{id}/input_items`, `GET /v1/conversations/{id}/items`), judged offline by
# `check` and live by the suite (conformance.state_objects).
COMPACTION_SCHEMA_REQUIRED = register(
    "compaction.schema.required",
    MUST,
    "§4.6, §1a [OAPI] CompactResource",
    "a compaction result (`object: response.compaction`) carries every field OpenAI's schema "
    "requires (`id`, `output`, `created_at`, `usage`)",
)
COMPACTION_SCHEMA_TYPE = register(
    "compaction.schema.type",
    MUST,
    "§4.6, §1a [OAPI] CompactResource",
    "every field of a compaction result has the type OpenAI's schema gives it",
)
COMPACTION_SCHEMA_VALUE = register(
    "compaction.schema.value",
    MUST,
    "§4.6, §1a [OAPI] CompactResource",
    "constant and discriminator fields of a compaction result have the values OpenAI's schema gives",
)
COMPACTION_SCHEMA_ENUM = register(
    "compaction.schema.enum",
    INFO,
    "§1a (enum values are open)",
    "enumerated fields of a compaction result use a value OpenAI's schema lists",
)
COMPACTION_ITEM_PRESENT = register(
    "compaction.item.present",
    MUST,
    "§4.6 [OAPI] CompactResource, CompactionBody",
    "a compaction result's `output` holds a `compaction` item (the opaque state that replaces the "
    "history it summarises)",
)
COMPACTION_ITEM_CONTENT = register(
    "compaction.item.encrypted_content",
    MUST,
    "§4.6 [OAPI] CompactionBody [REC] openai-compaction.1",
    "every `compaction` item carries a non-empty `encrypted_content` string (a client sends it "
    "back as input; an empty blob cannot restore anything)",
)
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
ITEM_CALL_IDENTITY = register(
    "stream.item.call_identity_stable",
    MUST,
    "§2.7, §7.9 [SDK]",
    "`output_item.done` carries the `call_id` and `name` its `output_item.added` gave the item "
    "(clients key the call by them from `added` on)",
)
LOGPROBS_DELTAS_EQUAL_DONE = register(
    "stream.logprobs.deltas_equal_done",
    MUST,
    "§2.8, §7.8 [REC]",
    "the `logprobs` of a part's `output_text.delta` events, concatenated, equal the `logprobs` of "
    "its `output_text.done` when that event carries any",
)
EVENT_TYPE_OPENRESPONSES = register(
    "event.type.openresponses",
    MUST,
    "§1.3, §7.10 [OR]",
    "Open Responses: every event type is one the Open Responses spec defines, or an extension "
    "prefixed with its implementor's slug (`acme:trace_event`)",
    profile="openresponses",
)
