"""The SSE transport: a ``text/event-stream`` body to verdicts, in two layers.

- :mod:`.decoder` — bytes in any chunking to whole events (WHATWG HTML §9.2.6, bounded); it knows
  no JSON and no rules;
- :mod:`.framing` — :class:`~.framing.SSEStreamValidator`: the framing rules of docs/spec.md §1
  (event name, one JSON object per ``data``, ``[DONE]``), each payload parsed and handed to the
  stream validator; :func:`~.framing.parse_json`, the judge's one JSON parser.
"""

from __future__ import annotations

from .decoder import Record, SSEDecoder, SSEEvent, SSELimitError, decode_sse
from .framing import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_EVENTS,
    MAX_JSON_DEPTH,
    JSONDepthError,
    SSEStreamValidator,
    json_too_deep,
    parse_json,
)

__all__ = [
    "DEFAULT_MAX_EVENTS",
    "DEFAULT_MAX_EVENT_BYTES",
    "MAX_JSON_DEPTH",
    "JSONDepthError",
    "Record",
    "SSEDecoder",
    "SSEEvent",
    "SSELimitError",
    "SSEStreamValidator",
    "decode_sse",
    "json_too_deep",
    "parse_json",
]
