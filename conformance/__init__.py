"""The judge: decides, check by check, whether Responses API traffic obeys the wire protocol.

Public API:

- :class:`StreamValidator` — sans-I/O validator of one event stream (``feed`` / ``close``);
- :class:`SSEStreamValidator` — the same over raw SSE bytes, with the framing checks;
- :func:`validate_response_body`, :func:`validate_error_body` — non-stream objects;
- :func:`check_file` — one recorded file, format detected from its content;
- :data:`REGISTRY` — every check by ID; :class:`Violation`, :class:`Level`;
- :func:`warm_up` — compile the schemas eagerly.

The judge shares no logic with the servers it judges (DESIGN.md): nothing here imports
``mock_server`` or ``reference_impl``.
"""

from __future__ import annotations

from . import catalog
from .checks import REGISTRY, Check, Level, Violation, failing
from .objects import validate_error_body, validate_response_body
from .recorded import FileVerdict, UnreadableFile, check_bytes, check_file
from .schema import SCHEMAS
from .stream import SSEStreamValidator
from .validator import PROFILES, StreamValidator


def warm_up() -> None:
    """Compile the schemas now rather than on the first event (≈0.3 s of CPU): call it at start-up
    in a process whose event loop must not stall later, such as a load-test worker."""
    SCHEMAS.event_predicate("response.created")


__all__ = [
    "PROFILES",
    "REGISTRY",
    "Check",
    "FileVerdict",
    "Level",
    "SSEStreamValidator",
    "StreamValidator",
    "UnreadableFile",
    "Violation",
    "catalog",
    "check_bytes",
    "check_file",
    "failing",
    "validate_error_body",
    "validate_response_body",
    "warm_up",
]
