"""The checks of one Response object (streamed terminal or non-stream body) and of error bodies:
``response.*``, ``usage.*`` (usage accounting), ``error.*``. docs/spec.md §3, §4."""

from __future__ import annotations

# response.reasoning.encrypted_content_included (docs/spec.md §4.7) is declared with its rule and
# examples in its section module (conformance.sections).
from ..sections.s4_7_include import ENCRYPTED_INCLUDED as ENCRYPTED_INCLUDED
from .registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

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
