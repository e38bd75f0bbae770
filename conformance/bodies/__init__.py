"""Body rules: one whole JSON object the API answers with, judged on its own (sans I/O).

- :mod:`.objects` — a Response object (streamed terminal or non-stream body) and an error body;
  :class:`~.objects.ResponseChecker` is shared with the stream validator's terminal event;
- :mod:`.state` — the state objects: compaction results, conversations, deleted conversations,
  item lists;
- :mod:`.kinds` — a body's kind to its rules: :func:`~.kinds.judge_body`, the one entry for every body kind
  that the offline check, the live suite, the proxy and the examples call.
"""

from __future__ import annotations

from .kinds import BodyKind, body_kind, judge_body, validate_body
from .objects import validate_error_body, validate_response_body
from .state import StateKind, state_kind, validate_state_body

__all__ = [
    "BodyKind",
    "StateKind",
    "body_kind",
    "judge_body",
    "state_kind",
    "validate_body",
    "validate_error_body",
    "validate_response_body",
    "validate_state_body",
]
