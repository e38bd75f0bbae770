"""WebSocket mode (``GET /v1/responses`` upgraded): the session validator and recorded sessions.

The stream checks of :mod:`conformance.validator` judge each response of a session; the ``ws.*``
checks judge the session around them (docs/websocket.md); the rules of §8.1 to §8.5
(frames, lanes, refusals, errors, steering) are in their section modules (conformance.sections).

- :mod:`.session` — :class:`SessionValidator`, the sans-I/O judge of one connection;
- :mod:`.lanes` — its bookkeeping: requests owed an answer, lanes, responses
  (:class:`LaneResponse`);
- :mod:`.record` — recorded sessions (JSON Lines of frames): :func:`parse_session`,
  :func:`judge_session`.
"""

from __future__ import annotations

from .lanes import STREAM_ID, LaneResponse
from .record import SessionFormatError, is_session_record, judge_session, parse_session
from .session import SessionValidator

__all__ = [
    "STREAM_ID",
    "LaneResponse",
    "SessionFormatError",
    "SessionValidator",
    "is_session_record",
    "judge_session",
    "parse_session",
]
