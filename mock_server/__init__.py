"""The deterministic Responses mock server.

Public API (imported lazily, so that loading the pytest plugin costs nothing):

- :class:`MockEngine` (+ :class:`Latency`, :class:`Chunking`) — the deterministic engine;
- :class:`MockServer`, :class:`MockSettings`, :data:`FROZEN_TIME` — the ASGI app and its handle;
- :class:`FaultPlan` — the fault syntax (``429@1,2``, ``error=5``, ``drop=10``, ``slow=1@1``);
- :class:`LoopbackMock`, :class:`InProcessMock` — handles for tests (also pytest fixtures:
  ``responses_mock``, ``responses_mock_session``, ``responses_mock_inprocess``);
- :class:`MockTransport`, :class:`AsyncMockTransport` — socket-free ``httpx2`` transports;
- ``SCENARIOS`` — scenario names; ``responses-mock --help`` — the CLI.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = [
    "FROZEN_TIME",
    "SCENARIOS",
    "AsyncMockTransport",
    "Chunking",
    "FaultPlan",
    "InProcessMock",
    "Latency",
    "LoopbackMock",
    "MockEngine",
    "MockServer",
    "MockSettings",
    "MockTransport",
]

_WHERE = {
    "FROZEN_TIME": "app",
    "MockServer": "app",
    "MockSettings": "app",
    "SCENARIOS": "scenarios",
    "Chunking": "engine",
    "Latency": "engine",
    "MockEngine": "engine",
    "FaultPlan": "faults",
    "InProcessMock": "testing",
    "LoopbackMock": "testing",
    "AsyncMockTransport": "transport",
    "MockTransport": "transport",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'mock_server' has no attribute {name!r}")
    return getattr(import_module(f"mock_server.{_WHERE[name]}"), name)
