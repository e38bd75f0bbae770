"""Events/s of ``responses-mock --workers N`` against one worker, under the same client load.

    python benchmarks/perf/store_workers.py [--workers 1,2] [--store sqlite|redis] [--connections 32]
        [--streams 40] [--rounds 3] [--json out.json]

Each configuration is a ``responses-mock --workers N --store …`` process tree (a fresh SQLite file,
or a throwaway ``redis-server``, per run). The client (this process, one asyncio loop) keeps
``--connections`` HTTP/1.1 connections open and sends ``--streams`` plain-text streaming requests
on each (``--model mock``: a short text answer, 9 events; ``mock-long-text``: 513), counting the
SSE events received; rounds alternate between the configurations (``1, 2, 1, 2, …``) so load drift hits both alike. It prints
events per wall-second per round and the median ratio N-worker / 1-worker, with the servers'
CPU-seconds (workers included) per event.

Read the numbers for what they are: this machine has 2 cores, shared with other engineers' jobs
(the load average is printed), and the client runs on the same cores, so the ratio is a lower
bound of what a second core gives; the absolute rates are noise. The shared store costs every
request a fault-attempt count in it (a SQLite transaction or a Redis round trip) and every
stored response a write, in both configurations alike.

Exit codes: 0 measured, 2 the run broke.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.perf.cli_args import positive_int, positive_ints
from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import Server, ServerTree, start_server
from benchmarks.perf.store_retention import redis_server
from benchmarks.perf.stream_client import load_round


def body_for(model: str) -> bytes:
    return json.dumps({"model": model, "input": "Say something.", "stream": True}).encode()


@dataclass
class Round:
    workers: int
    round: int
    events: int
    wall_seconds: float
    cpu_seconds: float  # the server process tree's

    @property
    def events_per_s(self) -> float:
        return self.events / max(self.wall_seconds, 1e-9)


@dataclass
class Results:
    settings: dict[str, Any]
    rounds: list[Round] = field(default_factory=list)

    def median(self, workers: int) -> float:
        return statistics.median(r.events_per_s for r in self.rounds if r.workers == workers)

    def cpu_per_event_us(self, workers: int) -> float:
        mine = [r for r in self.rounds if r.workers == workers]
        return 1e6 * sum(r.cpu_seconds for r in mine) / max(sum(r.events for r in mine), 1)


@contextmanager
def mock(workers: int, store: str) -> Iterator[Server]:
    argv = [sys.executable, "-m", "mock_server.cli", "--port", "0", "--store", store,
            "--workers", str(workers)]  # fmt: skip
    started = start_server(f"{workers}w", argv, None, timeout=90)
    server = ServerTree.of(started)
    try:
        yield server
    finally:
        server.stop()


def _frames_per_stream(server: Server, request: bytes) -> int:
    from benchmarks.perf.stream_client import capture

    body = asyncio.run(capture(server.host, server.port, request))
    return body.count(b"\n\n")


def run(args: argparse.Namespace) -> Results:
    counts: list[int] = args.workers
    results = Results(
        {
            "workers": counts,
            "store": args.store,
            "connections": args.connections,
            "streams": args.streams,
            "rounds": args.rounds,
            "cpus": os.cpu_count(),
            "loadavg_before": os.getloadavg()[0],
        }
    )
    with ExitStack() as stack:
        servers: dict[int, Server] = {}
        for workers in counts:
            if args.store == "redis":
                url = stack.enter_context(redis_server())
                if url is None:
                    raise RunError("redis-server is not installed")
                store = url
            else:
                tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="workers-"))
                store = f"sqlite:{Path(tmp) / 'store.db'}"
            servers[workers] = stack.enter_context(mock(workers, store))
        frames = _frames_per_stream(servers[counts[0]], args.body)
        for rnd in range(args.rounds):
            for workers in counts:
                sample = asyncio.run(
                    load_round(
                        servers[workers], args.body, frames, args.connections, args.streams, rnd
                    )
                )
                results.rounds.append(
                    Round(workers, rnd, sample.events, sample.wall_seconds, sample.cpu_seconds)
                )
                print(f"round {rnd} {workers} worker(s): {results.rounds[-1].events_per_s:,.0f} "
                      f"events/s", flush=True)  # fmt: skip
    results.settings["loadavg_after"] = os.getloadavg()[0]
    results.settings["events_per_stream"] = frames - 1
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=positive_ints, default="1,2")
    parser.add_argument("--store", choices=["sqlite", "redis"], default="sqlite")
    parser.add_argument("--connections", type=positive_int, default=32)
    parser.add_argument("--streams", type=positive_int, default=40)
    parser.add_argument("--rounds", type=positive_int, default=3)
    parser.add_argument(
        "--model", default="mock", help="mock (a short text answer) or mock-long-text, ..."
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.body = body_for(args.model)
    try:
        results = run(args)
    except (RunError, OSError) as error:
        print(f"store_workers: {error}", file=sys.stderr)
        return 2
    counts = results.settings["workers"]
    base = results.median(counts[0])
    for workers in counts:
        print(f"{workers} worker(s) on {args.store}: median {results.median(workers):,.0f} events/s "
              f"({results.median(workers) / base:.2f}x {counts[0]} worker), "
              f"{results.cpu_per_event_us(workers):.0f} server CPU-us per event")  # fmt: skip
    print(f"{results.settings['events_per_stream']} events per stream, {args.connections} "
          f"connections; {results.settings['cpus']} CPUs shared with other jobs, load average "
          f"{results.settings['loadavg_before']:.1f} before, {results.settings['loadavg_after']:.1f} "
          "after: the rates are noise, the ratio a lower bound")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps(
            {"settings": results.settings, "rounds": [asdict(r) for r in results.rounds]}, indent=2
        ))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
