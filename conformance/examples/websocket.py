"""Examples of the WebSocket session checks (``ws.*``): a recorded session (``session`` samples:
``(dir, frame)`` pairs, as ``responses-conformance check`` reads them, docs/websocket.md) that
breaks the rule, and its near miss. Every response in them is :func:`.build.text_stream` under a
fresh response id, so only the session rule differs.

The live ``live.ws.*`` checks' misbehaving servers are in ``tests/suite/broken_ws_servers.py``."""

from __future__ import annotations

from collections.abc import Callable

from .. import catalog as C
from .live import live
from .registry import Sample, example
from .sessions import Frames
from .sessions import create as _create
from .sessions import error as _error
from .sessions import events as _events
from .sessions import serve as _serve
from .sessions import with_metadata as _with_metadata

__all__ = ["CASES"]

# ID -> (failing session, passing near miss)
CASES: dict[str, tuple[Callable[[], Frames], Callable[[], Frames]]] = {
    C.WS_EVENT_ROUTED.id: (
        lambda: [_create(), *_serve(_events("resp_a")), *_serve(_events("resp_b"))],
        lambda: [_create(), _create(), *_serve(_events("resp_a")), *_serve(_events("resp_b"))],
    ),
    C.WS_STREAM_ID_ECHOED.id: (
        lambda: [
            _create("a"),
            *_serve(_events("resp_a", "a")[:5]),
            *_serve(_events("resp_a")[5:6]),
            *_serve(_events("resp_a", "a")[6:]),
        ],
        lambda: [_create("a"), *_serve(_events("resp_a", "a"))],
    ),
    C.WS_LANE_SERIAL.id: (
        lambda: [
            _create("a"),
            _create("a"),
            *_serve(_events("resp_a", "a")[:3]),
            *_serve(_events("resp_b", "a")),
            *_serve(_events("resp_a", "a")[3:]),
        ],
        lambda: [
            _create("a"),
            _create("b"),
            *_serve(_events("resp_a", "a")[:3]),
            *_serve(_events("resp_b", "b")),
            *_serve(_events("resp_a", "a")[3:]),
        ],
    ),
    C.WS_LANE_ORDER.id: (
        lambda: [
            _create("a", metadata={"turn": "1"}),
            _create("a", metadata={"turn": "2"}),
            *_serve(_with_metadata(_events("resp_b", "a"), {"turn": "2"})),
            *_serve(_with_metadata(_events("resp_a", "a"), {"turn": "1"})),
        ],
        lambda: [
            _create("a", metadata={"turn": "1"}),
            _create("a", metadata={"turn": "2"}),
            *_serve(_with_metadata(_events("resp_a", "a"), {"turn": "1"})),
            *_serve(_with_metadata(_events("resp_b", "a"), {"turn": "2"})),
        ],
    ),
    C.WS_REQUEST_ANSWERED.id: (
        lambda: [_create(), _create("b"), *_serve(_events("resp_a"))],
        lambda: [
            _create(),
            _create("b"),
            *_serve(_events("resp_a")),
            _error("previous_response_not_found", "b"),
        ],
    ),
}


for _id, (_fail, _pass) in CASES.items():
    example(_id, Sample("session", _fail), Sample("session", _pass))

for _id, _server, _note in (
    ("live.ws.upgrade", "ws_refuses_upgrade", "a server that refuses the WebSocket upgrade"),
    (
        "live.ws.responses",
        "ws_answers_drop_metadata",
        "a server whose WebSocket responses echo `metadata: {}`, so no answer names its turn",
    ),
    (
        "live.ws.previous_across_lanes",
        "ws_previous_id_dropped",
        "a server whose WebSocket responses carry `previous_response_id: null`",
    ),
    (
        "live.ws.background_rejected",
        "ws_background_accepted",
        "a server that ignores `background: true` over the socket and answers a response",
    ),
    (
        "live.ws.after_error",
        "ws_silent_after_error",
        "a server that goes silent (no frame, no close) after its first `error` event",
    ),
    (
        "live.ws.same_as_sse",
        "ws_extra_field",
        "a server whose responses over the socket carry a field the SSE ones do not",
    ),
    (
        "live.ws.steering",
        "ws_steer_dropped",
        "a server that accepts steering input and drops it: no successor continues the steered "
        "response",
    ),
):
    live(_id, _server, _note)
