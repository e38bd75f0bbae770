"""benchmarks/perf/store_memory.py: a tiny run of each store, and the default cap read from --help."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.perf import store_memory as bench
from reference_impl.stores.base import DEFAULT_MAX_RESPONSES


def test_the_default_cap_is_stated_by_the_mock() -> None:
    assert f"{DEFAULT_MAX_RESPONSES:,} responses" in bench.default_cap_text()


def test_a_small_run_of_both_stores(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    argv = ["--responses", "30", "--warmup", "5", "--connections", "2", "--json", str(out)]
    assert bench.main(argv) == 0
    runs = json.loads(out.read_text())["runs"]
    assert runs["default"]["store"] == "memory" and runs["raised"]["store"] == "memory:1035"
    for run in runs.values():
        assert run["responses"] == 30 and run["response_bytes"] > 500
        assert run["first_kept"] and run["last_kept"]  # 30 responses fit under either cap
