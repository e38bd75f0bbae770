"""The checks of one Response object (streamed terminal or non-stream body) and of error bodies:
``response.*``, ``usage.*`` (usage accounting), ``error.*``. docs/spec.md §3, §4."""

from __future__ import annotations

from ..sections import s3_2_usage as _usage
from ..sections import s4_4_errors as _errors

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

# --- usage.* (docs/spec.md §3.2 usage accounting) ----------------------------------------------------
# Declared with their rule and examples in their section module (conformance.sections).
USAGE_PRESENT = _usage.USAGE_PRESENT
USAGE_DETAILS = _usage.USAGE_DETAILS
USAGE_INTEGERS = _usage.USAGE_INTEGERS
USAGE_TOTAL = _usage.USAGE_TOTAL
USAGE_CACHED_LE_INPUT = _usage.USAGE_CACHED_LE_INPUT
USAGE_REASONING_LE_OUTPUT = _usage.USAGE_REASONING_LE_OUTPUT
USAGE_OUTPUT_NONZERO = _usage.USAGE_OUTPUT_NONZERO
USAGE_MAX_OUTPUT = _usage.USAGE_MAX_OUTPUT

# --- error.* (docs/spec.md §4.4 Errors) ---------------------------------------------------------------
# Declared with their rule and examples in their section module (conformance.sections).
ERROR_SHAPE = _errors.ERROR_SHAPE
ERROR_CODE_TYPE = _errors.ERROR_CODE_TYPE
