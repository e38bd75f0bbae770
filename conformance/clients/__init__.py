"""``responses-conformance clients``: the real client programs run against a target (docs/cli.md).

Part of the judge: it drives and observes, it serves nothing, and imports nothing of
``mock_server`` or ``reference_impl`` (the embedded mock is started as a process, as ``run``
does). The clients run as subprocesses, so a client that crashes is evidence, not our crash.

- :mod:`.catalog` — the clients and their flows, each with a request budget;
- :mod:`.install` — each client installed on first use into a cache, pinned (or the newest);
- :mod:`.relay` — the loopback relay in front of the target that counts a flow's requests;
- :mod:`.flows` — each flow's command lines, and its outcome read from what the client left;
- :mod:`.runner` — preflight, then every flow under its deadline and budget;
- :mod:`.results`, :mod:`.report` — per client and flow, index.json / junit.xml / report.html;
- :mod:`.captured_flows` — the catalogue of what the clients sent (``captured/<client>/<flow>.json``,
  docs/client-catalogue.md), which the client profiles (``run --profile client:codex``) replay;
- ``scripts/python_flows.py``, ``node/js/flows.mjs`` — the flows as each SDK's user writes them;
  ``node/codex``, ``node/js`` — the pinned Node packages (package.json + package-lock.json).
"""

from __future__ import annotations

from .catalog import CLIENTS, ClientSpec, FlowSpec

__all__ = ["CLIENTS", "ClientSpec", "FlowSpec"]
