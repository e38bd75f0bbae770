"""The session validator's bookkeeping: what one WebSocket connection owes and holds — the requests
waiting for an answer, the lanes and the responses opened on them —
and the small helpers that read events for them (:mod:`.session` keeps them up to date)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..validator import StreamValidator

__all__ = ["STREAM_ID", "LaneResponse"]

# [OAPI] ResponsesClientEventResponseCreate.stream_id
STREAM_ID = re.compile(r"[A-Za-z0-9_.-]{1,256}")
TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
STEER_EVENTS = frozenset(
    {"response.steer.accepted", "response.steer.pending", "response.steer.failed"}
)


@dataclass(slots=True)
class Request:
    """One client event that owes an answer."""

    index: int  # its frame number
    lane: str | None
    body: Mapping[str, Any]
    rejectable: str = ""  # why WebSocket mode must refuse it ("" = a valid create)


@dataclass(slots=True)
class LaneResponse:
    """One response of a lane and the stream validator that judges it."""

    lane: str | None
    request: Request | None  # None: an automatic successor after steering
    validator: StreamValidator
    response_id: Any = None
    first_frame: int = 0
    items: list[Any] = field(default_factory=list)  # its output items' ids (a folding session)

    @property
    def finished(self) -> bool:
        return self.validator.terminal_type is not None


@dataclass(slots=True)
class Lane:
    pending: deque[Request] = field(default_factory=deque)
    current: LaneResponse | None = None  # the latest response opened on the lane
    interleaved: bool = False  # two of its responses ran at once (ws.lane.serial)
    opened: bool = False  # the client sent a request on it


def response_id(event: Mapping[str, Any]) -> Any:
    response = event.get("response")
    return response.get("id") if isinstance(response, Mapping) else None
