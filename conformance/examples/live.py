"""Examples of the live checks (``live.*``): a misbehaving server that breaks the rule, and the
near miss — the embedded mock, which obeys it. ``tests/suite/broken_servers.py`` builds each
server under the name given here and ``tests/suite/test_live_examples.py`` runs the suite's cases
for the check against it (and against the mock)."""

from __future__ import annotations

from .registry import Sample, example

__all__ = ["LIVE_SERVERS", "live"]

# check ID -> the name of its broken server in tests/suite/broken_servers.py
LIVE_SERVERS: dict[str, str] = {}

_MOCK = Sample("live", lambda: "mock", "the embedded mock server, which obeys the rule")


def live(check_id: str, server: str, note: str) -> None:
    LIVE_SERVERS[check_id] = server
    example(check_id, Sample("live", lambda: server, f"{note} (test server `{server}`)"), _MOCK)
