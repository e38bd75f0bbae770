"""Offline validation throughput of the judge, end to end, on one core.

SSE bytes → events → verdicts, parsing included: every recording of the corpus is framed as a
server sends it (``event: <type>\\ndata: <json>\\n\\n``), fed to :class:`SSEStreamValidator` in
64 KiB chunks and closed, ``--repeat`` rounds over, each making one pass of the judge and of each
baseline (interleaved, so that a load that comes and goes weighs on all alike). A pass goes over
the corpus ``--copies`` times (one by default: about 20 ms of the judge here).

On a shared machine the speed of the CPU itself wanders: on this project's 2-core VM, with
nothing else running, one pass of the same code took anywhere from 1× to 1.7× its fastest time,
the wander lasting for tenths of a second. Alternating short passes many times (``--repeat``
100) puts both sides through the same wander, so the ratio of their total CPU times
(``ratio … total CPU``) is the steadiest estimate: ±2 % between runs where one pass each, or the
medians of 20, moved by ±15 %. Baselines over the same bytes: splitting out
the ``data:`` payloads and only ``json.loads``-ing each (what any client must at least do), and
the same with ``orjson.loads``.

    python benchmarks/perf/validate_throughput.py [--repeat 100] [--copies 1] [--json out.json]

The process is pinned to one CPU where the OS allows it; rates are events per CPU-second of this
process (``time.process_time``), with wall time alongside.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from benchmarks.perf.cli_args import positive_int
from conformance import SSEStreamValidator, failing

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "openai-recorded" / "streams"
CHUNK = 64 * 1024


def load_streams(corpus: Path) -> list[tuple[bytes, int]]:
    """Each recording as SSE bytes, with its event count."""
    streams = []
    for path in sorted(corpus.glob("*.jsonl")):
        lines = [ln for ln in path.read_bytes().splitlines() if ln.strip()]
        body = b"".join(
            b"event: " + orjson.loads(ln)["type"].encode() + b"\ndata: " + ln + b"\n\n"
            for ln in lines
        )
        streams.append((body, len(lines)))
    return streams


def judge(streams: list[tuple[bytes, int]]) -> int:
    bad = 0
    for body, _ in streams:
        sse = SSEStreamValidator()
        for i in range(0, len(body), CHUNK):
            sse.feed(body[i : i + CHUNK])
        sse.close()
        bad += len(failing(sse.violations, strict=True))
    return bad


def _baseline(loads: Callable[[bytes], object]) -> Callable[[list[tuple[bytes, int]]], int]:
    def run(streams: list[tuple[bytes, int]]) -> int:
        for body, _ in streams:
            for line in body.split(b"\n"):
                if line.startswith(b"data: "):
                    loads(line[6:])
        return 0

    return run


def measure(
    fn: Callable[[list[tuple[bytes, int]]], int], streams: list[tuple[bytes, int]], repeat: int
) -> dict[str, float]:
    events = sum(n for _, n in streams)
    fn(streams)  # warm-up (imports, schema compilation)
    cpu_rates, wall_rates = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn(streams)
        c1, w1 = time.process_time(), time.perf_counter()
        cpu_rates.append(events / max(c1 - c0, 1e-9))
        wall_rates.append(events / max(w1 - w0, 1e-9))
    return {
        "events_per_cpu_s_median": statistics.median(cpu_rates),
        "events_per_cpu_s_best": max(cpu_rates),
        "events_per_wall_s_median": statistics.median(wall_rates),
    }


def measure_interleaved(
    fns: dict[str, Callable[[list[tuple[bytes, int]]], int]],
    streams: list[tuple[bytes, int]],
    repeat: int,
) -> tuple[dict[str, dict[str, float]], dict[str, list[float]]]:
    """:func:`measure` for each function, their passes interleaved (one pass of each per round,
    the order rotated), so that a load that comes and goes weighs on all of them alike; also
    each one's CPU rate per round."""
    events = sum(n for _, n in streams)
    names = list(fns)
    for name in names:
        fns[name](streams)  # warm-up (imports, schema compilation)
    cpu: dict[str, list[float]] = {name: [] for name in names}
    wall: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            c0, w0 = time.process_time(), time.perf_counter()
            fns[name](streams)
            c1, w1 = time.process_time(), time.perf_counter()
            cpu[name].append(events / max(c1 - c0, 1e-9))
            wall[name].append(events / max(w1 - w0, 1e-9))
    summary = {
        name: {
            "events_per_cpu_s_median": statistics.median(cpu[name]),
            "events_per_cpu_s_best": max(cpu[name]),
            "events_per_wall_s_median": statistics.median(wall[name]),
        }
        for name in names
    }
    return summary, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=positive_int, default=100)
    parser.add_argument(
        "--copies", type=positive_int, default=1, help="passes go over the corpus this many times"
    )
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    corpus = load_streams(CORPUS)
    if not corpus:
        # The corpus lies beside the source tree (a checkout), not beside an installed copy.
        print(f"no streams to measure: no *.jsonl in {CORPUS}", file=sys.stderr)
        return 2
    if judge(corpus):
        print("the corpus does not pass the judge; fix that first", file=sys.stderr)
        return 2
    streams = corpus * max(args.copies, 1)
    events = sum(n for _, n in corpus)
    size = sum(len(b) for b, _ in corpus)
    measured, rounds = measure_interleaved(
        {
            "judge": judge,
            "baseline_json_loads": _baseline(json.loads),
            "baseline_orjson_loads": _baseline(orjson.loads),
        },
        streams,
        args.repeat,
    )
    by_round = [a / b for a, b in zip(rounds["judge"], rounds["baseline_json_loads"], strict=True)]
    results = {
        "corpus": {"streams": len(corpus), "events": events, "bytes": size},
        "copies": max(args.copies, 1),
        "repeat": args.repeat,
        "python": platform.python_version(),
        **measured,
        "ratio_judge_to_json_loads_by_round": by_round,
    }
    j = measured["judge"]["events_per_cpu_s_median"]
    b = measured["baseline_json_loads"]["events_per_cpu_s_median"]
    o = measured["baseline_orjson_loads"]["events_per_cpu_s_median"]
    results["ratio_judge_to_json_loads"] = j / b
    results["ratio_judge_to_orjson_loads"] = j / o
    # Total CPU over every round: both sides went through the same wander of the machine.
    cpu_total = {name: sum(1 / rate for rate in rates) for name, rates in rounds.items()}
    total = cpu_total["baseline_json_loads"] / cpu_total["judge"]
    total_orjson = cpu_total["baseline_orjson_loads"] / cpu_total["judge"]
    results["ratio_judge_to_json_loads_total_cpu"] = total
    results["ratio_judge_to_orjson_loads_total_cpu"] = total_orjson
    print(
        f"corpus: {len(corpus)} streams, {events} events, {size / 1e6:.1f} MB of SSE "
        f"(×{max(args.copies, 1)} per pass)"
    )
    print(f"judge (SSE bytes → verdicts):  {j:>12,.0f} events/CPU-s (median of {args.repeat})")
    print(f"baseline json.loads only:      {b:>12,.0f} events/CPU-s")
    print(f"baseline orjson.loads only:    {o:>12,.0f} events/CPU-s")
    print(f"ratio judge / json.loads:      {j / b:>12.2f}")
    print(f"ratio judge / orjson.loads:    {j / o:>12.2f}")
    print(f"ratio judge / json.loads, total CPU:   {total:>5.2f}   (the steadiest: see above)")
    print(f"ratio judge / orjson.loads, total CPU: {total_orjson:>5.2f}")
    print(
        f"(passes interleaved; judge / json.loads per round: median "
        f"{statistics.median(by_round):.2f}, {min(by_round):.2f}–{max(by_round):.2f})"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
