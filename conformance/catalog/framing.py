"""The framing and single-event checks: ``sse.*`` (the byte stream's SSE framing) and
``event.*`` (one event on its own, its schema included). docs/spec.md §1, §1a."""

from __future__ import annotations

# Declared with their rules and examples in their section modules (conformance.sections): the
# event.* checks, one event on its own (docs/spec.md §1, §1.3, §1a).
from ..sections.s1_1_json_numbers import JSON_NUMBER as JSON_NUMBER
from ..sections.s1_3_unknown_types import EVENT_TYPE_KNOWN as EVENT_TYPE_KNOWN
from ..sections.s1_3_unknown_types import EVENT_TYPE_NONSTANDARD as EVENT_TYPE_NONSTANDARD
from ..sections.s1_stream_events import EVENT_TYPE_PRESENT as EVENT_TYPE_PRESENT
from ..sections.s1a_schemas import EVENT_SCHEMA_ENUM as EVENT_SCHEMA_ENUM
from ..sections.s1a_schemas import EVENT_SCHEMA_REQUIRED as EVENT_SCHEMA_REQUIRED
from ..sections.s1a_schemas import EVENT_SCHEMA_TYPE as EVENT_SCHEMA_TYPE
from ..sections.s1a_schemas import EVENT_SCHEMA_VALUE as EVENT_SCHEMA_VALUE
from .registry import Level, register

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
    "no event, body or WebSocket frame nests arrays and objects more than 64 levels deep (the "
    "judge's limit, the servers' too: docs/limits.md; OpenAI's deepest recorded event nests 11)",
)
