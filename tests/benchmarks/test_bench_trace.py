"""Trace replay against the mock (docs/bench-datasets.md): each record of a timestamped workload starts at
its own offset from the replay's start, in the trace's order. A real clock on a loaded machine can
only be late, so the checks are the order and lower bounds — never an upper bound on lateness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench_support import mock_server, run_bench

# Offsets in ms (mooncake / AIPerf traces), out of order in the file; distinct input lengths tell
# the requests apart in the request log (the mock's input_tokens grow with them).
TRACE: list[dict[str, Any]] = [
    {"timestamp": 10_000, "input_length": 20, "output_length": 16, "hash_ids": [1]},
    {"timestamp": 10_900, "input_length": 40, "output_length": 16, "hash_ids": [1, 2]},
    {"timestamp": 10_300, "input_length": 30, "output_length": 16, "hash_ids": [1, 3]},
    {"timestamp": 11_500, "prompt": "a line with text of its own", "output_length": 16},
    {"timestamp": 12_000, "input_length": 60, "output_length": 16},
]


def test_a_trace_replays_its_arrivals_in_order_and_never_early(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in TRACE))
    with mock_server("--ttft", "0.02") as url:
        run = run_bench(
            tmp_path / "r", "--base-url", url, "--model", "mock", "--shape", "trace",
            "--workload", str(path), "--trace-speedup", "2", "--trace-block-tokens", "10",
            "--request-log", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    assert summary["shape"] == "trace"
    workload = summary["workload"]
    assert (workload["source"], workload["format"]) == (str(path), "jsonl")
    assert workload["trace_speedup"] == 2.0
    loop = summary["open_loop"]
    assert loop["arrivals"] == "trace" and loop["scheduled"] == loop["completed"] == 5
    assert summary["requests"]["total"] == 5 and summary["requests"]["failed"] == 0
    records = sorted(run.requests(), key=lambda r: r["start"])
    # The replay order: sorted by timestamp (10.0, 10.3, 10.9, 11.5, 12.0 s), at speed-up 2.
    expected = sorted(TRACE, key=lambda r: r["timestamp"])
    offsets = [(r["timestamp"] - 10_000) / 1000 / 2 for r in expected]
    # In that order: the requests sorted by start rank by input size as the trace's records do.
    lengths = [r.get("input_length", len(str(r.get("prompt")).split())) for r in expected]
    inputs = [r["input_tokens"] for r in records]
    assert _ranks(inputs) == _ranks(lengths), inputs
    # Never early: each starts at least its offset after the first (less the first's own lag).
    first = records[0]["start"] - records[0]["lag"]
    for record, offset in zip(records, offsets, strict=True):
        assert record["lag"] >= 0
        assert record["start"] - first >= offset - 0.005, (record, offset)


def _ranks(values: list[int]) -> list[int]:
    return sorted(range(len(values)), key=values.__getitem__)


def test_a_csv_workload_with_a_prefix_pool_and_drawn_output_lengths(tmp_path: Path) -> None:
    # Closed loop through Locust's users: every request is a CSV row, a 24-token shared prefix
    # before it, and max_output_tokens drawn from 16-24 (the mock stops there: incomplete).
    path = tmp_path / "prompts.csv"
    path.write_text("prompt,ignored\nfirst question,x\nsecond one here,y\n")
    with mock_server() as url:
        run = run_bench(
            tmp_path / "r", "--base-url", url, "--model", "mock", "--workload", str(path),
            "--prefix-count", "2", "--prefix-tokens", "24", "--output-tokens", "16-24",
            "-u", "2", "-t", "2s", "--request-log", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    assert summary["workload"]["format"] == "csv"
    assert summary["workload"]["prefix_pool"] == {"count": 2, "tokens": 24}
    assert summary["workload"]["max_output_tokens"] == "16-24"
    records = run.requests()
    assert len(records) == summary["requests"]["total"] > 0
    assert all(r["ok"] for r in records)
    assert min(r["input_tokens"] for r in records) >= 24 + 2  # the prefix, then the row's text
    assert max(r["output_tokens"] for r in records) <= 24


def test_every_load_process_writes_its_request_log(tmp_path: Path) -> None:
    # With --processes 2 the requests are made by two Locust workers, each with its own log file:
    # a worker writes no report, and its log used to be left unflushed (every file empty).
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in TRACE))
    with mock_server() as url:
        run = run_bench(
            tmp_path / "r", "--base-url", url, "--model", "mock", "--shape", "trace",
            "--workload", str(path), "--trace-speedup", "4", "--processes", "2",
            "--request-log", timeout=120,
        )  # fmt: skip
    assert run.code == 0, run.output
    logs = sorted((tmp_path / "r").glob("requests-*.jsonl"))
    assert len(logs) >= 2, logs
    assert len(run.requests()) == run.summary["requests"]["total"] == len(TRACE)
