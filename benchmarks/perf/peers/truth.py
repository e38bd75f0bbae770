"""Arithmetic on the wire's exchanges and the tools' numbers: truth distributions, errors, cost.

Percentiles everywhere are linear interpolation between closest ranks (numpy's default), so the
truth is summarised the way GuideLLM (numpy) and AIPerf (numpy) summarise; Locust's are its own
rounded-bucket approximations, and that is part of what the table measures.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.perf.peers.wire import WireExchange

#: the ITL definitions the tools use, each compared with the same definition on the wire
ITL_GAP = "gap"  # every gap between consecutive output deltas, pooled
ITL_REQUEST = "request-mean"  # per request (last delta - first delta) / (deltas - 1)
ITL_TPOT = "tpot"  # per request (stream end - first delta) / (deltas - 1)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), linear between closest ranks; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    lo = math.floor(rank)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo)


@dataclass
class Truth:
    """What the wire saw in one run, in milliseconds."""

    requests: int
    events: int
    ttft: list[float]
    itl: dict[str, list[float]]
    window: tuple[float, float]  # first request byte, last event (epoch seconds)


def truth_of(exchanges: Sequence[WireExchange]) -> Truth:
    """Truth over the streamed requests that finished with a terminal event and had a delta."""
    ttft: list[float] = []
    itl: dict[str, list[float]] = {ITL_GAP: [], ITL_REQUEST: [], ITL_TPOT: []}
    events = 0
    first = math.inf
    last = -math.inf
    done = 0
    for ex in exchanges:
        events += len(ex.events)
        if ex.events:
            first = min(first, ex.request_at)
            last = max(last, ex.events[-1][0])
        deltas = ex.deltas
        if ex.status != 200 or not ex.finished or not deltas:
            continue
        done += 1
        ttft.append((deltas[0] - ex.request_at) * 1000.0)
        itl[ITL_GAP].extend((b - a) * 1000.0 for a, b in itertools.pairwise(deltas))
        if len(deltas) > 1:
            n = len(deltas) - 1
            itl[ITL_REQUEST].append((deltas[-1] - deltas[0]) * 1000.0 / n)
            itl[ITL_TPOT].append((ex.events[-1][0] - deltas[0]) * 1000.0 / n)
    if first > last:
        first = last = 0.0
    return Truth(done, events, ttft, itl, (first, last))


@dataclass
class Reported:
    """What a tool printed: TTFT and ITL p50/p99 in ms, and which ITL definition it uses."""

    ttft_p50: float
    ttft_p99: float
    itl_p50: float
    itl_p99: float
    itl_kind: str
    requests: int | None = None


@dataclass
class Cell:
    """One run of one tool at one concurrency, against the wire."""

    tool: str
    streams: int
    repeat: int
    ttft_err: tuple[float, float]  # p50, p99: tool - truth, ms
    itl_err: tuple[float, float]
    truth_ttft: tuple[float, float]
    truth_itl: tuple[float, float]
    itl_kind: str
    cpu_window_s: float
    cpu_total_s: float
    events: int
    requests_wire: int
    requests_tool: int | None

    @property
    def cpu_ms_per_1k(self) -> float:
        return cpu_per_1k(self.cpu_window_s, self.events)

    @property
    def cpu_total_ms_per_1k(self) -> float:
        return cpu_per_1k(self.cpu_total_s, self.events)


def cpu_per_1k(cpu_s: float, events: int) -> float:
    """CPU milliseconds per 1,000 SSE events."""
    return math.nan if events <= 0 else cpu_s * 1000.0 / events * 1000.0


def compare(
    tool: str, streams: int, repeat: int, reported: Reported, truth: Truth, cpu: tuple[float, float]
) -> Cell:
    t50, t99 = percentile(truth.ttft, 50), percentile(truth.ttft, 99)
    itl = truth.itl[reported.itl_kind]
    i50, i99 = percentile(itl, 50), percentile(itl, 99)
    return Cell(
        tool=tool,
        streams=streams,
        repeat=repeat,
        ttft_err=(reported.ttft_p50 - t50, reported.ttft_p99 - t99),
        itl_err=(reported.itl_p50 - i50, reported.itl_p99 - i99),
        truth_ttft=(t50, t99),
        truth_itl=(i50, i99),
        itl_kind=reported.itl_kind,
        cpu_window_s=cpu[0],
        cpu_total_s=cpu[1],
        events=truth.events,
        requests_wire=truth.requests,
        requests_tool=reported.requests,
    )


def spread(values: Sequence[float]) -> tuple[float, float, float]:
    """(median, min, max) of the finite values; NaNs when there are none."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return (math.nan, math.nan, math.nan)
    return (statistics.median(finite), min(finite), max(finite))
