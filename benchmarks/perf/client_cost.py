"""What judging every stream costs the load generator: events per CPU-second on one core.

The load test's per-request path without the network: SSE bytes arrive one event per chunk (a
streaming server flushes each event), each chunk is stamped and fed to
:class:`benchmarks.responses_bench.meter.StreamMeter`, the stream is finished into a record. Three clients over the
same bytes:

- ``validating``: the meter with the judge (``SSEStreamValidator``) — what ``responses-bench`` runs;
- ``no-validation``: the same meter with ``--no-validate`` (bare SSE decoder + JSON parse + timing);
- ``json-only``: a client that only ``json.loads`` each event's ``data:`` payload.

    python -m benchmarks.perf.client_cost [--repeat 100] [--sse capture.sse ...] [--profile] [--json out]

Streams: the recorded OpenAI corpus (``tests/data/openai-recorded/streams``), or captured SSE files.
The process is pinned to one CPU; rates are events per CPU-second (``time.process_time``), the
median over ``--repeat`` rounds in which each client makes one pass (interleaved, so a load that
comes and goes weighs on all alike); the validating / json-only ratio is also given per round, and
as the ratio of the two clients' total CPU time over all rounds (``… total CPU``), the steadiest
figure where the machine's speed wanders: between runs of 9 rounds the ratio of medians moved
from 0.92 to 1.31 on this project's 2-core VM (see ``validate_throughput`` for the same method).
``--profile`` prints where the validating client's time goes (cProfile, top functions by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from benchmarks.perf.cli_args import positive_int
from benchmarks.responses_bench.meter import StreamMeter, warm_up

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "openai-recorded" / "streams"

Stream = list[bytes]  # one SSE event block per chunk


def corpus_streams(corpus: Path) -> list[Stream]:
    streams = []
    for path in sorted(corpus.glob("*.jsonl")):
        lines = [ln for ln in path.read_bytes().splitlines() if ln.strip()]
        streams.append(
            [
                b"event: " + orjson.loads(ln)["type"].encode() + b"\ndata: " + ln + b"\n\n"
                for ln in lines
            ]
        )
    return streams


def sse_file_streams(paths: list[Path]) -> list[Stream]:
    streams = []
    for path in paths:
        blocks = path.read_bytes().replace(b"\r\n", b"\n").split(b"\n\n")
        streams.append([b + b"\n\n" for b in blocks if b.strip()])
    return streams


def _metered(validate: bool) -> Callable[[list[Stream]], int]:
    def run(streams: list[Stream]) -> int:
        clock = time.perf_counter
        bad = 0
        for stream in streams:
            meter = StreamMeter(t0=clock(), start=0.0, validate=validate)
            for chunk in stream:
                meter.feed(chunk, clock())
            bad += not meter.finish(clock()).ok
        return bad

    return run


def _json_only(streams: list[Stream]) -> int:
    loads = json.loads
    for stream in streams:
        for chunk in stream:
            start = chunk.find(b"data: ")
            if start >= 0:
                end = chunk.find(b"\n", start)
                payload = chunk[start + 6 : end]
                if payload != b"[DONE]":
                    loads(payload)
    return 0


CLIENTS: dict[str, Callable[[list[Stream]], int]] = {
    "validating": _metered(True),
    "no-validation": _metered(False),
    "json-only": _json_only,
}


def count_events(streams: list[Stream]) -> int:
    return sum(1 for stream in streams for chunk in stream if b"data: [DONE]" not in chunk)


def measure(fn: Callable[[list[Stream]], int], streams: list[Stream], repeat: int) -> float:
    """Median events per CPU-second over ``repeat`` passes (after one warm-up pass)."""
    events = count_events(streams)
    fn(streams)
    rates = []
    for _ in range(repeat):
        c0 = time.process_time()
        fn(streams)
        rates.append(events / max(time.process_time() - c0, 1e-9))
    return statistics.median(rates)


def measure_interleaved(
    clients: dict[str, Callable[[list[Stream]], int]],
    streams: list[Stream],
    repeat: int,
    totals: dict[str, float] | None = None,
) -> tuple[dict[str, float], list[float]]:
    """:func:`measure` for every client, their passes interleaved (one pass of each per round,
    the order rotated), so that a load that comes and goes weighs on all of them alike: the
    median rate of each, and per round the validating client's rate over the json-only one's.
    ``totals``, when given, receives each client's CPU seconds over all its passes."""
    events = count_events(streams)
    names = list(clients)
    for name in names:
        clients[name](streams)  # warm-up
    rates: dict[str, list[float]] = {name: [] for name in names}
    ratios = []
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            c0 = time.process_time()
            clients[name](streams)
            spent = time.process_time() - c0
            rates[name].append(events / max(spent, 1e-9))
            if totals is not None:
                totals[name] = totals.get(name, 0.0) + spent
        if "validating" in rates and "json-only" in rates:
            ratios.append(rates["validating"][-1] / rates["json-only"][-1])
    return {name: statistics.median(r) for name, r in rates.items()}, ratios


def profile(streams: list[Stream], top: int = 18, passes: int = 5) -> str:
    # Several passes, after the measured ones: a single cold pass is dominated by first-use costs.
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(passes):
        CLIENTS["validating"](streams)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repeat", type=positive_int, default=100, help="rounds (one pass of each client)"
    )
    parser.add_argument("--sse", type=Path, nargs="*", help="captured SSE bodies instead")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of validating")
    parser.add_argument("--json", type=Path, help="write the rates here")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    streams = sse_file_streams(args.sse) if args.sse else corpus_streams(CORPUS)
    if not streams:
        where = " ".join(map(str, args.sse)) if args.sse else f"no *.jsonl in {CORPUS}"
        print(f"no streams to measure: {where}", file=sys.stderr)
        return 2
    warm_up()
    events = count_events(streams)
    totals: dict[str, float] = {}
    rates, ratios = measure_interleaved(CLIENTS, streams, args.repeat, totals)
    print(f"{len(streams)} streams, {events} events, one event per chunk, one CPU")
    for name, rate in rates.items():
        print(f"  {name:<14} {rate:>12,.0f} events/CPU-s")
    print(f"  validation costs {rates['no-validation'] / rates['validating']:.2f}× the meter alone")
    print(
        f"  validating / json-only {rates['validating'] / rates['json-only']:.2f}× "
        f"(per round: median {statistics.median(ratios):.2f}, "
        f"{min(ratios):.2f}–{max(ratios):.2f}; passes interleaved)"
    )
    total_ratio = totals["json-only"] / max(totals["validating"], 1e-9)
    print(f"  validating / json-only, total CPU {total_ratio:.2f}×  (the steadiest: see above)")
    if args.profile:
        print(profile(streams))
    if args.json:
        out = {
            "events": events,
            "rates": rates,
            "ratio_validating_to_json_only_by_round": ratios,
            "cpu_seconds_total": totals,
            "ratio_validating_to_json_only_total_cpu": total_ratio,
        }
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
