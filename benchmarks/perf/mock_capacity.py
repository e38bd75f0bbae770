"""How many concurrent streams one ``responses-mock`` process keeps pace with:
a sweep of concurrency levels against a mock that paces its answers like a model.

    python -m benchmarks.perf.mock_capacity [--concurrency 100,200,400,1000,3000] [--streams 2]
        [--ttft 0.2] [--inter-token 0.02] [--workers 1] [--server-cpu 0] [--client-cpu 1]
        [--timeout 60] [--json out.json]

What runs: ``responses-mock --port 0 --seed 1 --ttft T --inter-token I`` (with ``--workers N > 1``
also ``--store sqlite:…``, a fresh file; the workers then share the port and are not pinned), the
default plain-text answer (~67 events, so an ideal stream lasts ``T + 60 × I``: 1.4 s with the
defaults, a model at 50 tokens/s). With latency every delta is its own body write when it is
due, so this measures what a paced stream costs: one write per event, the timers, the
connection. Per level ``C`` the client (this process, one event loop, uvloop's where installed, pinned to
``--client-cpu``) opens ``C`` keep-alive connections over ``--ramp`` seconds and sends ``--streams``
streaming requests on each, back to back, each with a ``--timeout`` deadline. Per level it
prints:

- **ok / failed**: streams that delivered every frame in time / those that did not (refused,
  reset, short, or past the deadline: counted, not fatal: that is the point past capacity);
- **events/s**: the events delivered per wall-second while the level ran;
- **server / client**: the server's CPU-seconds (its process tree) per wall-second, 1.0 a whole
  core, and this client's (an asyncio protocol per connection, a few byte searches per read:
  when it nears 1.0 the client, not the server, is what falls behind);
- **TTFT p50 / p99**: from the request's write to its first text delta, against the ``--ttft`` asked;
- **stretch p50 / p99**: a stream's time from first to last frame over the ideal
  ``(deltas - 1) × --inter-token`` as the mock paces it: 1.0 is on time; a saturated server falls
  behind its own timers and every stream stretches.

A level **keeps pace** when no stream failed and the p99 stretch is at most 1.25; the capacity
is the highest such level (and the printout says when the server's core was saturated). Numbers
only: the client shares this machine, so read them as a lower bound of what a dedicated core
serves. Levels are bounded (at most 20,000 connections, loopback only).

Exit codes: 0 measured, 2 the run broke (the server did not start, a bad option).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from benchmarks.perf.cli_args import (
    allowed_cpu,
    non_negative_float,
    positive_float,
    positive_int,
    positive_ints,
)
from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import Server, ServerTree, start_server
from benchmarks.perf.stream_client import capture, request_bytes
from benchmarks.responses_bench.histogram import quantile

__all__ = ["Level", "main", "sweep"]

MAX_CONNECTIONS = 20_000
KEEPS_PACE_STRETCH = 1.25
_END = b"\r\n0\r\n\r\n"  # the last chunk of a chunked body
_DELTA = b"event: response.output_text.delta\n"  # a first token
_TAIL = len(_DELTA)  # bytes of the previous read kept: a marker split across two reads is seen
BODY = json.dumps({"model": "mock", "input": "Describe a lighthouse.", "stream": True}).encode()


@dataclass
class Level:
    concurrency: int
    streams: int  # requested: concurrency × --streams
    ok: int
    failed: int
    failures: dict[str, int]
    wall_seconds: float
    server_cpu_seconds: float
    events: int
    client_cpu_seconds: float = 0.0
    ttft_ms: list[float] = field(default_factory=list, repr=False)
    stretch: list[float] = field(default_factory=list, repr=False)

    @property
    def events_per_s(self) -> float:
        return self.events / max(self.wall_seconds, 1e-9)

    @property
    def server_cores(self) -> float:
        return self.server_cpu_seconds / max(self.wall_seconds, 1e-9)

    @property
    def client_cores(self) -> float:
        return self.client_cpu_seconds / max(self.wall_seconds, 1e-9)

    @property
    def keeps_pace(self) -> bool:
        p99 = quantile(self.stretch, 99)
        return self.failed == 0 and p99 is not None and p99 <= KEEPS_PACE_STRETCH

    def summary(self) -> dict[str, Any]:
        row = {k: v for k, v in asdict(self).items() if k not in ("ttft_ms", "stretch")}
        row.update(
            events_per_s=self.events_per_s,
            server_cores=self.server_cores,
            client_cores=self.client_cores,
            ttft_p50_ms=quantile(self.ttft_ms, 50),
            ttft_p99_ms=quantile(self.ttft_ms, 99),
            stretch_p50=quantile(self.stretch, 50),
            stretch_p99=quantile(self.stretch, 99),
            keeps_pace=self.keeps_pace,
        )
        return row


class _Streams(asyncio.Protocol):
    """One keep-alive connection sending ``streams`` requests back to back: a protocol, not a
    stream reader, so that the client's cost per read (a few byte searches) stays far below the
    server's and the client is not what falls behind."""

    def __init__(
        self, request: bytes, frames: int, streams: int, level: Level, ideal: float,
        timeout: float, done: asyncio.Future[None],
    ) -> None:  # fmt: skip
        self.request, self.frames, self.left, self.level = request, frames, streams, level
        self.ideal, self.timeout, self.done = ideal, timeout, done
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.head = b""
        self.in_head = True
        self.seen = 0
        self.sent = self.first = 0.0
        self.last = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses; both have write and close
        self.transport = cast(asyncio.Transport, transport)
        self._send()

    def _send(self) -> None:
        assert self.transport is not None
        self.in_head, self.head, self.seen, self.first, self.last = True, b"", 0, 0.0, b""
        self.sent = time.perf_counter()
        self.timer = asyncio.get_running_loop().call_later(self.timeout, self._expired)
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.in_head:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                if len(self.head) > 65536:
                    self._stop("response head too long")
                return
            if not self.head.startswith(b"HTTP/1.1 200"):
                self._stop(f"status {self.head[9:12].decode(errors='replace')}")
                return
            data, self.in_head = self.head[end + 4 :], False
        self.seen += data.count(b"\n\n") + (self.last.endswith(b"\n") and data.startswith(b"\n"))
        if not self.first and _DELTA in self.last + data:
            self.first = now
        self.last = (self.last + data[-_TAIL:])[-_TAIL:]
        if self.last.endswith(_END):
            self._finished(now)

    def _finished(self, now: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.seen != self.frames or not self.first:
            self._stop("short stream")
            return
        level = self.level
        level.ok += 1
        level.events += self.frames - 1  # every frame but the closing `data: [DONE]`
        level.ttft_ms.append((self.first - self.sent) * 1000)
        level.stretch.append((now - self.first) / self.ideal)
        self.left -= 1
        if self.left:
            self._send()
        else:
            self._stop(None)

    def _expired(self) -> None:
        self._stop("past the deadline")

    def _stop(self, why: str | None) -> None:
        """Done: ``why`` the rest of this connection's streams failed (None: none did)."""
        if self.done.done():
            return
        if why is not None:
            _fail(self.level, why, self.left)
        if self.timer is not None:
            self.timer.cancel()
        if self.transport is not None:
            self.transport.close()
        self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop("closed mid-stream" if exc is None else type(exc).__name__)


async def _connection(
    server: Server, request: bytes, frames: int, streams: int, delay: float, timeout: float,
    level: Level, ideal: float,
) -> None:  # fmt: skip
    await asyncio.sleep(delay)
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    protocol = _Streams(request, frames, streams, level, ideal, timeout, done)
    try:
        await asyncio.wait_for(
            loop.create_connection(lambda: protocol, server.host, server.port), timeout
        )
    except (TimeoutError, OSError) as error:
        _fail(level, f"connect: {type(error).__name__}", streams)
        return
    await done


def _fail(level: Level, why: str, count: int) -> None:
    level.failed += count
    level.failures[why] = level.failures.get(why, 0) + count


async def _level(
    server: Server, concurrency: int, streams: int, frames: int, deltas: int,
    args: argparse.Namespace,
) -> Level:  # fmt: skip
    request = request_bytes(server.host, server.port, BODY)
    level = Level(concurrency, concurrency * streams, 0, 0, {}, 0.0, 0.0, 0)
    ideal = max(deltas - 1, 1) * args.inter_token
    cpu0, wall0, mine0 = server.cpu_seconds(), time.perf_counter(), time.process_time()
    ramp = [args.ramp * i / concurrency for i in range(concurrency)]
    await asyncio.gather(
        *(
            _connection(server, request, frames, streams, d, args.timeout, level, ideal)
            for d in ramp
        )
    )
    level.wall_seconds = time.perf_counter() - wall0
    level.server_cpu_seconds = server.cpu_seconds() - cpu0
    level.client_cpu_seconds = time.process_time() - mine0
    return level


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop for the client where it is installed (the mock serves on it too): its
    reads cost the client less than the default loop's."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


@contextmanager
def _mock(args: argparse.Namespace) -> Iterator[Server]:
    with ExitStack() as stack:
        argv = [sys.executable, "-m", "mock_server.cli", "--port", "0", "--seed", "1",
                "--ttft", str(args.ttft), "--inter-token", str(args.inter_token)]  # fmt: skip
        cpu: int | None = args.server_cpu
        if args.workers > 1:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="capacity-"))
            argv += ["--workers", str(args.workers), "--store", f"sqlite:{Path(tmp) / 's.db'}"]
            cpu = None  # several processes: the kernel spreads them
        started = start_server("mock", argv, cpu, timeout=90)
        server = ServerTree.of(started)
        try:
            yield server
        finally:
            server.stop()


def sweep(args: argparse.Namespace) -> tuple[list[Level], dict[str, Any]]:
    """Every level of ``args.concurrency`` against one mock; this process pinned to
    ``args.client_cpu`` meanwhile (and given back its CPUs after)."""
    if args.client_cpu is None or not hasattr(os, "sched_setaffinity"):
        return _sweep(args)
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {args.client_cpu})
    try:
        return _sweep(args)
    finally:
        os.sched_setaffinity(0, allowed)


def _sweep(args: argparse.Namespace) -> tuple[list[Level], dict[str, Any]]:
    settings: dict[str, Any] = {
        "concurrency": args.concurrency, "streams_per_connection": args.streams,
        "ttft": args.ttft, "inter_token": args.inter_token, "workers": args.workers,
        "server_cpu": args.server_cpu if args.workers == 1 else None,
        "client_cpu": args.client_cpu, "timeout": args.timeout, "ramp": args.ramp,
        "cpus": os.cpu_count(), "loadavg_before": os.getloadavg()[0],
    }  # fmt: skip
    levels: list[Level] = []
    with _mock(args) as server:
        body = asyncio.run(capture(server.host, server.port, BODY))
        frames, deltas = body.count(b"\n\n"), body.count(_DELTA)
        if not deltas:
            raise RunError("the mock's answer has no text delta")
        settings["events_per_stream"], settings["deltas_per_stream"] = frames - 1, deltas
        for concurrency in args.concurrency:
            with asyncio.Runner(loop_factory=_loop_factory()) as runner:
                level = runner.run(_level(server, concurrency, args.streams, frames, deltas, args))
            levels.append(level)
            print(_row(level), flush=True)
    settings["loadavg_after"] = os.getloadavg()[0]
    return levels, settings


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _row(level: Level) -> str:
    failures = ", ".join(f"{why} {n}" for why, n in sorted(level.failures.items()))
    return (
        f"{level.concurrency:>7,} {level.ok:>8,} {level.failed:>7,} {level.events_per_s:>10,.0f} "
        f"{level.server_cores:>6.2f} {level.client_cores:>6.2f} {_ms(quantile(level.ttft_ms, 50)):>7} {_ms(quantile(level.ttft_ms, 99)):>7} "
        f"{_x(quantile(level.stretch, 50)):>6} {_x(quantile(level.stretch, 99)):>6}  "
        f"{'yes' if level.keeps_pace else 'no'}{'  (' + failures + ')' if failures else ''}"
    )  # fmt: skip


HEADER = (
    f"{'streams':>7} {'ok':>8} {'failed':>7} {'events/s':>10} {'server':>6} {'client':>6} {'ttft50':>7} "
    f"{'ttft99':>7} {'str50':>6} {'str99':>6}  keeps pace"
)


def _levels(text: str) -> list[int]:
    levels = positive_ints(text)
    if max(levels) > MAX_CONNECTIONS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: at most {MAX_CONNECTIONS:,} connections per level"
        )
    return levels


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.perf.mock_capacity", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--concurrency", type=_levels, default="100,200,400,1000,3000",
                        help="concurrent streams per level (connections), comma-separated")  # fmt: skip
    parser.add_argument("--streams", type=positive_int, default=2,
                        help="streams per connection and level, back to back")  # fmt: skip
    parser.add_argument("--ttft", type=non_negative_float, default=0.2)
    parser.add_argument("--inter-token", type=positive_float, default=0.02)
    parser.add_argument("--workers", type=positive_int, default=1)
    parser.add_argument("--server-cpu", type=allowed_cpu, default=None,
                        help="pin a single-worker mock to this CPU")  # fmt: skip
    parser.add_argument("--client-cpu", type=allowed_cpu, default=None)
    parser.add_argument("--timeout", type=positive_float, default=60.0,
                        help="seconds each connect, and each stream, may take")  # fmt: skip
    parser.add_argument("--ramp", type=non_negative_float, default=1.0,
                        help="seconds over which a level opens its connections")  # fmt: skip
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if args.server_cpu is None and args.client_cpu is None and len(cpus) > 1:
        args.server_cpu, args.client_cpu = cpus[0], cpus[1]
    print(HEADER, flush=True)
    try:
        levels, settings = sweep(args)
    except (RunError, OSError) as error:
        print(f"mock_capacity: {error}", file=sys.stderr)
        return 2
    kept = [lv.concurrency for lv in levels if lv.keeps_pace]
    saturated = [lv.concurrency for lv in levels if lv.server_cores >= 0.9 * args.workers]
    capacity = f"{max(kept):,} streams" if kept else "none (no level kept pace)"
    print(
        f"{settings['events_per_stream']} events per stream, ttft {args.ttft} s, inter-token "
        f"{args.inter_token} s, {args.workers} worker(s); capacity (the highest level that keeps "
        f"pace): {capacity}"
    )
    if saturated:
        print(f"server core(s) saturated from {min(saturated):,} streams")
    print(f"load average {settings['loadavg_before']:.1f} before, {settings['loadavg_after']:.1f} "
          "after; the client shares the machine: a lower bound")  # fmt: skip
    if args.json is not None:
        out = {"settings": settings, "levels": [lv.summary() for lv in levels]}
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
