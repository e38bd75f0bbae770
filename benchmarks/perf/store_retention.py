"""Retention of the SQLite and Redis stores over 100k responses: what the caps hold them to.

    python benchmarks/perf/store_retention.py [--responses 100000] [--max-bytes 64Mi]
        [--max-responses 10000] [--backends sqlite,redis] [--json out.json]

Stores ``--responses`` realistic responses (one of the mock's own ``auto`` answers, a different
id and text each time, ~2.4 KB of JSON with its input items) through the store API, one
conversation with two items every 10 responses, into each backend under two configurations:

- **bytes**: ``max_bytes`` = ``--max-bytes``, counts unbounded — the SQLite file (after a WAL
  checkpoint) and the Redis store's books must stay within it;
- **count**: ``max_responses`` = ``--max-responses`` (bytes at the default 256 MiB) — the rows /
  keys must stay at the cap.

Every 10% it samples: the SQLite file and WAL sizes, its used pages and row counts; Redis
``used_memory`` (``INFO memory``, minus what it was before the run), ``DBSIZE``, the store's
books. It prints the peaks against the cap. Redis: a throwaway ``redis-server`` on a free
loopback port (the Debian package; skipped with a note when absent).

Exit codes: 0 measured and every run within its cap, 1 a run exceeded its cap, 2 the run broke.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.perf.cli_args import positive_int
from benchmarks.perf.localhost import free_port
from reference_impl.stores.base import DEFAULT_MAX_BYTES, StoreLimits
from reference_impl.stores.options import byte_size

MB = 1e6


@dataclass
class Run:
    backend: str
    config: str  # "bytes" or "count"
    responses: int
    cap_bytes: int
    cap_responses: int
    peak_bytes: int = 0  # SQLite: file + WAL after checkpoint; Redis: used_memory growth
    peak_wal: int = 0  # SQLite: the WAL before its checkpoint
    peak_books: int = 0  # SQLite: used pages; Redis: the store's own byte books
    final_responses: int = 0
    final_conversations: int = 0
    final_keys: int = 0  # Redis DBSIZE; SQLite: rows in all tables
    evicted: int = 0
    seconds: float = 0.0
    samples: list[dict[str, int]] = field(default_factory=list)

    @property
    def within(self) -> bool:
        if self.config == "bytes":
            return self.peak_bytes <= self.cap_bytes
        return self.final_responses <= self.cap_responses


def _template() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from mock_server.app import MockSettings
    from mock_server.testing import InProcessMock

    mock = InProcessMock(MockSettings(seed=1, frozen_time=1_700_000_000))
    try:
        client = mock.client()
        created = client.responses.create(model="mock", input="How do stores expire? " * 4)
        response = created.model_dump(mode="json", exclude_none=True)
        items = [
            dict(i) for i in client.responses.input_items.list(created.id).model_dump()["data"]
        ]
    finally:
        mock.close()
    return response, items


def _response(template: dict[str, Any], n: int) -> dict[str, Any]:
    response = dict(template)
    response["id"] = f"resp_{n:048x}"
    response["metadata"] = {"n": str(n)}
    return response


@contextmanager
def redis_server() -> Iterator[str | None]:
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="redis-retention-")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    import redis

    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        server.terminate()
        server.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


async def _fill(store: Any, run: Run, template: tuple[dict[str, Any], list[dict[str, Any]]],
                sample: Any) -> None:  # fmt: skip
    response, items = template
    step = max(1, run.responses // 10)
    started = time.perf_counter()
    for n in range(run.responses):
        await store.put(_response(response, n), items)
        if n % 10 == 0:
            conversation = {"id": f"conv_{n:048x}", "object": "conversation", "created_at": 0,
                            "metadata": {}}  # fmt: skip
            await store.put_conversation(conversation)
            await store.add_conversation_items(conversation["id"], items[:1] * 2)
        if (n + 1) % step == 0:
            run.samples.append(sample())
    run.seconds = time.perf_counter() - started


def measure_sqlite(run: Run, template: Any) -> Run:
    from reference_impl.stores.sqlite import SQLiteStore

    with tempfile.TemporaryDirectory(prefix="retention-") as tmp:
        path = Path(tmp) / "store.db"
        limits = StoreLimits(run.cap_responses, run.cap_responses, run.cap_bytes)
        store = SQLiteStore(path, limits=limits)
        wal = Path(f"{path}-wal")

        def sample() -> dict[str, int]:
            wal_before = wal.stat().st_size if wal.exists() else 0
            store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
            counts = store.counts()
            used = store.used_bytes()
            run.peak_bytes = max(run.peak_bytes, size)
            run.peak_wal = max(run.peak_wal, wal_before)
            run.peak_books = max(run.peak_books, used)
            return {"file": size, "wal_before_checkpoint": wal_before, "used_pages_bytes": used,
                    **counts}  # fmt: skip

        asyncio.run(_fill(store, run, template, sample))
        counts = store.counts()
        run.final_responses, run.final_conversations = counts["responses"], counts["conversations"]
        run.final_keys = sum(counts.values())
        run.evicted = store.evicted
        asyncio.run(store.close())
    return run


def measure_redis(run: Run, template: Any, url: str) -> Run:
    import redis

    from reference_impl.stores.redis import RedisStore

    client = redis.Redis.from_url(url)
    client.flushdb()
    baseline = int(client.info("memory")["used_memory"])
    limits = StoreLimits(run.cap_responses, run.cap_responses, run.cap_bytes)

    async def go() -> None:
        store = RedisStore.from_url(url, prefix="bench:", limits=limits)

        def sample() -> dict[str, int]:
            used = int(client.info("memory")["used_memory"]) - baseline
            usage = store.usage()
            run.peak_bytes = max(run.peak_bytes, used)
            run.peak_books = max(run.peak_books, usage["bytes"])
            return {"used_memory_growth": used, "dbsize": int(client.dbsize()), **usage}

        await _fill(store, run, template, sample)
        usage = store.usage()
        run.final_responses, run.final_conversations = usage["responses"], usage["conversations"]
        run.evicted = store.evicted
        await store.close()

    asyncio.run(go())
    run.final_keys = int(client.dbsize())
    client.flushdb()
    client.close()
    return run


def report(run: Run) -> str:
    if run.config == "bytes":
        what = "file+WAL" if run.backend == "sqlite" else "used_memory growth"
        books = "used pages" if run.backend == "sqlite" else "store books"
        line = (
            f"peak {what} {run.peak_bytes / MB:.1f} MB / cap {run.cap_bytes / MB:.1f} MB "
            f"({run.peak_bytes / run.cap_bytes:.0%}); peak {books} {run.peak_books / MB:.1f} MB"
        )
    else:
        line = f"responses kept {run.final_responses:,} / cap {run.cap_responses:,}"
    if run.backend == "sqlite":
        line += f"; WAL before checkpoint at most {run.peak_wal / MB:.1f} MB"
    return (f"{run.backend:6} {run.config:5} {run.responses:,} stored in {run.seconds:.0f} s: "
            f"{line}; {run.final_responses:,} responses, {run.final_conversations:,} "
            f"conversations, {run.final_keys:,} {'keys' if run.backend == 'redis' else 'rows'}, "
            f"{run.evicted:,} evicted; {'WITHIN' if run.within else 'OVER'} the cap")  # fmt: skip


def _backends(text: str) -> list[str]:
    """``--backends``: a comma list of sqlite and redis, each once (anything else was run as redis)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in ("sqlite", "redis")]
    if not names or unknown or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"expected sqlite, redis or sqlite,redis (each once), got {text!r}"
        )
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--responses", type=positive_int, default=100_000)
    parser.add_argument("--max-bytes", type=byte_size, default=64 * 2**20)
    parser.add_argument("--max-responses", type=positive_int, default=10_000)
    parser.add_argument("--backends", type=_backends, default="sqlite,redis")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    try:
        template = _template()
        runs: list[Run] = []
        backends: list[str] = args.backends
        configs = [
            ("bytes", args.max_bytes, 10**9),
            ("count", DEFAULT_MAX_BYTES, args.max_responses),
        ]
        with redis_server() as url:
            for backend in backends:
                for config, cap_bytes, cap_responses in configs:
                    run = Run(backend, config, args.responses, cap_bytes, cap_responses)
                    if backend == "sqlite":
                        runs.append(measure_sqlite(run, template))
                    elif url is None:
                        print("redis: redis-server is not installed; skipped", file=sys.stderr)
                        break
                    else:
                        runs.append(measure_redis(run, template, url))
                    print(report(runs[-1]), flush=True)
    except (OSError, RuntimeError, ImportError) as error:
        print(f"store_retention: {error}", file=sys.stderr)
        return 2
    print(f"one response: {len(json.dumps(template[0])):,} B of JSON, its input items "
          f"{len(json.dumps(template[1])):,} B; {os.cpu_count()} CPUs, loadavg "
          f"{os.getloadavg()[0]:.1f} (shared machine: the seconds are noise)")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=2))
    return 0 if all(r.within for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
