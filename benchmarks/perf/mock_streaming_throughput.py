"""Streaming throughput of the mock server, in events per **server** CPU-second, against a bare
Starlette/uvicorn endpoint that replays the same bytes.

    python benchmarks/perf/mock_streaming_throughput.py [--preset long|short] [--rounds 9] [--streams 6]
                                                   [--json out.json]

Presets (``--preset``; the options after it still override it):

- ``long`` (the default): ``--scenario long-text --chunk 1 --frozen-time``, the request below,
  517 events per stream: the per-event cost (target ratio 0.65);
- ``short``: the mock with its **default flags** (``--seed 1`` only: the ``auto`` scenario, one
  token per delta, the real clock, the in-memory store) answering the plain-text request
  ``"Describe a lighthouse."`` with 68 events per stream, on the same 16 keep-alive connections
  and the same pinning, 30 streams per connection and round (so each sample is ~0.5 server
  CPU-s, well above the clock's 10 ms tick): the per-request cost (target
  ratio 0.85).

What runs:

- **mock**: ``responses-mock --port 0 --seed 1 --frozen-time --scenario long-text --chunk 1``
  (``long``; ``responses-mock --port 0 --seed 1`` for ``short``: its console entry point, a separate process; the default in-memory store, so every response is
  stored as a client would have it);
- **bare**: this script's ``--serve-replay FILE`` mode, a Starlette app whose one route returns a
  ``StreamingResponse`` over the HTTP chunks captured from the mock for the same request — the
  same bytes in the same body writes as the mock's (one per event today; the run fails if the
  capture's chunks are not whole SSE frames, and reports ``body_writes_per_stream``), with the
  mock's response headers — served by uvicorn with the same settings
  as the mock's CLI (default loop and HTTP implementation, log level ``warning``, the same listening
  socket, so that asyncio turns Nagle's algorithm off for both: see :func:`serve_replay`).

- **bare-per-event** (only when the mock writes several events at once): the same app replaying
  the same bytes one write per SSE frame, as every server did before the mock batched its writes
  (the baseline the 0.85 target was stated against); its ratio is printed as ``ratio/event``.

Both servers are pinned to ``--server-cpu`` and this process (the load generator) to
``--client-cpu``. The load: ``--connections`` (16) keep-alive HTTP/1.1 connections, each sending
``--streams`` streaming requests back to back; every stream must deliver the captured number of
frames or the run fails. Per round and server: one warm-up stream per connection, then the server's
CPU time (user + system, ``psutil``) is read before and after the measured streams. Rounds alternate
the servers (ABBA order) and the summary gives medians. The machine may be shared: CPU time of
the server process is what is compared, not wall time, and wall rates are shown only as context.

The client is a minimal asyncio HTTP/1.1 client that counts ``\\n\\n`` frame ends in the raw
chunked body (a chunk-size line never contains two consecutive LFs), so its own cost per event
is small and it does not throttle either server.

Profiling the server: on a busy machine a sampling profiler that reads stacks by wall clock
(py-spy) charges the time a process waits for a CPU to wherever it was preempted — mostly
syscall returns, so ``socket.send`` looks far more expensive than it is. CPU-time sampling is
honest: run the mock under Python >= 3.12 with ``-X perf`` and ``perf record -e cpu-clock
--call-graph dwarf -p PID`` while this benchmark loads it, then attribute each sample to its
innermost ``py::`` frame.

Exit codes: 0 measured (the ratio is reported, not enforced), 2 the run broke (a server did not
start, a stream was short or malformed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from benchmarks.perf.cli_args import allowed_cpu, positive_int
from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import Server, start_server
from benchmarks.perf.stream_client import (
    Sample,
    capture_chunks,
    load_round,
    split_frames,
)

TARGET_RATIO = 0.65
PER_EVENT = "bare-per-event"
DEFAULT_BODY = {
    "model": "mock",
    "input": "Tell me a long story about a lighthouse keeper.",
    "stream": True,
}


@dataclass(frozen=True)
class Preset:
    """One named configuration (see the module docstring)."""

    scenario: str | None  # None: the mock's default (no --scenario flag)
    chunk: str | None  # None: the mock's default (no --chunk flag)
    frozen_time: bool
    input: str
    target_ratio: float
    streams: int  # measured streams per connection and round
    min_events: int  # fewer events per stream than this: a warning (not this configuration)


PRESETS = {
    "long": Preset("long-text", "1", True, str(DEFAULT_BODY["input"]), TARGET_RATIO, 6, 200),
    "short": Preset(None, None, False, "Describe a lighthouse.", 0.85, 30, 50),
}
# --- servers ----------------------------------------------------------------------------------


def mock_command(args: argparse.Namespace) -> list[str]:
    entry = Path(sys.executable).with_name("responses-mock")
    base = [str(entry)] if entry.exists() else [sys.executable, "-m", "mock_server.cli"]
    preset = PRESETS[args.preset]
    scenario = args.scenario if args.scenario is not None else preset.scenario
    chunk = args.chunk if args.chunk is not None else preset.chunk
    return [
        *base,
        "--port",
        "0",
        "--seed",
        "1",
        *(["--frozen-time"] if preset.frozen_time else []),
        *(["--scenario", scenario] if scenario is not None else []),
        *(["--chunk", chunk] if chunk is not None else []),
        *args.mock_arg,
    ]


def replay_app(body: bytes, sizes: Sequence[int] | None = None) -> Any:
    """The bare endpoint: the captured body in the mock's writes (``sizes``: the byte count of
    each; None: one per SSE frame), one ``StreamingResponse`` body write each."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    if sizes is None:
        frames = split_frames(body)
    else:
        frames, start = [], 0
        for size in sizes:
            frames.append(body[start : start + size])
            start += size
        if start != len(body):
            raise RunError("the chunk sizes do not add up to the captured body")

    async def replay() -> Any:
        for frame in frames:
            yield frame

    async def endpoint(request: Request) -> StreamingResponse:
        await request.body()  # read like the mock does; its content is ignored
        return StreamingResponse(
            replay(),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},  # the mock's
        )

    return Starlette(routes=[Route("/v1/responses", endpoint, methods=["POST"])])


def serve_replay(path: Path) -> int:
    """``--serve-replay FILE``: the bare server, bound, started and announced by the very functions
    ``responses-mock`` uses (:func:`reference_impl.server.bind` and ``serve_socket``).

    The socket matters: made from ``getaddrinfo`` its protocol is IPPROTO_TCP, and asyncio turns
    Nagle's algorithm off (TCP_NODELAY) only on connections accepted from such a socket. A bare
    server once bound with protocol 0 kept Nagle on, so the kernel merged its one-write-per-event
    frames into ~64 KB segments (a stream arrived in ~3 reads, its tail ~40 ms late behind a
    delayed ACK) while the mock's went out one segment each: the merging, not the server, saved
    the bare most of its per-event kernel and wake-up cost.
    """
    from reference_impl.server import bind, serve_socket

    sizes_file = path.with_name(path.name + ".chunks.json")
    sizes = json.loads(sizes_file.read_text()) if sizes_file.exists() else None
    serve_socket(replay_app(path.read_bytes(), sizes), bind("127.0.0.1", 0), "warning")
    return 0


# --- the run ----------------------------------------------------------------------------------


@dataclass
class Results:
    settings: dict[str, Any]
    samples: list[Sample] = field(default_factory=list)

    def rates(self, name: str) -> list[float]:
        return [s.events_per_cpu_s for s in self.samples if s.server == name]

    def summary(self) -> dict[str, Any]:
        target = self.settings.get("target_ratio", TARGET_RATIO)
        mock, bare = self.rates("mock"), self.rates("bare")
        rounds = sorted({s.round for s in self.samples})
        per_round = [
            m.events_per_cpu_s / b.events_per_cpu_s
            for r in rounds
            for m in self.samples
            if m.server == "mock" and m.round == r
            for b in self.samples
            if b.server == "bare" and b.round == r
        ]
        wall = {
            name: statistics.median(s.events_per_wall_s for s in self.samples if s.server == name)
            for name in ("mock", "bare")
        }
        ratio = statistics.median(mock) / statistics.median(bare)
        return {
            "mock_events_per_cpu_s_median": statistics.median(mock),
            "bare_events_per_cpu_s_median": statistics.median(bare),
            "ratio": ratio,
            "ratio_per_round": per_round,
            "ratio_per_round_median": statistics.median(per_round),
            # On a shared machine the least disturbed round is the best estimate of each cost.
            "mock_events_per_cpu_s_best": max(mock),
            "bare_events_per_cpu_s_best": max(bare),
            "ratio_best": max(mock) / max(bare),
            "mock_events_per_wall_s_median": wall["mock"],
            "bare_events_per_wall_s_median": wall["bare"],
            "target_ratio": target,
            # The targets (0.65 and 0.85) were stated against a bare that writes one
            # event at a time, as every server then did: with the per-event bare measured, the
            # verdict is on it; "ratio" (the same writes as the mock) is printed beside it.
            "meets_target": ratio >= target,
            # Against a bare with the mock's own writes: the mock's own work per request. Kept
            # beside the verdict, never folded into it, so neither baseline hides the other.
            "meets_target_same_writes": ratio >= target,
            **self._per_event(mock, target),
        }

    def _per_event(self, mock: list[float], target: float) -> dict[str, Any]:
        per_event = self.rates(PER_EVENT)
        if not per_event:
            return {}
        ratio = statistics.median(mock) / statistics.median(per_event)
        return {
            "bare_per_event_events_per_cpu_s_median": statistics.median(per_event),
            "ratio_vs_per_event_bare": ratio,
            "meets_target": ratio >= target,
            "target_baseline": "bare_per_event",
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "samples": [
                {
                    "server": s.server,
                    "round": s.round,
                    "events": s.events,
                    "cpu_seconds": s.cpu_seconds,
                    "wall_seconds": s.wall_seconds,
                    "events_per_cpu_s": s.events_per_cpu_s,
                    "events_per_wall_s": s.events_per_wall_s,
                }
                for s in self.samples
            ],
            "summary": self.summary(),
        }


def _cpus(args: argparse.Namespace) -> tuple[int | None, int | None]:
    if not hasattr(os, "sched_getaffinity") or args.no_pin:
        return None, None
    allowed = sorted(os.sched_getaffinity(0))
    server = args.server_cpu if args.server_cpu is not None else allowed[0]
    client = args.client_cpu if args.client_cpu is not None else allowed[-1]
    return server, client


def _http_impl() -> str:
    names = []
    for module, label in (("uvloop", "uvloop"), ("httptools", "httptools")):
        try:
            __import__(module)
            names.append(label)
        except ImportError:
            names.append(f"no {label}")
    return ", ".join(names)


@contextlib.contextmanager
def servers(args: argparse.Namespace, body: bytes, cpu: int | None) -> Iterator[dict[str, Any]]:
    started: list[Server] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            mock = start_server("mock", mock_command(args), cpu, quiet=not args.verbose)
            started.append(mock)
            chunks = asyncio.run(capture_chunks(mock.host, mock.port, body))
            captured = b"".join(chunks)
            if any(not chunk.endswith(b"\n\n") for chunk in chunks):
                raise RunError("the mock wrote a body chunk that is not whole SSE frames")
            frames_file = Path(tmp) / "frames.sse"
            frames_file.write_bytes(captured)
            # The bare replays the mock's very writes: same bytes, same chunks.
            frames_file.with_name(frames_file.name + ".chunks.json").write_text(
                json.dumps([len(chunk) for chunk in chunks])
            )
            replay_cmd = [sys.executable, str(Path(__file__).resolve())]
            bare = start_server(
                "bare",
                [*replay_cmd, "--serve-replay", str(frames_file)],
                cpu,
                quiet=not args.verbose,
            )
            started.append(bare)
            running = {"mock": mock, "bare": bare, "captured": captured, "writes": len(chunks)}
            if len(chunks) != len(split_frames(captured)):
                per_event_file = Path(tmp) / "per-event.sse"  # no chunk sizes: one write a frame
                per_event_file.write_bytes(captured)
                per_event = start_server(
                    PER_EVENT,
                    [*replay_cmd, "--serve-replay", str(per_event_file)],
                    cpu,
                    quiet=not args.verbose,
                )
                started.append(per_event)
                running[PER_EVENT] = per_event
            yield running
        finally:
            for server in started:
                server.stop()


def judge_stream(captured: bytes) -> int | None:
    """Violations of the captured stream under the judge's ``--strict`` rules (None: no judge)."""
    try:
        from conformance import SSEStreamValidator, failing
    except ImportError:
        return None
    sse = SSEStreamValidator()
    sse.feed(captured)
    sse.close()
    return len(failing(sse.violations, strict=True))


def run(args: argparse.Namespace) -> Results:
    server_cpu, client_cpu = _cpus(args)
    if client_cpu is not None:
        allowed = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {client_cpu})
        try:
            return _run(args, server_cpu, client_cpu)
        finally:
            os.sched_setaffinity(0, allowed)
    return _run(args, server_cpu, client_cpu)


def _run(args: argparse.Namespace, server_cpu: int | None, client_cpu: int | None) -> Results:
    preset = PRESETS[args.preset]
    body = orjson.dumps(
        {
            **DEFAULT_BODY,
            "input": args.input if args.input is not None else preset.input,
            **({"max_output_tokens": args.max_output_tokens} if args.max_output_tokens else {}),
        }
    )
    with servers(args, body, server_cpu) as running:
        captured: bytes = running["captured"]
        frames = split_frames(captured)
        if len(frames) < 2 or frames[-1] != b"data: [DONE]\n\n":
            raise RunError("the captured stream does not end with data: [DONE]")
        settings = {
            "preset": args.preset,
            "target_ratio": preset.target_ratio,
            "mock_command": mock_command(args),
            "request": orjson.loads(body),
            "events_per_stream": len(frames) - 1,
            "bytes_per_stream": len(captured),
            "body_writes_per_stream": running["writes"],
            "connections": args.connections,
            "streams_per_connection": args.streams,
            "rounds": args.rounds,
            "server_cpu": server_cpu,
            "client_cpu": client_cpu,
            "os_cpus": os.cpu_count(),
            "python": platform.python_version(),
            "http": _http_impl(),
            "judge_violations_strict": judge_stream(captured),
            "load_average_start": _loadavg(),
        }
        if settings["events_per_stream"] < preset.min_events:
            print(
                f"warning: {settings['events_per_stream']} events per stream (< "
                f"{preset.min_events} of the {args.preset!r} preset)",
                file=sys.stderr,
            )
        results = Results(settings)
        for rnd in range(args.rounds):
            names = ["mock", "bare", *([PER_EVENT] if PER_EVENT in running else [])]
            shift = rnd % len(names)
            order = names[shift:] + names[:shift]  # two servers: ABBA, as before
            for name in order:
                sample = asyncio.run(
                    load_round(
                        running[name], body, len(frames), args.connections, args.streams, rnd
                    )
                )
                results.samples.append(sample)
                print(
                    f"round {rnd + 1}/{args.rounds} {name:4}: {sample.events:>8,} events  "
                    f"{sample.cpu_seconds:6.2f} server CPU-s  "
                    f"{sample.events_per_cpu_s:>9,.0f} events/CPU-s  "
                    f"({sample.events_per_wall_s:,.0f}/wall-s)",
                    flush=True,
                )
        settings["load_average_end"] = _loadavg()
    return results


def _loadavg() -> list[float] | None:
    """The 1/5/15-minute load averages (None where the OS has none): context for a shared
    machine, whose other processes slow both servers' wall time, not their CPU time."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def print_summary(results: Results) -> None:
    s, summary = results.settings, results.summary()
    print()
    print(
        f"stream: {s['events_per_stream']} events, {s['bytes_per_stream']:,} bytes in "
        f"{s['body_writes_per_stream']} body writes, replayed as such by the bare "
        f"(judge --strict violations: {s['judge_violations_strict']})"
    )
    print(
        f"load: {s['connections']} keep-alive connections x {s['streams_per_connection']} "
        f"streams per round, {s['rounds']} rounds; server CPU {s['server_cpu']}, "
        f"client CPU {s['client_cpu']}; {s['http']}; load average {s['load_average_start']} "
        f"-> {s.get('load_average_end')}"
    )
    print(f"mock:  {summary['mock_events_per_cpu_s_median']:>10,.0f} events per server CPU-s")
    print(f"bare:  {summary['bare_events_per_cpu_s_median']:>10,.0f} events per server CPU-s")
    same = "meets" if summary["meets_target_same_writes"] else "below"
    on_per_event = "ratio_vs_per_event_bare" in summary
    print(
        f"ratio: {summary['ratio']:>10.2f}  ({same} the target {summary['target_ratio']} against "
        f"a bare with the mock's own body writes; preset {s['preset']}; per-round "
        f"median {summary['ratio_per_round_median']:.2f}, range "
        f"{min(summary['ratio_per_round']):.2f}-{max(summary['ratio_per_round']):.2f}; "
        f"best round of each: {summary['ratio_best']:.2f})"
    )
    if on_per_event:
        verdict = "meets" if summary["meets_target"] else "below"
        print(
            f"bare/event: {summary['bare_per_event_events_per_cpu_s_median']:>10,.0f} events per "
            "server CPU-s (the same bytes, one write per event)"
        )
        print(
            f"ratio/event: {summary['ratio_vs_per_event_bare']:>9.2f}  ({verdict} the target "
            f"{summary['target_ratio']} against the per-event bare, the bare as the issue was "
            "filed; the mock writes fewer chunks, so this counts its batching too)"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="Exit codes: 0 measured, 2 the run broke.",
    )
    parser.add_argument(
        "--rounds", type=positive_int, default=9, help="rounds per server (default: 9)"
    )
    parser.add_argument(
        "--streams",
        type=positive_int,
        default=None,
        help="measured streams per connection (default: the preset's; 6 for long, 30 for short)",
    )
    parser.add_argument(
        "--connections", type=positive_int, default=16, help="keep-alive connections (default: 16)"
    )
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="long",
        help="long: 517-event long-text streams (default); short: the mock's default flags, "
        "a 67-event plain-text answer (see the module docstring)",
    )
    parser.add_argument(
        "--scenario", default=None, help="mock scenario (default: the preset's; long-text)"
    )
    parser.add_argument(
        "--chunk", default=None, help="mock tokens per delta (default: the preset's; 1)"
    )
    parser.add_argument("--input", default=None, help="the request's input (default: preset's)")
    parser.add_argument("--max-output-tokens", type=positive_int, default=None)
    parser.add_argument(
        "--mock-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for responses-mock (repeatable), e.g. --mock-arg=--store=memory:100",
    )
    parser.add_argument(
        "--server-cpu", type=allowed_cpu, default=None, help="default: first allowed CPU"
    )
    parser.add_argument(
        "--client-cpu", type=allowed_cpu, default=None, help="default: last allowed CPU"
    )
    parser.add_argument("--no-pin", action="store_true", help="do not pin processes to CPUs")
    parser.add_argument("--verbose", action="store_true", help="show the servers' stderr")
    parser.add_argument("--json", type=Path, default=None, help="write samples and summary here")
    parser.add_argument("--serve-replay", type=Path, default=None, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.streams is None:
        args.streams = PRESETS[args.preset].streams
    if args.serve_replay is not None:
        return serve_replay(args.serve_replay)
    try:
        results = run(args)
    except (RunError, OSError, asyncio.IncompleteReadError) as error:
        print(f"mock_streaming_throughput: {error}", file=sys.stderr)
        return 2
    print_summary(results)
    if args.json:
        args.json.write_text(json.dumps(results.as_json(), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
