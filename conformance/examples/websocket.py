"""Examples of the live WebSocket checks (``live.ws.*``): their misbehaving servers are in
``tests/suite/broken_ws_servers.py``. The session checks' (``ws.*``) examples are declared in
their section modules (conformance.sections, §8), built with :mod:`.sessions`."""

from __future__ import annotations

from .live import live

for _id, _server, _note in (
    (
        "live.ws.same_as_sse",
        "ws_extra_field",
        "a server whose responses over the socket carry a field the SSE ones do not",
    ),
):
    live(_id, _server, _note)
