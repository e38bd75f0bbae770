"""Every exception the judge raises has one base, :class:`ConformanceError`; each keeps the builtin
base it had (``ValueError``, ``RuntimeError``), so an ``except ValueError`` still catches it. The
classes are defined where they are raised; the tree (tests/conformance/test_errors.py holds it true):

* ConformanceError
  + CaseControl — a live case's control flow, not a failure of the run
    - CaseAborted (conformance.suite.probe) — the case cannot go on; the cause is recorded
    - Retry (conformance.suite.probe) — a nondeterministic step missed; run the case again
    - Skipped (conformance.suite.probe) — the case could not exercise its checks here
    - NotJudged (conformance.suite.probe) — an answer that is no verdict (refused key, an HTML page)
  + what came over the wire
    - SSELimitError (conformance.sse.decoder) — a stream broke a bound of the decoder
    - JSONDepthError, ValueError (conformance.sse.framing) — JSON nested deeper than parsed
    - UndecodableBody (conformance.suite.coding) — a Content-Encoding not asked for, or broken
    - FramingError, ValueError (conformance.proxy.http1) — bytes that are not HTTP/1.1
    - TargetHung (conformance.suite.http) — timeouts in a row; nothing more is sent
    - WsTimeout (conformance.suite.ws_ends) — no WebSocket frame within the deadline
    - WsClosed (conformance.suite.ws_ends) — the server closed the WebSocket
  + what the run was given (exit 2)
    - UnreadableFile (conformance.offline.recorded) — no verdict can be drawn from a file
    - SessionFormatError, ValueError (conformance.websocket.record) — not a recorded session
    - NotAnIndex, ValueError (conformance.suite.reporting.index) — not a JSON index
    - BaseURLError, ValueError (conformance.cli_options) — not a usable base URL
    - TargetError, ValueError (conformance.suite.targets) — a misconfigured target
    - ProxyError, ValueError (conformance.proxy.cli) — the proxy cannot start
    - EmbeddedMockError, RuntimeError (conformance.suite.embedded) — the mock did not start
  + the judge's own declarations
    - DuplicateCheckError, ValueError (conformance.catalog.registry) — one ID declared twice

The groups marked ``+`` other than :class:`CaseControl` are headings, not classes.
"""

from __future__ import annotations

__all__ = ["CaseControl", "ConformanceError"]


class ConformanceError(Exception):
    """The base of every exception the judge raises."""


class CaseControl(ConformanceError):
    """Raised inside a live case to end it early (abort, retry, skip); the suite's runner turns
    each into the case's outcome."""
