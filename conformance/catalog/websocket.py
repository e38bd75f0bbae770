"""WebSocket mode sessions: ``ws.*`` (docs/spec.md §8, docs/websocket.md)."""

from __future__ import annotations

from ..sections.s8_1_frames import WS_FRAME_JSON as WS_FRAME_JSON
from ..sections.s8_1_frames import WS_FRAME_TEXT as WS_FRAME_TEXT
from ..sections.s8_2_lanes import WS_EVENT_ROUTED as WS_EVENT_ROUTED
from ..sections.s8_2_lanes import WS_LANE_ORDER as WS_LANE_ORDER
from ..sections.s8_2_lanes import WS_LANE_SERIAL as WS_LANE_SERIAL
from ..sections.s8_2_lanes import WS_REQUEST_ANSWERED as WS_REQUEST_ANSWERED
from ..sections.s8_2_lanes import WS_STREAM_ID_ECHOED as WS_STREAM_ID_ECHOED
from ..sections.s8_3_refusals import WS_REQUEST_REJECTED as WS_REQUEST_REJECTED
from ..sections.s8_4_ws_errors import WS_ERROR_CODE as WS_ERROR_CODE
from ..sections.s8_4_ws_errors import WS_ERROR_SHAPE as WS_ERROR_SHAPE
from ..sections.s8_4_ws_errors import WS_ERROR_STATUS as WS_ERROR_STATUS
from ..sections.s8_5_steering import WS_STEER_KNOWN as WS_STEER_KNOWN
from ..sections.s8_5_steering import WS_STEER_LIVE as WS_STEER_LIVE
from ..sections.s8_5_steering import (
    WS_STEER_PENDING_AFTER_TERMINAL as WS_STEER_PENDING_AFTER_TERMINAL,
)
from ..sections.s8_5_steering import WS_STEER_SHAPE as WS_STEER_SHAPE
