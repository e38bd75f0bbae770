"""The judge: decides, check by check, whether Responses API traffic obeys the wire protocol.

Public API (everything in ``__all__``; the rest is internal and may change):

- :class:`StreamValidator` — sans-I/O validator of one event stream (``feed`` / ``close``);
- :class:`SSEStreamValidator` — the same over raw SSE bytes, with the framing checks;
- :func:`validate_response_body`, :func:`validate_error_body` — non-stream objects;
- :func:`check_file`, :func:`check_bytes` — one recorded file, format detected from its content;
  :class:`FileVerdict`, :class:`UnreadableFile` — their results;
- :data:`REGISTRY` — every check by ID, offline and live (``live.*``), registered on import;
  :class:`Check`, :class:`Violation`, :class:`Level`, :func:`failing`;
  :mod:`catalog` / :mod:`catalog_live` — the checks as named constants;
- :data:`PROFILES` — the profile names a validator accepts;
- :data:`SCHEMAS` — the compiled OpenAPI schemas; :func:`warm_up` — compile them eagerly.

The package, by part:

- :mod:`conformance.sse` — the SSE decoder: bytes in any chunking to whole events;
- :mod:`conformance.sse.framing` — the framing layer: SSE bytes to verdicts, in front of the validator;
- :mod:`conformance.validator` — stream validation, split by concern behind
  :class:`StreamValidator`;
- :mod:`conformance.schema` — the OpenAPI schemas: relaxations, lowering, predicates, typed
  decoders, interpreter;
- :mod:`conformance.bodies.objects` — the rules of one Response object and of error bodies;
- :mod:`conformance.catalog.registry`, :mod:`conformance.catalog`, :mod:`conformance.catalog.live` — the
  check registry and its catalogues;
- :mod:`conformance.offline.recorded` — recorded files; :mod:`conformance.cli` — ``responses-conformance``;
- :mod:`conformance.suite` — the live suite (``responses-conformance run``).

The judge shares no logic with the servers it judges (DESIGN.md): nothing here imports
``mock_server`` or ``reference_impl`` (tests/conformance/test_import_contract.py).
"""

from __future__ import annotations

from . import catalog
from .bodies.objects import validate_error_body, validate_response_body
from .catalog import live as catalog_live
from .catalog.registry import REGISTRY, Check, Level, Violation, failing
from .offline.recorded import FileVerdict, UnreadableFile, check_bytes, check_file
from .schema import SCHEMAS
from .sse.framing import SSEStreamValidator
from .validator import PROFILES, StreamValidator


def warm_up() -> None:
    """Compile the schemas now rather than on the first event (≈0.3 s of CPU): call it at start-up
    in a process whose event loop must not stall later, such as a load-test worker."""
    SCHEMAS.event_predicate("response.created")


__all__ = [
    "PROFILES",
    "REGISTRY",
    "SCHEMAS",
    "Check",
    "FileVerdict",
    "Level",
    "SSEStreamValidator",
    "StreamValidator",
    "UnreadableFile",
    "Violation",
    "catalog",
    "catalog_live",
    "check_bytes",
    "check_file",
    "failing",
    "validate_error_body",
    "validate_response_body",
    "warm_up",
]
