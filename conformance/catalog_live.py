"""The checks only a live run can make: across requests, endpoints and state (SPEC §3–§4).

They join the offline judge's checks in the one :data:`~conformance.checks.REGISTRY` (the
``live.*`` group), so reports, ``--strict`` and expected failures treat both alike. The suite's
cases (:mod:`conformance.suite.cases`) are tagged with the IDs they exercise.
"""

from __future__ import annotations

from .checks import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- live.transport.*, live.case.*: the run itself -----------------------------------------------
DEADLINE = register(
    "live.transport.deadline",
    MUST,
    "issue 4 Build 3; SPEC §2.2",
    "every request is answered, and every stream ends, within the suite's per-request timeout",
)
CASE_COMPLETED = register(
    "live.case.completed",
    MUST,
    "issue 4 Build 1",
    "the target's answers let a case run to its end (an answer the suite cannot interpret fails here)",
)

# --- live.http.*, live.create.*: creating responses (SPEC §3, §4) --------------------------------
HTTP_OK = register(
    "live.http.status_ok",
    MUST,
    "SPEC §4 [OAPI]",
    "a well-formed request is answered 200 with a JSON body (an SSE body when `stream: true`)",
)
STREAM_CONTENT_TYPE = register(
    "live.stream.content_type",
    MUST,
    "SPEC §1 Framing",
    "a streamed response is sent as `Content-Type: text/event-stream`",
)
INPUT_FORMS = register(
    "live.create.input_forms",
    MUST,
    "SPEC §3 Request [OAPI] CreateResponse",
    "string input, message lists (user, system and developer roles; `input_text` parts) and "
    "`instructions` are all accepted",
)
CREATE_ANSWER = register(
    "live.create.answer",
    MUST,
    "SPEC §3, §4",
    "a plain request without limits completes (`status: completed`) with an assistant message "
    "holding `output_text`",
)
RESPONSE_ECHO = register(
    "live.response.echo",
    MUST,
    "SPEC §3 [OAPI]",
    "the Response echoes the request's `instructions`, `metadata` and `max_output_tokens`",
)
STREAM_EQUALS_NONSTREAM = register(
    "live.stream.equals_nonstream",
    MUST,
    "SPEC §3; issue 4 Build 1",
    "the same request streamed and not gives Responses of one shape: same fields, status and "
    "output item types",
)
USAGE_STREAM_EQUALS_NONSTREAM = register(
    "live.usage.stream_equals_nonstream",
    MUST,
    "SPEC §3 usage accounting (across requests)",
    "the same request has the same `input_tokens` streamed or not",
)
MAX_OUTPUT_INCOMPLETE = register(
    "live.max_output_tokens.incomplete",
    MUST,
    "SPEC §3, §4; KB10",
    "a response cut by `max_output_tokens` ends `status: incomplete` with "
    "`incomplete_details.reason: max_output_tokens` (a stream with `response.incomplete`)",
)

# --- live.errors.* (SPEC §4 Errors) --------------------------------------------------------------
BAD_INPUT_4XX = register(
    "live.errors.bad_input_4xx",
    MUST,
    "SPEC §4 Errors",
    "bad input (malformed JSON, wrong types, an invalid `tool_choice`) gets a 4xx in OpenAI's "
    "error shape, never 2xx or 5xx",
)
PARAM_NAMED = register(
    "live.errors.param_named",
    SHOULD,
    "SPEC §4 Errors",
    "a 400 for one bad field names that field in `error.param`",
)
NOT_FOUND_404 = register(
    "live.errors.not_found_404",
    MUST,
    "SPEC §4",
    "an unknown response id gets 404 on GET, DELETE, cancel and input_items",
)

# --- live.store.*, live.input_items.* (SPEC §4) --------------------------------------------------
RETRIEVE_EQUALS = register(
    "live.store.retrieve_equals",
    MUST,
    "SPEC §4",
    "GET /v1/responses/{id} returns the Response the create call returned (streamed or not)",
    profile="stateful",
)
USAGE_RETRIEVE_EQUALS_STREAM = register(
    "live.usage.retrieve_equals_stream",
    MUST,
    "SPEC §3 usage accounting (across requests)",
    "a retrieved response carries the usage its stream ended with",
    profile="stateful",
)
STORE_FALSE = register(
    "live.store.false_not_retrievable",
    MUST,
    "SPEC §3 Request (store), §4; KB26",
    "a `store: false` response cannot be retrieved (404)",
    profile="stateful",
)
DELETE = register(
    "live.store.delete",
    MUST,
    "SPEC §4",
    'DELETE returns `{id, object: "response", deleted: true}`; afterwards GET and DELETE get 404',
    profile="stateful",
)
INPUT_ITEMS_LIST = register(
    "live.input_items.list",
    MUST,
    "SPEC §4 [OAPI] ResponseItemList",
    "input_items is a `ResponseItemList` (`object: list`, `data`, `first_id`, `last_id`, "
    "`has_more`) holding the request's input items",
    profile="stateful",
)
INPUT_ITEMS_PAGING = register(
    "live.input_items.paging",
    MUST,
    "SPEC §4",
    "input_items honours `limit` (with `has_more`), `order` (default `desc`) and `after`",
    profile="stateful",
)

# --- live.background.* (SPEC §2.13, §4 [BG]) ------------------------------------------------------
BACKGROUND_LIFECYCLE = register(
    "live.background.lifecycle",
    MUST,
    "SPEC §4 Background [BG]",
    "a `background: true` response is returned `queued` or `in_progress`, and polling reaches a "
    "terminal status without going back",
    profile="stateful",
)
BACKGROUND_CANCEL = register(
    "live.background.cancel",
    MUST,
    "SPEC §2.13, §4 [BG]",
    "cancelling a running background response returns it, and it ends `cancelled`",
    profile="stateful",
)
CANCEL_IDEMPOTENT = register(
    "live.background.cancel_idempotent",
    MUST,
    "SPEC §4 [BG]; KB20",
    "cancelling a finished (or already cancelled) background response returns its final object, "
    "unchanged, with 200",
    profile="stateful",
)
CANCEL_FOREGROUND = register(
    "live.background.cancel_foreground_4xx",
    SHOULD,
    "SPEC §4 [BG]",
    "cancelling a response not created with `background: true` is a 4xx error",
    profile="stateful",
)
RESUME = register(
    "live.background.resume",
    MUST,
    "SPEC §2.12, §4",
    "GET …?stream=true&starting_after=N replays the stream's events after N, the same events",
    profile="stateful",
)

# --- live.previous_response.*, live.input_tokens.* (SPEC §3, §4) ---------------------------------
HISTORY = register(
    "live.previous_response.history",
    MUST,
    "SPEC §3 usage accounting, §4; KB19",
    "a `previous_response_id` turn counts the prior turns' input and output in `input_tokens`",
    profile="stateful",
)
RECALL = register(
    "live.previous_response.recall",
    MUST,
    "SPEC §4; KB19",
    "a chained turn sees the earlier turns' content (the model can repeat what it was told)",
    profile="stateful",
)
TOOL_ROUND_TRIP = register(
    "live.previous_response.tool_round_trip",
    MUST,
    "SPEC §4 [OR]; KB19",
    "a `function_call_output` sent with `previous_response_id` of the call is answered",
    profile="stateful",
)
PREVIOUS_ECHO = register(
    "live.previous_response.echo",
    MUST,
    "SPEC §3 [OAPI]",
    "a chained Response echoes its `previous_response_id`",
    profile="stateful",
)
PREVIOUS_UNKNOWN = register(
    "live.previous_response.unknown",
    MUST,
    "SPEC §4",
    "an unknown `previous_response_id` gets 404, or 400 with code `previous_response_not_found`",
    profile="stateful",
)
INPUT_TOKENS_COUNT = register(
    "live.input_tokens.count",
    MUST,
    "SPEC §4",
    'POST /v1/responses/input_tokens (where offered) returns `{object: "response.input_tokens", '
    "input_tokens}` counting the `previous_response_id` history",
    profile="stateful",
)
INPUT_TOKENS_MATCH = register(
    "live.input_tokens.matches_usage",
    SHOULD,
    "SPEC §3 (a server matches its own count)",
    "POST /v1/responses/input_tokens counts what the same request reports as `input_tokens`",
    profile="stateful",
)

# --- live.tools.* -------------------------------------------------------------------------------
TOOLS_REQUIRED = register(
    "live.tools.required",
    MUST,
    "SPEC §3 Request (tool_choice)",
    "`tool_choice: required` gets at least one function call, to a declared tool",
    profile="tools",
)
TOOLS_NAMED = register(
    "live.tools.named",
    MUST,
    "SPEC §3 Request (tool_choice)",
    "`tool_choice: {type: function, name}` gets calls to that function only",
    profile="tools",
)
TOOLS_NONE = register(
    "live.tools.none",
    MUST,
    "SPEC §3 Request (tool_choice)",
    "`tool_choice: none` gets no function call",
    profile="tools",
)
TOOLS_AUTO = register(
    "live.tools.auto",
    MUST,
    "SPEC §3 Request (tool_choice)",
    "`tool_choice: auto` gets a message or calls to declared tools",
    profile="tools",
)
TOOLS_ARGUMENTS = register(
    "live.tools.arguments_valid",
    MUST,
    "SPEC §3; [OAPI] FunctionTool.strict",
    "function call arguments are a JSON object valid for the tool's `parameters` schema",
    profile="tools",
)
TOOLS_PARALLEL = register(
    "live.tools.parallel",
    MUST,
    "SPEC §3 Request (parallel_tool_calls)",
    "parallel calls carry distinct `call_id`s and item ids; `parallel_tool_calls: false` gets at "
    "most one call",
    profile="tools",
)
TOOLS_OUTPUT_ROUND_TRIP = register(
    "live.tools.output_round_trip",
    MUST,
    "SPEC §4; [OAPI] FunctionCallOutput",
    "a request carrying a `function_call` and its `function_call_output` is answered with a message",
    profile="tools",
)

# --- live.reasoning.*, live.usage.reasoning_* ----------------------------------------------------
REASONING_ITEMS = register(
    "live.reasoning.items",
    MUST,
    "SPEC §3; issue 4 Build 1",
    "a reasoning target answers a `reasoning` request with a reasoning item before its message",
    profile="reasoning",
)
REASONING_TOKENS_HARDCODED = register(
    "live.usage.reasoning_tokens_hardcoded",
    SHOULD,
    "SPEC §3 usage accounting; KB25",
    "responses with reasoning content do not all report `reasoning_tokens: 0` (a hard-coded count)",
    profile="reasoning",
)

# --- live.structured.* --------------------------------------------------------------------------
STRUCTURED_JSON_SCHEMA = register(
    "live.structured.json_schema",
    MUST,
    "SPEC §3 Request (text.format)",
    "`text.format: json_schema` (strict) gets output text that is JSON valid for the schema",
    profile="structured",
)
