"""What the validating proxy costs a client: TTFT and per-event latency through it against direct,
and the proxy's CPU per event (docs/proxy.md, Overhead).

The mock (``responses-mock --ttft T --inter-token I``, one event per chunk) and the proxy
(``responses-conformance proxy --quiet``) run as separate processes, each pinned to its own core
when there are two or more; the client (this process) sends ``--streams`` concurrent streamed
creates, in rounds that alternate direct and through the proxy, so both see the same load. Per
stream it stamps the first ``output_text.delta`` (TTFT) and every event's arrival (per-event
latency: the gap between consecutive deltas). The proxy's CPU is read (``benchmarks.perf.process_cpu``)
over its rounds and divided into the events it forwarded and judged; the validating client's
rate (``benchmarks.perf.client_cost``, the judge on one core, no network) is measured in the same run.

    python -m benchmarks.perf.proxy_overhead [--streams 16] [--rounds 6] [--ttft 0.05]
        [--inter-token 0.002] [--baseline-root DIR] [--json out.json]

``--baseline-root DIR``: a second proxy, from another checkout (an earlier commit, say: ``git
worktree add /tmp/base COMMIT``), in front of the same mock on the same core; the rounds rotate
direct, proxy, baseline, so that an A/B comparison is measured under the same load.

Targets: TTFT p99 through the proxy <= 1.2x direct; the proxy's events per CPU-second >= 0.5x the
validating client's. Absolute numbers on a loaded machine are noise: compare the ratios, and read
the load average printed with them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from benchmarks.perf.cli_args import non_negative_float, positive_int
from benchmarks.perf.process_cpu import process_cpu, process_cpu_seconds
from benchmarks.perf.servers import PROXY_READY, start_server
from benchmarks.responses_bench.histogram import quantile

ROOT = Path(__file__).resolve().parents[2]
TTFT_TARGET = 1.2
CPU_TARGET = 0.5


@dataclass
class Sample:
    ttft: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    events: int = 0
    failed: int = 0


def _pct(values: list[float], q: float) -> float:
    """The bench's percentile (nearest rank, :func:`quantile`) of ``q`` in [0, 1]; NaN for none."""
    value = quantile(values, q * 100)
    return float("nan") if value is None else value


_FLOOR_READY = re.compile(r"^floor: (?P<port>\d+)")  # it binds 127.0.0.1


def _proxy(upstream: str, cpu: int | None, root: Path) -> subprocess.Popen[bytes]:
    proxy = start_server(
        "proxy",
        [sys.executable, "-m", "conformance.cli", "proxy", "--upstream", upstream, "--port", "0",
         "--quiet"],
        cpu, timeout=60, cwd=root, ready=PROXY_READY,
    )  # fmt: skip
    proxy.process.args = f"{proxy.origin}/v1"  # its base URL, for the rounds
    return proxy.process


def _floor(upstream: str, cpu: int | None) -> subprocess.Popen[bytes]:
    """``benchmarks.perf.forward_floor`` in front of the mock: a relay that parses nothing."""
    hostport = upstream.split("://", 1)[1].split("/", 1)[0]
    floor = start_server(
        "floor",
        [sys.executable, "-m", "benchmarks.perf.forward_floor", "--upstream", hostport],
        cpu, timeout=60, cwd=ROOT, ready=_FLOOR_READY,
    )  # fmt: skip
    floor.process.args = f"{floor.origin}/v1"
    return floor.process


def _start(args: argparse.Namespace, cpus: list[int]) -> list[subprocess.Popen[Any]]:
    mock_cpu = cpus[0] if cpus else None
    proxy_cpu = cpus[1] if len(cpus) > 1 else mock_cpu
    mock = start_server(
        "mock",
        [sys.executable, "-m", "mock_server.cli", "--port", "0", "--frozen-time",
         "--ttft", str(args.ttft), "--inter-token", str(args.inter_token),
         "--log-level", "warning"],
        mock_cpu, timeout=60, cwd=ROOT,
    )  # fmt: skip
    upstream = f"{mock.origin}/v1"
    mock.process.args = upstream  # the base URLs, for the rounds
    started: list[subprocess.Popen[Any]] = [mock.process]
    try:
        started.append(_proxy(upstream, proxy_cpu, ROOT))
        if args.baseline_root is not None:
            started.append(_proxy(upstream, proxy_cpu, args.baseline_root))
        if args.floor:
            started.append(_floor(upstream, proxy_cpu))
    except BaseException:
        _stop(started)
        raise
    return started


def _stop(processes: list[subprocess.Popen[Any]]) -> None:
    for process in reversed(processes):
        process.terminate()
        try:
            process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


async def _one(client: httpx2.AsyncClient, base_url: str, body: bytes, sample: Sample) -> None:
    sent = time.perf_counter()
    last: float | None = None
    first = True
    async with client.stream(
        "POST", base_url + "/responses", content=body,
        headers={"content-type": "application/json"},
    ) as response:  # fmt: skip
        if response.status_code != 200:
            sample.failed += 1
            return
        async for chunk in response.aiter_raw():
            now = time.perf_counter()
            n = chunk.count(b"\n\n")
            sample.events += n
            if b"output_text.delta" in chunk:
                if first:
                    sample.ttft.append(now - sent)
                    first = False
                elif last is not None:
                    sample.gaps.append(now - last)
                last = now


async def _rounds(args: argparse.Namespace, direct: str, proxies: dict[str, tuple[str, int]]) -> dict[str, object]:  # fmt: skip
    """``proxies``: name -> (base URL, PID); rounds rotate direct and each proxy."""
    body = json.dumps(
        {"model": "mock-long-text", "input": "Tell me a long story about proxies.", "stream": True,
         "max_output_tokens": args.tokens}
    ).encode()  # fmt: skip
    targets = {"direct": (direct, 0), **proxies}
    samples = {name: Sample() for name in targets}
    # A proxy's CPU per round from its CPU clock (to the nanosecond: /proc's counters move in
    # 10 ms ticks, and a short round can read 0 there); its user/system split from the tick
    # counters' proportions over the run.
    cpu = dict.fromkeys(proxies, 0.0)
    ticks = {name: [0.0, 0.0] for name in proxies}  # user, system, from /proc
    round_rates: dict[str, list[float]] = {name: [] for name in proxies}
    client_cpu = 0.0  # this process over the direct rounds: a non-validating httpx2 client
    limits = httpx2.Limits(max_connections=args.streams * (1 + len(proxies)))
    async with httpx2.AsyncClient(timeout=120, limits=limits, trust_env=False) as client:
        for url, _ in targets.values():  # warm-up: connections, schemas
            await asyncio.gather(*(_one(client, url, body, Sample()) for _ in range(args.streams)))
        for _ in range(args.rounds):
            for name, (url, pid) in targets.items():
                (u0, s0), p0 = (process_cpu(pid) if pid else (0.0, 0.0)), time.process_time()
                c0 = process_cpu_seconds(pid) if pid else 0.0
                e0 = samples[name].events
                await asyncio.gather(
                    *(_one(client, url, body, samples[name]) for _ in range(args.streams))
                )
                if pid:
                    u1, s1 = process_cpu(pid)
                    spent = process_cpu_seconds(pid) - c0
                    cpu[name] += spent
                    ticks[name][0] += u1 - u0
                    ticks[name][1] += s1 - s0
                    if spent > 0:
                        round_rates[name].append((samples[name].events - e0) / spent)
                else:
                    client_cpu += time.process_time() - p0
    out: dict[str, object] = {}
    for name, s in samples.items():
        out[name] = {
            "streams": len(s.ttft), "failed": s.failed, "events": s.events,
            "ttft_p50_ms": _pct(s.ttft, 0.5) * 1e3, "ttft_p99_ms": _pct(s.ttft, 0.99) * 1e3,
            "event_gap_p50_ms": _pct(s.gaps, 0.5) * 1e3,
            "event_gap_p99_ms": _pct(s.gaps, 0.99) * 1e3,
            "event_gap_mean_ms": (statistics.fmean(s.gaps) * 1e3) if s.gaps else float("nan"),
        }  # fmt: skip
    direct_events = samples["direct"].events
    out["http_client_events_per_cpu_s"] = direct_events / client_cpu if client_cpu > 0 else 0.0
    for name in proxies:
        prefix = "proxy" if name == "proxy" else name
        out[f"{prefix}_cpu_s"] = cpu[name]
        tick_user, tick_system = ticks[name]
        share = tick_user / (tick_user + tick_system) if tick_user + tick_system > 0 else 1.0
        out[f"{prefix}_user_cpu_s"] = cpu[name] * share
        spent = cpu[name]
        out[f"{prefix}_events_per_cpu_s"] = (
            samples[name].events / spent if spent > 0 else float("inf")
        )
        rates = sorted(round_rates[name])
        out[f"{prefix}_round_rates"] = rates  # events per CPU-second, round by round
    return out


def _validating_client_rate(repeat: int) -> float:
    """``benchmarks.perf.client_cost``'s validating client over the recorded corpus — beside the
    package in a checkout, else under the working directory (an installed package, e.g. under
    tox, has no tests/ beside it); 0.0 when neither holds a stream."""
    from benchmarks.perf.client_cost import CLIENTS, CORPUS, corpus_streams, measure
    from benchmarks.responses_bench.meter import warm_up

    corpus = CORPUS if CORPUS.is_dir() else Path.cwd() / "tests/data/openai-recorded/streams"
    streams = corpus_streams(corpus) if corpus.is_dir() else []
    if not streams:
        return 0.0
    warm_up()
    return measure(CLIENTS["validating"], streams, repeat)


def _split_per_event(result: dict[str, object], name: str) -> tuple[float, float]:
    """``name``'s user and system CPU per event it carried, in microseconds."""
    cpu = float(result[f"{name}_cpu_s"])  # type: ignore[arg-type]
    user = float(result[f"{name}_user_cpu_s"])  # type: ignore[arg-type]
    row = result[name]
    assert isinstance(row, dict)
    per_event = 1e6 / max(int(row["events"]), 1)
    return user * per_event, (cpu - user) * per_event


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--streams", type=positive_int, default=16, help="concurrent streams (default 16)"
    )
    parser.add_argument("--rounds", type=positive_int, default=6, help="rounds of each (default 6)")
    parser.add_argument(
        "--ttft", type=non_negative_float, default=0.05, help="the mock's --ttft (s)"
    )
    parser.add_argument(
        "--inter-token", type=non_negative_float, default=0.002, help="the mock's (s)"
    )
    parser.add_argument(
        "--tokens", type=positive_int, default=200, help="max_output_tokens per stream"
    )
    parser.add_argument("--repeat", type=positive_int, default=3, help="client_cost passes")
    parser.add_argument(
        "--baseline-root", type=Path, metavar="DIR",
        help="also measure the proxy of this checkout (A/B in the same rounds)",
    )  # fmt: skip
    parser.add_argument(
        "--no-floor", dest="floor", action="store_false",
        help="skip the floor: a relay that parses nothing (benchmarks.perf.forward_floor)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args(argv)
    if args.baseline_root is not None and not (args.baseline_root / "conformance").is_dir():
        parser.error(f"--baseline-root {args.baseline_root}: not a checkout (no conformance/)")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    load_before = os.getloadavg()
    started = _start(args, cpus)
    mock, proxy = started[0], started[1]
    proxies = {"proxy": (str(proxy.args), proxy.pid)}
    rest = started[2:]
    if args.baseline_root is not None:
        proxies["baseline"] = (str(rest[0].args), rest[0].pid)
        rest = rest[1:]
    if args.floor:
        proxies["floor"] = (str(rest[0].args), rest[0].pid)
    try:
        result = asyncio.run(_rounds(args, str(mock.args), proxies))
    finally:
        _stop(started)
    client_rate = _validating_client_rate(args.repeat)
    load_after = os.getloadavg()
    direct, proxied = result["direct"], result["proxy"]
    assert isinstance(direct, dict) and isinstance(proxied, dict)
    ttft_ratio = proxied["ttft_p99_ms"] / direct["ttft_p99_ms"]
    proxy_rate = float(result["proxy_events_per_cpu_s"])  # type: ignore[arg-type]
    if client_rate <= 0:
        print("proxy_overhead: no recorded corpus found (tests/data/openai-recorded/streams): "
              "run it from a checkout", file=sys.stderr)  # fmt: skip
        return 2
    cpu_ratio = proxy_rate / client_rate
    print(
        f"{args.streams} concurrent streams x {args.rounds} rounds each way; mock --ttft "
        f"{args.ttft} --inter-token {args.inter_token}; cpus {cpus[:2]} (mock, proxy)"
    )
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    rows = [("direct", direct), ("proxy", proxied)]
    baseline, floor = result.get("baseline"), result.get("floor")
    if isinstance(baseline, dict):
        rows.append(("baseline", baseline))
    if isinstance(floor, dict):
        rows.append(("floor", floor))
    for name, row in rows:
        print(
            f"  {name:<7} TTFT p50 {row['ttft_p50_ms']:7.1f} ms  p99 {row['ttft_p99_ms']:7.1f} ms"
            f"   event gap p50 {row['event_gap_p50_ms']:6.2f} ms  p99 "
            f"{row['event_gap_p99_ms']:6.2f} ms  ({row['events']} events, "
            f"{row['failed']} failed)"
        )
    verdict = "met" if ttft_ratio <= TTFT_TARGET else "NOT met"
    print(f"  TTFT p99 proxy/direct {ttft_ratio:.2f}x (target <= {TTFT_TARGET}x: {verdict})")
    print(
        f"  proxy {proxy_rate:,.0f} events/CPU-s ({1e6 / proxy_rate:.1f} us CPU per event); "
        f"validating client {client_rate:,.0f} events/CPU-s"
    )
    http_rate = float(result["http_client_events_per_cpu_s"])  # type: ignore[arg-type]
    if http_rate:
        print(
            f"  for scale: this benchmark's own httpx2 client (no validation, direct rounds) "
            f"{http_rate:,.0f} events/CPU-s; proxy/that client {proxy_rate / http_rate:.2f}x"
        )
    verdict = "met" if cpu_ratio >= CPU_TARGET else "NOT met"
    print(f"  proxy/validating client {cpu_ratio:.2f}x (target >= {CPU_TARGET}x: {verdict})")
    user_us, system_us = _split_per_event(result, "proxy")
    print(
        f"  proxy CPU per event: user {user_us:.1f} us, system {system_us:.1f} us; the target "
        f"allows {1e6 / (CPU_TARGET * client_rate):.1f} us in all"
    )
    if isinstance(floor, dict):
        floor_rate = float(result["floor_events_per_cpu_s"])  # type: ignore[arg-type]
        user_us, system_us = _split_per_event(result, "floor")
        print(
            f"  floor (a relay that parses nothing, benchmarks.perf.forward_floor) "
            f"{floor_rate:,.0f} events/CPU-s ({1e6 / floor_rate:.1f} us per event: user "
            f"{user_us:.1f}, system {system_us:.1f}); floor/validating client "
            f"{floor_rate / client_rate:.2f}x; proxy CPU per event / floor's "
            f"{floor_rate / proxy_rate:.2f}x; TTFT p99 floor/direct "
            f"{floor['ttft_p99_ms'] / direct['ttft_p99_ms']:.2f}x"
        )
    rates = result["proxy_round_rates"]
    assert isinstance(rates, list)
    if rates:
        print(
            f"  proxy events/CPU-s by round: median {statistics.median(rates):,.0f}, "
            f"min {rates[0]:,.0f}, max {rates[-1]:,.0f}"
        )
    if isinstance(baseline, dict):
        base_rate = float(result["baseline_events_per_cpu_s"])  # type: ignore[arg-type]
        base_rates = result["baseline_round_rates"]
        assert isinstance(base_rates, list)
        print(
            f"  baseline ({args.baseline_root}) {base_rate:,.0f} events/CPU-s "
            f"({1e6 / base_rate:.1f} us CPU per event), by round: median "
            f"{statistics.median(base_rates):,.0f}, min {base_rates[0]:,.0f}, max "
            f"{base_rates[-1]:,.0f}; TTFT p99 baseline/direct "
            f"{baseline['ttft_p99_ms'] / direct['ttft_p99_ms']:.2f}x; proxy/baseline CPU rate "
            f"{proxy_rate / base_rate:.2f}x; baseline/validating client "
            f"{base_rate / client_rate:.2f}x"
        )
    if args.json:
        doc = {**result, "client_events_per_cpu_s": client_rate, "ttft_p99_ratio": ttft_ratio,
               "cpu_ratio": cpu_ratio, "load_before": load_before, "load_after": load_after}  # fmt: skip
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
