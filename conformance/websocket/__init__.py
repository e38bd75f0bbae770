"""WebSocket mode (``GET /v1/responses`` upgraded): the session validator and recorded sessions.

The stream checks of :mod:`conformance.validator` judge each response of a session; the ``ws.*``
checks judge the session around them (docs/websocket.md).
"""

from __future__ import annotations

from .record import SessionFormatError, is_session_record, judge_session, parse_session
from .session import STREAM_ID, LaneResponse, SessionValidator

__all__ = [
    "STREAM_ID",
    "LaneResponse",
    "SessionFormatError",
    "SessionValidator",
    "is_session_record",
    "judge_session",
    "parse_session",
]
