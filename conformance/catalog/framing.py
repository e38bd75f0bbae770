"""The framing and single-event checks: ``sse.*`` (the byte stream's SSE framing) and
``event.*`` (one event on its own, its schema included). docs/spec.md §1, §1a, §5."""

from __future__ import annotations

# Declared with their rules and examples in their section modules (conformance.sections): the
# sse.* checks, the byte stream's framing (docs/spec.md §1.1) and the judge's own limits (§5),
# and the event.* checks, one event on its own (§1, §1.3, §1a).
from ..sections.s1_1_framing import SSE_AFTER_DONE as SSE_AFTER_DONE
from ..sections.s1_1_framing import SSE_DATA_JSON as SSE_DATA_JSON
from ..sections.s1_1_framing import SSE_DONE_REQUIRED as SSE_DONE_REQUIRED
from ..sections.s1_1_framing import SSE_EVENT_NAME_MATCHES as SSE_EVENT_NAME_MATCHES
from ..sections.s1_1_framing import SSE_EVENT_NAME_PRESENT as SSE_EVENT_NAME_PRESENT
from ..sections.s1_1_framing import SSE_EVENT_NAME_REQUIRED as SSE_EVENT_NAME_REQUIRED
from ..sections.s1_1_framing import SSE_ID_ABSENT as SSE_ID_ABSENT
from ..sections.s1_1_json_numbers import JSON_NUMBER as JSON_NUMBER
from ..sections.s1_3_unknown_types import EVENT_TYPE_KNOWN as EVENT_TYPE_KNOWN
from ..sections.s1_3_unknown_types import EVENT_TYPE_NONSTANDARD as EVENT_TYPE_NONSTANDARD
from ..sections.s1_stream_events import EVENT_TYPE_PRESENT as EVENT_TYPE_PRESENT
from ..sections.s1a_schemas import EVENT_SCHEMA_ENUM as EVENT_SCHEMA_ENUM
from ..sections.s1a_schemas import EVENT_SCHEMA_REQUIRED as EVENT_SCHEMA_REQUIRED
from ..sections.s1a_schemas import EVENT_SCHEMA_TYPE as EVENT_SCHEMA_TYPE
from ..sections.s1a_schemas import EVENT_SCHEMA_VALUE as EVENT_SCHEMA_VALUE
from ..sections.s5_limits import SSE_LIMIT_DEPTH as SSE_LIMIT_DEPTH
from ..sections.s5_limits import SSE_LIMIT_EVENT_COUNT as SSE_LIMIT_EVENT_COUNT
from ..sections.s5_limits import SSE_LIMIT_EVENT_SIZE as SSE_LIMIT_EVENT_SIZE
