"""Mergeable aggregates of request records (sans-I/O, no Locust).

Each load-generating process adds its :class:`~benchmarks.responses_bench.meter.RequestRecord` s to an
:class:`Aggregate`; a Locust worker ships it to the master as a msgpack-friendly dict every report
interval (:meth:`Aggregate.drain`) and the master folds them together (:meth:`Aggregate.merge_wire`),
so the summary of a distributed run covers every worker. Three views are kept: the whole run, each
sweep step (by the step a request was *scheduled* in), and one-second buckets of completion time
(the plots over time); plus, per second of wall clock, the request-seconds in flight in it (its
mean concurrency: mergeable, unlike a maximum).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .histogram import LogHistogram
from .meter import RequestRecord

__all__ = ["HISTOGRAMS", "Aggregate", "Stats"]

# Histograms in milliseconds; `lag` is the open-loop start lag (actual − scheduled send);
# `input_tokens` / `output_tokens`: per successful request, as its usage reports them;
# `itl_request`: one sample per successful request of >= 2 output deltas, the mean of its gaps
# ((last delta − first delta) / (deltas − 1): GuideLLM's per-request ITL), beside `itl` (every gap).
HISTOGRAMS = (
    "ttft", "itl", "itl_request", "tpot", "e2e", "lag", "input_tokens", "output_tokens"
)  # fmt: skip


class Stats:
    """Counters and latency histograms of a set of requests."""

    __slots__ = (
        "busy_s",
        "causes",
        "deltas",
        "failed",
        "first_start",
        "good",
        "hists",
        "incomplete",
        "input_tokens",
        "last_end",
        "names",
        "output_tokens",
        "requests",
        "unanswered",
    )

    def __init__(self) -> None:
        self.requests = 0
        self.failed = 0
        self.incomplete = 0
        self.good = 0
        self.output_tokens = 0
        self.input_tokens = 0
        self.busy_s = 0.0  # request-seconds in flight, every request (Little's law: / window)
        self.deltas = 0
        self.unanswered = 0  # no HTTP answer at all (refused, reset, timed out before headers)
        self.names: Counter[str] = Counter()  # every failure name of every request
        self.causes: Counter[str] = Counter()  # the first name of each failed request (Locust's)
        self.hists = {name: LogHistogram() for name in HISTOGRAMS}
        self.first_start = math.inf
        self.last_end = -math.inf

    def add(self, rec: RequestRecord, good: bool) -> None:
        self.requests += 1
        if not rec.ok:
            self.failed += 1
        if rec.status == "incomplete" and rec.ok:
            self.incomplete += 1
        if good:
            self.good += 1
        # A failed request's tokens were still generated, but throughput counts delivered work.
        if rec.ok and rec.output_tokens is not None:
            self.output_tokens += rec.output_tokens
            self.hists["output_tokens"].add(rec.output_tokens)
        if rec.ok and rec.input_tokens is not None:
            self.input_tokens += rec.input_tokens
            self.hists["input_tokens"].add(rec.input_tokens)
        self.busy_s += rec.e2e or 0.0
        self.deltas += rec.deltas
        if rec.http_status is None:
            self.unanswered += 1
        self.names.update(rec.names)
        if rec.failure is not None:
            self.causes[rec.failure] += 1
        hists = self.hists
        # Latencies of failed requests would flatter a server that fails fast: successes only.
        if rec.ok:
            if rec.ttft is not None:
                hists["ttft"].add(rec.ttft * 1000)
            if rec.e2e is not None:
                hists["e2e"].add(rec.e2e * 1000)
            if rec.tpot is not None:
                hists["tpot"].add(rec.tpot * 1000)
            itl = hists["itl"]
            for gap in rec.itls:
                itl.add(gap * 1000)
            if rec.itls:
                hists["itl_request"].add(sum(rec.itls) / len(rec.itls) * 1000)
        if rec.lag is not None:
            hists["lag"].add(max(rec.lag, 0.0) * 1000)
        self.first_start = min(self.first_start, rec.start)
        self.last_end = max(self.last_end, rec.start + (rec.e2e or 0.0))

    def merge(self, other: Stats) -> None:
        self.requests += other.requests
        self.failed += other.failed
        self.incomplete += other.incomplete
        self.good += other.good
        self.output_tokens += other.output_tokens
        self.input_tokens += other.input_tokens
        self.busy_s += other.busy_s
        self.deltas += other.deltas
        self.unanswered += other.unanswered
        self.names.update(other.names)
        self.causes.update(other.causes)
        for name, hist in other.hists.items():
            self.hists[name].merge(hist)
        self.first_start = min(self.first_start, other.first_start)
        self.last_end = max(self.last_end, other.last_end)

    @property
    def window(self) -> float:
        """Seconds from the first request sent to the last one finished (0 when none)."""
        return max(self.last_end - self.first_start, 0.0) if self.requests else 0.0

    def to_wire(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "failed": self.failed,
            "incomplete": self.incomplete,
            "good": self.good,
            "output_tokens": self.output_tokens,
            "input_tokens": self.input_tokens,
            "busy_s": self.busy_s,
            "deltas": self.deltas,
            "unanswered": self.unanswered,
            "names": dict(self.names),
            "causes": dict(self.causes),
            "hists": {name: hist.to_wire() for name, hist in self.hists.items()},
            "first_start": self.first_start if self.requests else None,
            "last_end": self.last_end if self.requests else None,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Stats:
        stats = cls()
        for name in (
            "requests", "failed", "incomplete", "good", "output_tokens", "deltas", "unanswered"
        ):  # fmt: skip
            setattr(stats, name, int(data[name]))
        stats.input_tokens = int(data.get("input_tokens", 0))
        stats.busy_s = float(data.get("busy_s", 0.0))
        stats.names = Counter({str(k): int(v) for k, v in data["names"].items()})
        stats.causes = Counter({str(k): int(v) for k, v in data["causes"].items()})
        for name, wire in data["hists"].items():
            if name in stats.hists:
                stats.hists[name] = LogHistogram.from_wire(wire)
        if data["first_start"] is not None:
            stats.first_start = float(data["first_start"])
            stats.last_end = float(data["last_end"])
        return stats


class Aggregate:
    """The whole run, per sweep step, per second; plus how many requests each source sent.

    ``warmup``: the requests ``--warmup`` set aside; they are in no other view (no statistic)."""

    def __init__(self) -> None:
        self.all = Stats()
        self.warmup = Stats()
        self.steps: dict[int, Stats] = {}
        self.timeline: dict[int, Stats] = {}  # key: whole seconds (epoch) of completion
        # key: whole seconds (epoch); value: request-seconds in flight during that second
        self.in_flight: dict[int, float] = {}
        self.sources: Counter[str] = Counter()

    def add(self, rec: RequestRecord, good: bool, source: str = "local") -> None:
        self.all.add(rec, good)
        if rec.step is not None:
            self.steps.setdefault(rec.step, Stats()).add(rec, good)
        end = rec.start + (rec.e2e or 0.0)
        self.timeline.setdefault(int(end), Stats()).add(rec, good)
        second = int(rec.start)
        while second < end:
            overlap = min(end, second + 1) - max(rec.start, second)
            self.in_flight[second] = self.in_flight.get(second, 0.0) + overlap
            second += 1
        self.sources[source] += 1

    def add_warmup(self, rec: RequestRecord) -> None:
        self.warmup.add(rec, False)

    def merge(self, other: Aggregate) -> None:
        self.all.merge(other.all)
        self.warmup.merge(other.warmup)
        for key, stats in other.steps.items():
            self.steps.setdefault(key, Stats()).merge(stats)
        for key, stats in other.timeline.items():
            self.timeline.setdefault(key, Stats()).merge(stats)
        for key, busy in other.in_flight.items():
            self.in_flight[key] = self.in_flight.get(key, 0.0) + busy
        self.sources.update(other.sources)

    def to_wire(self) -> dict[str, Any]:
        return {
            "all": self.all.to_wire(),
            "warmup": self.warmup.to_wire(),
            "steps": [[k, s.to_wire()] for k, s in self.steps.items()],
            "timeline": [[k, s.to_wire()] for k, s in self.timeline.items()],
            "in_flight": [[k, v] for k, v in self.in_flight.items()],
            "sources": dict(self.sources),
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Aggregate:
        agg = cls()
        agg.all = Stats.from_wire(data["all"])
        if "warmup" in data:
            agg.warmup = Stats.from_wire(data["warmup"])
        agg.steps = {int(k): Stats.from_wire(s) for k, s in data["steps"]}
        agg.timeline = {int(k): Stats.from_wire(s) for k, s in data["timeline"]}
        agg.in_flight = {int(k): float(v) for k, v in data.get("in_flight", [])}
        agg.sources = Counter({str(k): int(v) for k, v in data["sources"].items()})
        return agg

    def drain(self) -> dict[str, Any]:
        """Everything added since the last drain, as wire data; starts afresh."""
        wire = self.to_wire()
        self.all = Stats()
        self.warmup = Stats()
        self.steps = {}
        self.timeline = {}
        self.in_flight = {}
        self.sources = Counter()
        return wire

    def merge_wire(self, data: Mapping[str, Any], source: str | None = None) -> None:
        """Fold in a worker's drained report; ``source`` relabels its requests (the worker id)."""
        other = Aggregate.from_wire(data)
        if source is not None:
            other.sources = Counter({source: sum(other.sources.values())})
        self.merge(other)
