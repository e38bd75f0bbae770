"""WebSocket mode sessions: ``ws.*`` (docs/spec.md §8, docs/websocket.md)."""

from __future__ import annotations

from ..sections.s8_1_frames import WS_FRAME_JSON as WS_FRAME_JSON
from ..sections.s8_1_frames import WS_FRAME_TEXT as WS_FRAME_TEXT
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
from .registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- ws.*: WebSocket mode sessions (docs/spec.md §8, docs/websocket.md) ---------------------------
# One connection carries many responses: each is judged by the stream checks above (the same IDs as
# over SSE); these are the rules of the session around them. Sources: [OAPI] ResponsesClientEvent,
# ResponsesServerEvent, ResponseWsError; [SDK] openai 3.x types/responses/response_steer_*.py and
# lib/responses_websocket/README.md.
WS_EVENT_ROUTED = register(
    "ws.event.routed",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id",
    "every server event belongs to a request the client sent on its lane (or is a connection-scoped "
    "`error`); none names a lane the client never opened",
    profile="websocket",
)
WS_STREAM_ID_ECHOED = register(
    "ws.stream_id.echoed",
    MUST,
    "§8.2 [OAPI] ResponsesServerEvent.stream_id",
    "every event of a response created with a `stream_id` carries that `stream_id`",
    profile="websocket",
)
WS_LANE_SERIAL = register(
    "ws.lane.serial",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id (FIFO)",
    "one lane runs one response at a time: no `response.created` on a lane before its previous "
    "response's terminal event",
    profile="websocket",
)
WS_LANE_ORDER = register(
    "ws.lane.order",
    MUST,
    "§8.2 [OAPI] ResponsesClientEventResponseCreate.stream_id (FIFO)",
    "a lane's requests are answered in the order they were sent",
    profile="websocket",
)
WS_REQUEST_ANSWERED = register(
    "ws.request.answered",
    MUST,
    "§8.2",
    "every `response.create` is answered, by a response or an `error` event, before the session ends",
    profile="websocket",
)
