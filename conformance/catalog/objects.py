"""The checks of one Response object (streamed terminal or non-stream body) and of error bodies:
``response.*``, ``usage.*`` (usage accounting), ``error.*``. docs/spec.md §3, §4."""

from __future__ import annotations

from ..sections import s3_1_response as _response
from ..sections import s3_2_usage as _usage
from ..sections import s3_4_openresponses as _openresponses
from ..sections import s4_4_errors as _errors

# response.reasoning.encrypted_content_included (docs/spec.md §4.7) is declared with its rule and
# examples in its section module (conformance.sections).
from ..sections.s4_7_include import ENCRYPTED_INCLUDED as ENCRYPTED_INCLUDED
from .registry import Level

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- response.* (docs/spec.md §3) ---------------------------------------------------------------------
# Declared with their rules and examples in their section module (conformance.sections).
RESPONSE_SCHEMA_REQUIRED = _response.RESPONSE_SCHEMA_REQUIRED
RESPONSE_SCHEMA_TYPE = _response.RESPONSE_SCHEMA_TYPE
RESPONSE_SCHEMA_VALUE = _response.RESPONSE_SCHEMA_VALUE
RESPONSE_SCHEMA_ENUM = _response.RESPONSE_SCHEMA_ENUM
RESPONSE_INCOMPLETE_DETAILS = _response.RESPONSE_INCOMPLETE_DETAILS
RESPONSE_FAILED_ERROR = _response.RESPONSE_FAILED_ERROR
# --- response.openresponses.required_fields (docs/spec.md §3.4): its section module --------------
RESPONSE_OPENRESPONSES_FIELDS = _openresponses.RESPONSE_OPENRESPONSES_FIELDS

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
