"""The deterministic Responses mock server: the protocol layer (``reference_impl``) driven by an
engine whose output is a pure function of the request and a seed.

Public API (imported lazily, so that loading the pytest plugin costs nothing):

- :class:`MockEngine` (+ :class:`Latency`, :class:`Chunking`) — the deterministic engine;
- :class:`MockServer`, :class:`MockSettings`, :data:`FROZEN_TIME` — the ASGI app and its handle;
- :class:`FaultPlan` — the fault syntax (``429@1,2``, ``error=5``, ``drop=10``, ``slow=1@1``);
- :class:`LoopbackMock`, :class:`InProcessMock` — handles for tests (also pytest fixtures:
  ``responses_mock``, ``responses_mock_session``, ``responses_mock_inprocess``);
- :class:`InProcessTransport`, :class:`AsyncInProcessTransport` — socket-free ``httpx2``
  transports (``MockTransport`` and ``AsyncMockTransport``: the same classes, their first names);
- ``SCENARIOS`` — scenario names; ``responses-mock --help`` — the CLI.

The package, by part:

- what it answers (sans-I/O): :mod:`.engine` (``MockEngine``, timing, chunking), :mod:`.scenarios`
  (plans of output segments), :mod:`.agent_script` (scripted agent turns), :mod:`.instructions`
  (the simple requests it understands), :mod:`.prose`, :mod:`.tokenizer`, :mod:`.jsonschema_gen`
  (with its checker :mod:`.jsonschema_check`) and :mod:`.grammar_gen` (valid JSON / grammar text), :mod:`.hosted` (hosted-tool fakes),
  :mod:`.digest` (the request digest and seeded RNG), :mod:`.ids` (deterministic ids);
- the server: :mod:`.app` (``MockServer``: the reference app around the engine, the seed's
  sealer), :mod:`.middleware` (request log, attempts, HTTP faults), :mod:`.faults` (the fault
  plan), :mod:`.websocket` (faults in WebSocket mode), :mod:`.record` / :mod:`.replay` /
  :mod:`.replay_match` (cassettes);
- running it: :mod:`.cli` (``responses-mock``), :mod:`.workers` (``--workers N``),
  :mod:`.testing` (test handles), :mod:`.transport` (in-process transports),
  :mod:`.pytest_plugin` (fixtures).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = [
    "FROZEN_TIME",
    "SCENARIOS",
    "AsyncInProcessTransport",
    "AsyncMockTransport",
    "Chunking",
    "FaultPlan",
    "InProcessMock",
    "InProcessTransport",
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
    "AsyncInProcessTransport": "transport",
    "AsyncMockTransport": "transport",
    "InProcessTransport": "transport",
    "MockTransport": "transport",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'mock_server' has no attribute {name!r}")
    return getattr(import_module(f"mock_server.{_WHERE[name]}"), name)
