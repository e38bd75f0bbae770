"""benchmarks/perf/mock_capacity.py: a tiny sweep against the real mock, and a level past its
deadline counted as failures (the point past capacity is a measurement, not a broken run)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.perf import mock_capacity as bench


def _run(tmp_path: Path, *argv: str) -> dict:  # type: ignore[type-arg]
    out = tmp_path / "capacity.json"
    assert bench.main([*argv, "--json", str(out)]) == 0
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_a_small_sweep_measures_every_level(tmp_path: Path) -> None:
    result = _run(tmp_path, "--concurrency", "2,3", "--streams", "2", "--ttft", "0.01",
                  "--inter-token", "0.002", "--ramp", "0")  # fmt: skip
    settings = result["settings"]
    assert settings["events_per_stream"] >= 50
    assert 0 < settings["deltas_per_stream"] < settings["events_per_stream"]
    assert [lv["concurrency"] for lv in result["levels"]] == [2, 3]
    for level in result["levels"]:
        assert level["ok"] == level["streams"] == 2 * level["concurrency"]
        assert level["failed"] == 0 and level["failures"] == {}
        assert level["events"] == level["ok"] * settings["events_per_stream"]
        # Paced: a stream takes at least its deltas' gaps (lower bounds only: a real clock).
        assert level["stretch_p50"] >= 0.9
        assert level["ttft_p50_ms"] >= 10
        assert level["server_cpu_seconds"] > 0


def test_streams_past_their_deadline_are_counted_not_fatal(tmp_path: Path) -> None:
    # ~60 deltas 50 ms apart take ~3 s; a 0.3 s deadline cuts every stream.
    result = _run(tmp_path, "--concurrency", "2", "--streams", "3", "--ttft", "0",
                  "--inter-token", "0.05", "--timeout", "0.3", "--ramp", "0")  # fmt: skip
    (level,) = result["levels"]
    assert level["ok"] == 0
    assert level["failed"] == level["streams"] == 6  # the rest of a connection's streams too
    assert level["failures"] == {"past the deadline": 6}
    assert level["keeps_pace"] is False
