"""Examples of the live checks (``live.*``): a misbehaving server that breaks the rule, and the
near miss — the embedded mock, which obeys it. ``tests/suite/broken_servers.py`` builds each
server under the name given here and ``tests/suite/test_live_examples.py`` runs the suite's cases
for the check against it (and against the mock)."""

from __future__ import annotations

from . import Sample, example

__all__ = ["LIVE_SERVERS", "live"]

# check ID -> the name of its broken server in tests/suite/broken_servers.py
LIVE_SERVERS: dict[str, str] = {}

_MOCK = Sample("live", lambda: "mock", "the embedded mock server, which obeys the rule")


def live(check_id: str, server: str, note: str) -> None:
    LIVE_SERVERS[check_id] = server
    example(check_id, Sample("live", lambda: server, f"{note} (test server `{server}`)"), _MOCK)


live(
    "live.max_output_tokens.incomplete",
    "kb10_completed_after_cutoff",
    "a server that reports `status: completed` after a `max_output_tokens` cut-off (KB10)",
)
live(
    "live.previous_response.history",
    "kb19_wrong_history",
    "a server that replays the previous turn's instructions instead of its input and output (KB19)",
)
live(
    "live.background.cancel_idempotent",
    "kb20_cancel_not_idempotent",
    "a server that answers 400 to cancelling a finished background response (KB20)",
)
live(
    "live.usage.reasoning_tokens_hardcoded",
    "kb25_reasoning_tokens_zero",
    "a server whose reasoning responses all report `reasoning_tokens: 0` (KB25)",
)
live(
    "live.store.false_not_retrievable",
    "kb26_store_false_retrievable",
    "a server that stores, and serves on GET, a `store: false` response (KB26)",
)
