"""Concurrent WebSocket sessions against the mock, every frame judged (bounded: the 500-session
run is ``python -m benchmarks.perf.ws_sessions``)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.perf import ws_sessions


def test_concurrent_sessions_lose_garble_and_misroute_nothing(tmp_path: Path) -> None:
    out = tmp_path / "ws.json"
    code = ws_sessions.main(
        ["--sessions", "40", "--lanes", "3", "--turns", "2", "--json", str(out)]
    )
    result = json.loads(out.read_text())
    assert code == 0, result
    assert result["responses"] == result["responses_expected"] == 240
    assert result["sessions_clean"] == 40
    assert (result["misrouted"], result["missing_sessions"], result["violations"]) == (0, 0, {})
    assert result["events_judged"] > 240 * 9
