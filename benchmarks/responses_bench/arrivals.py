"""Open-loop arrival schedules (sans-I/O): when each request must start, whatever the server does.

Locust's users are closed loops (a user waits for its response, then ``wait_time``), so a slow server
slows the load down and hides its own queueing (coordinated omission). An open loop fixes the start
times in advance: a constant rate (``i / rate``) or Poisson arrivals (exponential gaps), in steps of
``(rate, duration)`` for a sweep. The schedule is one global sequence; with ``shares`` load-generating
processes, process ``share`` takes every ``shares``-th arrival (constant) or an independent Poisson
stream of ``rate / shares`` (Poisson arrivals split that way stay Poisson), so the sum over the
processes is the schedule.

A **trace** (``--shape trace``) gives the offsets themselves: arrival ``i`` at ``offsets[i]``
(a timestamped workload file's, sped up by ``--trace-speedup``), one step long; process ``share``
takes every ``shares``-th arrival, as at a constant rate.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["ArrivalPlan", "Step", "parse_duration", "parse_rates"]


@dataclass(frozen=True, slots=True)
class Step:
    rate: float  # requests per second
    duration: float  # seconds


@dataclass(frozen=True, slots=True)
class ArrivalPlan:
    steps: tuple[Step, ...]
    poisson: bool = False
    seed: int = 0
    offsets: tuple[float, ...] = ()  # a trace: every arrival's offset, in order (one step)

    @property
    def kind(self) -> str:
        """``constant``, ``poisson`` or ``trace`` (the report's ``open_loop.arrivals``)."""
        return "trace" if self.offsets else "poisson" if self.poisson else "constant"

    @property
    def duration(self) -> float:
        return sum(s.duration for s in self.steps)

    def step_start(self, index: int) -> float:
        return sum(s.duration for s in self.steps[:index])

    def scheduled(self, share: int = 0, shares: int = 1) -> int:
        """How many arrivals ``share`` will get (constant rate; Poisson: the expectation, rounded)."""
        return sum(1 for _ in self.arrivals(share, shares))

    def arrivals(self, share: int = 0, shares: int = 1) -> Iterator[tuple[float, int]]:
        """``(offset from the schedule's start in seconds, step index)`` in time order."""
        if not 0 <= share < shares:
            raise ValueError(f"share {share} is not in 0..{shares - 1}")
        if self.offsets:
            for index in range(share, len(self.offsets), shares):
                yield self.offsets[index], 0
            return
        origin = 0.0
        index = 0  # global arrival index across steps (constant rate)
        rng = random.Random(f"{self.seed}/{share}/{shares}")
        for number, step in enumerate(self.steps):
            if step.rate > 0:
                if self.poisson:
                    t = origin
                    while True:
                        t += rng.expovariate(step.rate / shares)
                        if t >= origin + step.duration:
                            break
                        yield t, number
                else:
                    # Arrival i at i / rate while it is inside the step: ceil(rate × duration) of them.
                    count = math.ceil(step.rate * step.duration - 1e-9)
                    for i in range(count):
                        if index % shares == share:
                            yield origin + i / step.rate, number
                        index += 1
            origin += step.duration


_MAX_RATES = 10_000  # steps of a rate sweep
_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s?)?$")


def parse_duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``1m30s``, ``1h`` (Locust's ``--run-time`` forms)."""
    match = _DURATION.match(text.strip())
    if match is None or not any(match.groups()):
        raise ValueError(f"not a duration: {text!r} (use e.g. 30s, 2m, 1h30m)")
    hours, minutes, seconds = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds


def parse_rates(text: str) -> Sequence[float]:
    """``2,4,8`` or ``START:STOP:STEP`` (inclusive, e.g. ``5:40:5``) → rates in requests/s."""
    text = text.strip()
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ValueError(f"rates {text!r}: use START:STOP:STEP")
        start, stop, step = (float(p) for p in parts)
        if not all(map(math.isfinite, (start, stop, step))):
            raise ValueError(f"rates {text!r}: need finite numbers")
        if start <= 0 or step <= 0 or stop < start:
            raise ValueError(f"rates {text!r}: need 0 < START <= STOP and STEP > 0")
        steps = (stop - start) / step  # 1:1e9:1e-9 would build a list of 10**18 rates
        if not steps < _MAX_RATES:
            raise ValueError(f"rates {text!r}: more than {_MAX_RATES:,} steps")
        count = math.floor(steps + 1e-9) + 1
        return [round(start + i * step, 6) for i in range(count)]
    rates = [float(p) for p in text.split(",") if p.strip()]
    # `nan <= 0` is False: a finite, positive rate is asked for, not "not <= 0"
    if not rates or not all(math.isfinite(r) and r > 0 for r in rates):
        raise ValueError(f"rates {text!r}: need positive numbers, e.g. 2,4,8")
    return rates
