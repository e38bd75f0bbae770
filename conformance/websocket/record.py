"""Recorded WebSocket sessions: the file format ``responses-conformance check`` reads.

JSON Lines, one frame per line, in the order the frames crossed the wire::

    {"dir": "client", "data": {"type": "response.create", "stream_id": "a", ...}}
    {"dir": "server", "data": "{\\"type\\":\\"response.created\\", ...}"}
    {"dir": "server", "binary": "AAEC"}

``dir`` is ``client`` or ``server``. ``data`` is a text frame: its exact text as a string, or the
JSON object it held (both are judged alike). ``binary`` is a binary frame, base64. Other keys (a
timestamp ``t``, say) are ignored. docs/websocket.md has the format and its rules.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any

from ..catalog.registry import Violation
from ..errors import ConformanceError
from ..sse.framing import parse_json
from .session import SessionValidator

__all__ = ["SessionFormatError", "is_session_record", "judge_session", "parse_session"]


class SessionFormatError(ConformanceError, ValueError):
    """The bytes are not a recorded session (the CLI treats the file as unreadable)."""


def is_session_record(first: object) -> bool:
    """Whether a JSON Lines file's first object is a session frame, not a stream event."""
    return (
        isinstance(first, dict)
        and first.get("dir") in ("client", "server")
        and ("data" in first or "binary" in first)
    )


def parse_session(data: bytes) -> list[tuple[str, object]]:
    """``(dir, frame)`` pairs; a frame is a ``str``, a ``dict`` or ``bytes`` (binary)."""
    frames: list[tuple[str, object]] = []
    for lineno, raw in enumerate(data.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            record = parse_json(line)
        except ValueError as exc:
            raise SessionFormatError(f"line {lineno} is not JSON: {exc}") from None
        if not isinstance(record, dict) or record.get("dir") not in ("client", "server"):
            raise SessionFormatError(f'line {lineno}: not a {{"dir": "client"|"server", …}} frame')
        frame: Any
        if "binary" in record:
            try:
                frame = base64.b64decode(str(record["binary"]), validate=True)
            except (binascii.Error, ValueError):
                raise SessionFormatError(f"line {lineno}: `binary` is not base64") from None
        elif "data" in record:
            frame = record["data"]
        else:
            raise SessionFormatError(f"line {lineno}: neither `data` nor `binary`")
        frames.append((record["dir"], frame))
    return frames


def judge_session(
    frames: Iterable[tuple[str, object]],
    *,
    profiles: Iterable[str] = ("core",),
    coverage: bool = False,
) -> tuple[SessionValidator, list[Violation]]:
    """Run a whole recorded session through a :class:`SessionValidator`."""
    session = SessionValidator(profiles=profiles, coverage=coverage)
    for direction, frame in frames:
        if direction == "client":
            session.client(frame)
        else:
            session.server(frame)
    session.close()
    return session, session.all_violations()
