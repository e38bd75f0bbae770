"""Throughput of schema validation alone (conformance.schema), on the corpus, on one core.

Every event of every recorded stream is parsed once up front; then ``SCHEMAS.validate_event`` runs
over all of them ``--repeat`` times, and separately over the delta events only (the bulk of any
stream), over the lifecycle events' ``response`` objects (``validate_response``), and over events
that carry one schema violation (the slow path that collects issues). Each figure is the best of
``--rounds`` rounds, in events (or objects) per CPU-second of this process.

    python benchmarks/perf/schema_throughput.py [--repeat 20] [--rounds 5] [--json out.json]

The process is pinned to one CPU where the OS allows it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from benchmarks.perf.cli_args import positive_int
from conformance.schema import SCHEMAS, SchemaIssue

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "openai-recorded" / "streams"


def load_events(corpus: Path) -> list[dict[str, Any]]:
    return [
        orjson.loads(line)
        for path in sorted(corpus.glob("*.jsonl"))
        for line in path.read_bytes().splitlines()
        if line.strip()
    ]


def broken(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One copy of each kind of event with its first required field removed (KB17/KB29 style)."""
    seen: set[str] = set()
    out = []
    for event in events:
        if event["type"] in seen or event["type"] not in SCHEMAS.event_types():
            continue
        seen.add(event["type"])
        mutated = dict(event)
        del mutated["sequence_number"]
        out.append(mutated)
    return out


def rate(
    items: list[Any],
    validate: Callable[[Any], list[SchemaIssue]],
    repeat: int,
    rounds: int,
) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(repeat):
            for item in items:
                validate(item)
        best = min(best, time.process_time() - start)
    return len(items) * repeat / best if best > 0 else float("inf")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repeat", type=positive_int, default=20, help="passes per round (default 20)"
    )
    parser.add_argument(
        "--rounds", type=positive_int, default=5, help="rounds; the best counts (default 5)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    events = load_events(CORPUS)
    if not events:
        # The corpus lies beside the source tree (a checkout), not beside an installed copy.
        print(f"no events to measure: no *.jsonl in {CORPUS}", file=sys.stderr)
        return 2
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    SCHEMAS.event_types()  # compile outside the timing
    failing = [e for e in events if any(i.kind != "enum" for i in SCHEMAS.validate_event(e))]
    if failing:
        print(f"{len(failing)} corpus events fail the schema", file=sys.stderr)
        return 1
    deltas = [e for e in events if e["type"].endswith(".delta")]
    responses = [e["response"] for e in events if isinstance(e.get("response"), dict)]
    invalid = broken(events)

    figures = {
        "all_events": (len(events), rate(events, SCHEMAS.validate_event, args.repeat, args.rounds)),
        "delta_events": (
            len(deltas),
            rate(deltas, SCHEMAS.validate_event, args.repeat, args.rounds),
        ),
        "lifecycle_responses": (
            len(responses),
            rate(responses, SCHEMAS.validate_response, max(1, args.repeat // 4), args.rounds),
        ),
        "invalid_events": (
            len(invalid),
            rate(invalid, SCHEMAS.validate_event, args.repeat, args.rounds),
        ),
    }
    print(f"Python {platform.python_version()} on {platform.machine()}, one core")
    for name, (count, per_second) in figures.items():
        print(f"{name:>20}: {per_second:>12,.0f} /s   ({1e6 / per_second:6.2f} µs each, n={count})")
    if args.json:
        args.json.write_text(
            json.dumps(
                {k: {"count": c, "per_second": r} for k, (c, r) in figures.items()}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
