"""WebSocket mode sessions: ``ws.*`` (docs/spec.md §8, docs/websocket.md)."""

from __future__ import annotations

from ..sections.s8_1_frames import WS_FRAME_JSON as WS_FRAME_JSON
from ..sections.s8_1_frames import WS_FRAME_TEXT as WS_FRAME_TEXT
from ..sections.s8_4_ws_errors import WS_ERROR_CODE as WS_ERROR_CODE
from ..sections.s8_4_ws_errors import WS_ERROR_SHAPE as WS_ERROR_SHAPE
from ..sections.s8_4_ws_errors import WS_ERROR_STATUS as WS_ERROR_STATUS
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
WS_REQUEST_REJECTED = register(
    "ws.request.rejected",
    MUST,
    "§8.3 [OAPI] ResponsesClientEventResponseCreate",
    "a client event WebSocket mode does not accept (not JSON, unknown `type`, `background: true`, a "
    "`stream_id` outside ^[A-Za-z0-9_.-]{1,256}$) is answered with an `error` event, not a response",
    profile="websocket",
)
WS_STEER_SHAPE = register(
    "ws.steer.shape",
    MUST,
    "§8.5 [SDK] response_steer_{accepted,pending,failed}_event",
    "`response.steer.accepted` / `.pending` / `.failed` have the fields the SDK's types require",
    profile="websocket:steering",
)
WS_STEER_KNOWN = register(
    "ws.steer.known",
    MUST,
    "§8.5 [SDK] response_steer_event",
    "a steering event answers a `response.steer` the client sent for that `previous_response_id`",
    profile="websocket:steering",
)
WS_STEER_LIVE = register(
    "ws.steer.live",
    MUST,
    "§8.5 [SDK] response_steer_failed_event (response_not_found, response_already_completed)",
    "steering is accepted only for a response of this connection that had not finished when the "
    "client steered it",
    profile="websocket:steering",
)
WS_STEER_PENDING_AFTER_TERMINAL = register(
    "ws.steer.pending_after_terminal",
    MUST,
    "§8.5 [SDK] response_steer_pending_event",
    "`response.steer.pending` follows its target's `response.completed`, for a steer it accepted",
    profile="websocket:steering",
)
