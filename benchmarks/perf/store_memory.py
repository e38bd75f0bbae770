"""Memory of the mock's in-memory response store: server RSS growth over 100k stored responses.

    python benchmarks/perf/store_memory.py [--responses 100000] [--warmup 2000] [--json out.json]

The mock runs as its console entry point (``responses-mock``, a separate process); this script
creates responses over loopback HTTP (``POST /v1/responses``, non-streamed, ``store`` left at its
default ``true``, a different question each time so every response is a new, realistic object of
the mock's ``auto`` scenario) and reads the server's resident set size (``psutil``) after a warm-up
and after ``--responses`` more. Two runs:

- **default store** (``--store memory``): the in-memory store keeps at most its default cap of
  responses (``responses-mock --help`` states it; least recently used evicted first), so the
  growth measured over 100k responses is what the cap bounds it to — the issue's target is
  at most 50 MB;
- **cap raised** (``--store memory:N`` with N above the number created): every response stays,
  which gives the cost of one stored response.

After each run the first and the last measured response are fetched back (``GET``): both are there
when the cap was raised; with the default cap the first one has been evicted.

RSS counts everything the process holds, not only the store: the mock's request logs (the most
recent 1,000 requests) and its fault-attempt counter (the most recent 100,000 distinct request
bodies) grow with traffic too, up to their bounds.

Exit codes: 0 measured, 2 the run broke (the server did not start, a request failed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import orjson

from benchmarks.perf.cli_args import allowed_cpu, non_negative_int, positive_int
from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import Server, start_server

TARGET_MB = 50.0
MB = 1e6


@dataclass
class StoreRun:
    store: str
    warmup: int
    responses: int
    rss_before_mb: float
    rss_after_mb: float
    first_kept: bool
    last_kept: bool
    response_bytes: int  # the JSON body of one response, for scale

    @property
    def growth_mb(self) -> float:
        return self.rss_after_mb - self.rss_before_mb

    @property
    def bytes_per_response(self) -> float:
        return self.growth_mb * MB / self.responses


class _Client:
    """One kept-alive HTTP/1.1 connection sending JSON requests and reading JSON answers."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.server.host, self.server.port
            )
        assert self.reader is not None
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.server.host}:{self.server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        status_line, _, headers = (await self.reader.readuntil(b"\r\n\r\n")).partition(b"\r\n")
        match = re.search(rb"(?i)content-length:\s*(\d+)", headers)
        if match is None:
            raise RunError(f"{method} {path}: no content-length in the answer")
        data = await self.reader.readexactly(int(match.group(1)))
        return int(status_line.split()[1]), data

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def create_responses(
    server: Server, start: int, count: int, connections: int
) -> tuple[list[str], int]:
    """Create ``count`` responses (questions ``start`` … ``start + count - 1``); their ids in
    order, and the size of the last body."""
    ids: list[str] = [""] * count
    size = 0
    queue = iter(range(count))

    async def worker() -> None:
        nonlocal size
        client = _Client(server)
        try:
            for i in queue:
                question = f"Question {start + i}: what will the weather be in city {start + i}?"
                body = orjson.dumps({"model": "mock", "input": question})
                status, data = await client.request("POST", "/v1/responses", body)
                if status != 200:
                    raise RunError(f"POST /v1/responses answered {status}: {data[:200]!r}")
                ids[i] = orjson.loads(data)["id"]
                size = len(data)
        finally:
            client.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return ids, size


async def is_stored(server: Server, response_id: str) -> bool:
    client = _Client(server)
    try:
        status, _ = await client.request("GET", f"/v1/responses/{response_id}")
    finally:
        client.close()
    return status == 200


def rss_mb(server: Server) -> float:
    import psutil

    return float(psutil.Process(server.pid).memory_info().rss) / MB


def _mock_entry() -> list[str]:
    entry = Path(sys.executable).with_name("responses-mock")
    return [str(entry)] if entry.exists() else [sys.executable, "-m", "mock_server.cli"]


def mock_command(store: str) -> list[str]:
    return [*_mock_entry(), "--port", "0", "--seed", "1", "--store", store]


def measure(store: str, args: argparse.Namespace) -> StoreRun:
    server = start_server(f"mock ({store})", mock_command(store), args.server_cpu)
    try:
        asyncio.run(create_responses(server, 0, args.warmup, args.connections))
        before = rss_mb(server)
        ids, size = asyncio.run(
            create_responses(server, args.warmup, args.responses, args.connections)
        )
        after = rss_mb(server)
        first = asyncio.run(is_stored(server, ids[0]))
        last = asyncio.run(is_stored(server, ids[-1]))
    finally:
        server.stop()
    return StoreRun(store, args.warmup, args.responses, before, after, first, last, size)


def default_cap_text() -> str:
    """The ``--store`` line of ``responses-mock --help`` (where the default cap is stated)."""
    help_text = subprocess.run(
        [*_mock_entry(), "--help"], capture_output=True, text=True, check=False
    ).stdout
    match = re.search(r"--store SPEC\s+(.*?)(?:\n\s*\n|\n  -)", help_text, re.S)
    return " ".join(match.group(1).split()) if match else "(see responses-mock --help)"


def report(run: StoreRun) -> str:
    kept = {True: "kept", False: "evicted"}
    verdict = "meets" if run.growth_mb <= TARGET_MB else "exceeds"
    return (
        f"{run.store:>14}: RSS {run.rss_before_mb:7.1f} -> {run.rss_after_mb:7.1f} MB, "
        f"growth {run.growth_mb:6.1f} MB over {run.responses:,} responses "
        f"({run.bytes_per_response:,.0f} B each; {verdict} {TARGET_MB:.0f} MB); "
        f"first {kept[run.first_kept]}, last {kept[run.last_kept]}"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="Exit codes: 0 measured, 2 the run broke.",
    )
    parser.add_argument("--responses", type=positive_int, default=100_000, help="default: 100,000")
    parser.add_argument("--warmup", type=non_negative_int, default=2_000, help="default: 2,000")
    parser.add_argument("--connections", type=positive_int, default=8, help="default: 8")
    parser.add_argument(
        "--only",
        choices=["default", "raised"],
        help="run one of the two stores (default: both)",
    )
    parser.add_argument(
        "--server-cpu", type=allowed_cpu, default=None, help="pin the server to this CPU"
    )
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stores = {"default": "memory", "raised": f"memory:{args.warmup + args.responses + 1000}"}
    if args.only:
        stores = {args.only: stores[args.only]}
    cap = default_cap_text()
    print(f"responses-mock --store: {cap}")
    runs: dict[str, StoreRun] = {}
    try:
        for name, store in stores.items():
            runs[name] = run = measure(store, args)
            print(report(run), flush=True)
    except (RunError, OSError, asyncio.IncompleteReadError) as error:
        print(f"store_memory: {error}", file=sys.stderr)
        return 2
    if args.json:
        doc: dict[str, Any] = {
            "default_store_help": cap,
            "target_mb": TARGET_MB,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "runs": {
                name: {
                    **asdict(run),
                    "growth_mb": run.growth_mb,
                    "bytes_per_response": run.bytes_per_response,
                }
                for name, run in runs.items()
            },
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
