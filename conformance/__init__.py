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

The package, by layer, read top-down (a layer imports only the layers below it):

- front doors: :mod:`conformance.cli` — ``responses-conformance`` (``check``, ``list``,
  ``explain``; it wires in the others); :mod:`conformance.offline` — recorded files and
  cassettes (``check``), ``explain``; :mod:`conformance.suite` — the live suite (``run``,
  ``report``, the pytest plugin); :mod:`conformance.proxy` — the validating reverse proxy
  (``proxy``); :mod:`conformance.examples` — a failing and a passing input per check (``explain``);
  :mod:`conformance.cli_options` — the flags the family's CLIs share;
- transports: :mod:`conformance.sse` — the SSE decoder and the framing layer in front of the
  validator; :mod:`conformance.websocket` — WebSocket mode sessions, lanes of responses;
- stream validation: :mod:`conformance.validator` — :class:`StreamValidator`, split by concern,
  with the per-tool rules and what each event exercises;
- body rules: :mod:`conformance.bodies` — a Response, an error body, the state objects, and the
  one dispatch from a body's kind to its rules;
- schema and catalogue: :mod:`conformance.schema` — the OpenAPI schemas (relaxations, lowering,
  predicates, typed decoders, interpreter) and the custom-tool grammar reader
  (:mod:`~conformance.schema.grammar`, LLGuidance's dialect); :mod:`conformance.catalog` — the check registry
  (:mod:`~conformance.catalog.registry`), every check as a named constant, the live checks
  (:mod:`~conformance.catalog.live`), and how a value is rendered in a report
  (:mod:`~conformance.catalog.render`);
- beside the layers: :mod:`conformance.exit_codes` — 0 / 1 / 2 for every sub-command;
  :mod:`conformance.errors` — the one exception tree.

The judge shares no logic with the servers it judges: nothing here imports ``mock_server`` or
``reference_impl`` (tests/conformance/test_import_contract.py).
"""

from __future__ import annotations

# The offline catalogue first, then the live one: REGISTRY keeps the order of declaration.
from . import catalog
from .catalog import live as catalog_live

# isort: split
from .bodies.objects import validate_error_body, validate_response_body
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
