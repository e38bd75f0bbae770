"""``responses-conformance proxy``: a validating reverse proxy (docs/proxy.md).

A real client talks to the proxy as to its server; the proxy forwards every request to the
upstream unchanged, streams every answer back as it arrives, and judges every stream, body and
WebSocket session with the suite's checks — per exchange a verdict, a console line, and the suite's
reports grouped by request kind.

- :mod:`.kinds` — what a request is (its kind, its resume context), sans I/O;
- :mod:`.judge` — :class:`ExchangeJudge`: one exchange's bytes to a :class:`Verdict`, sans I/O;
- :mod:`.ledger` — :class:`Ledger`: verdicts folded into the suite's results, lines and reports;
- :mod:`.app` — :class:`ProxyApp`: what to do with one request — forward it, judge the answer;
- :mod:`.server` — :class:`ProxyServer`: the listening socket, client connections, the shutdown;
- :mod:`.transport` — :class:`ClientConnection`: one client connection, its requests and deadlines;
- :mod:`.exchange` — :class:`RelayedExchange`: one exchange in flight, the upstream's bytes relayed to
  the client as they arrive and handed to the judge;
- :mod:`.pool` — :class:`UpstreamPool`: keep-alive connections to the upstream;
- :mod:`.http1` — HTTP/1.1 heads and body framings, sans I/O;
- :mod:`.websocket` — WebSocket mode forwarded and judged frame by frame;
- :mod:`.record` — ``--record DIR``: cassettes (:mod:`cassettes`);
- :mod:`.cli` — the sub-command.

Part of the judge: nothing here imports ``mock_server`` or ``reference_impl``.
"""

from __future__ import annotations

from .judge import ExchangeJudge, Verdict
from .kinds import RequestInfo, classify
from .ledger import Ledger

__all__ = ["ExchangeJudge", "Ledger", "RequestInfo", "Verdict", "classify"]
