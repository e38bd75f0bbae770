"""A mergeable latency histogram with log-spaced buckets (sans-I/O, no Locust).

Locust's own response-time dict rounds to 2–3 significant digits per *request*; the benchmark also
needs inter-token latencies (hundreds per request) summed over every worker of a distributed run, so
it keeps counts in buckets whose width grows by 1 % — any percentile is then within ±0.5 % of the
true sample, the memory is a few hundred integers whatever the sample count, and two histograms
merge by adding counts (how a master folds in its workers' reports).

Values are milliseconds. Zero (two deltas read from one network chunk) has its own bucket.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["LogHistogram", "quantile"]

_GROWTH = 1.01
_LOG_GROWTH = math.log(_GROWTH)
_ZERO = -(10**6)  # the bucket of values <= 0


class LogHistogram:
    """Counts of values in buckets ``[g**i, g**(i+1))``, ``g = 1.01``; exact count, sum, min, max."""

    __slots__ = ("buckets", "count", "max", "min", "total")

    def __init__(self) -> None:
        self.buckets: dict[int, int] = {}
        self.count = 0
        self.total = 0.0
        self.min = math.inf
        self.max = -math.inf

    def add(self, value: float) -> None:
        key = math.floor(math.log(value) / _LOG_GROWTH) if value > 0 else _ZERO
        self.buckets[key] = self.buckets.get(key, 0) + 1
        self.count += 1
        self.total += value
        if value < self.min:
            self.min = value
        if value > self.max:
            self.max = value

    def extend(self, values: Iterable[float]) -> None:
        for value in values:
            self.add(value)

    def percentile(self, q: float) -> float | None:
        """Nearest-rank percentile, ``q`` in [0, 100]; ``None`` when empty."""
        if not self.count:
            return None
        rank = max(1, math.ceil(q / 100 * self.count))
        if rank >= self.count:
            return self.max  # known exactly
        seen = 0
        for key in sorted(self.buckets):
            seen += self.buckets[key]
            if seen >= rank:
                if key == _ZERO:
                    return 0.0
                # The bucket's geometric middle, kept inside the observed range.
                middle: float = _GROWTH ** (key + 0.5)
                return min(max(middle, self.min), self.max)
        return self.max  # pragma: no cover - rank <= count always ends the loop

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def summary(self, percentiles: Iterable[float] = (50, 90, 95, 99)) -> dict[str, float | None]:
        out: dict[str, float | None] = {"count": self.count, "mean": _round(self.mean)}
        for q in percentiles:
            out[f"p{q:g}"] = _round(self.percentile(q))
        out["min"] = _round(self.min) if self.count else None
        out["max"] = _round(self.max) if self.count else None
        return out

    def merge(self, other: LogHistogram) -> None:
        for key, n in other.buckets.items():
            self.buckets[key] = self.buckets.get(key, 0) + n
        self.count += other.count
        self.total += other.total
        self.min = min(self.min, other.min)
        self.max = max(self.max, other.max)

    def to_wire(self) -> dict[str, Any]:
        """A msgpack-friendly dict (Locust ships worker reports with msgpack)."""
        return {
            "b": [[k, n] for k, n in self.buckets.items()],
            "n": self.count,
            "s": self.total,
            "lo": self.min if self.count else None,
            "hi": self.max if self.count else None,
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> LogHistogram:
        hist = cls()
        hist.buckets = {int(k): int(n) for k, n in data["b"]}
        hist.count = int(data["n"])
        hist.total = float(data["s"])
        if hist.count:
            hist.min = float(data["lo"])
            hist.max = float(data["hi"])
        return hist


def quantile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of a small list (one request's inter-token gaps)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
