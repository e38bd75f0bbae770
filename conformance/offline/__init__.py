"""The offline front door: ``responses-conformance check`` and ``explain``, no network.

- :mod:`.recorded` — one recorded file (raw SSE, JSON Lines, a body, a WebSocket session), its
  format detected from its content, to a :class:`~.recorded.FileVerdict`;
- :mod:`.cassette_check` — a cassette (docs/cassettes.md), exchange by exchange;
- :mod:`.explain` — one check in full, with its examples (:mod:`conformance.examples`).
"""

from __future__ import annotations

from .recorded import FileVerdict, UnreadableFile, check_bytes, check_file

__all__ = ["FileVerdict", "UnreadableFile", "check_bytes", "check_file"]
