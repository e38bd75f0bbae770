"""Reading a sweep and repeated runs (sans-I/O): the knee, the max goodput, confidence intervals.

Definitions (also in docs/bench-metrics.md):

- **max goodput**: the step with the highest goodput (requests per second that met every latency
  objective on their own; with no ``--slo``, every successful request counts);
- **max meeting the SLO**: the highest load (users or offered rate) whose step met every objective,
  among the steps before the first breach;
- **knee**: where more load stops buying throughput. Between consecutive steps the *scaling
  efficiency* is ``ln(T2 / T1) / ln(L2 / L1)`` (throughput T, load L: 1 = throughput grows as fast
  as the load, 0 = flat). The knee is the last step before the first segment whose efficiency is
  below :data:`KNEE_EFFICIENCY` (0.5: four times the users bought less than twice the
  throughput); ``None`` while every segment still scales (the sweep did not reach it);
- **confidence interval** of a repeated run: Student's t-interval over the runs' values (each run
  gives one value: its requests/s, its TTFT p95…): ``mean ± t(0.975, n − 1) · s / √n``, ``s`` the
  sample standard deviation. It says how far the mean of *runs* may be from the truth; it assumes
  runs are independent, which back-to-back runs on one server only approximate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["KNEE_EFFICIENCY", "knee", "max_goodput", "t_interval"]

KNEE_EFFICIENCY = 0.5

# t(0.975, df) for df = 1..30 (two-sided 95%).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """The two-sided 95% Student-t quantile; past df 30, ``1.96 + 2.4 / df`` (within 0.003)."""
    if df < 1:
        raise ValueError("a t-interval needs at least two values")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


def t_interval(values: Sequence[float | None]) -> dict[str, Any]:
    """Mean, sample std and the 95% t-interval of the non-null ``values`` (null when < 2)."""
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    mean = sum(xs) / n if n else None
    out: dict[str, Any] = {"n": n, "mean": _r(mean), "std": None, "ci95": None, "values": xs}
    if n >= 2 and mean is not None:
        std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
        half = t975(n - 1) * std / math.sqrt(n)
        out["std"] = _r(std)
        out["ci95"] = [_r(mean - half), _r(mean + half)]
        out["ci95_half_width"] = _r(half)
    return out


def knee(loads: Sequence[float], throughputs: Sequence[float | None]) -> int | None:
    """Index of the knee (see the module doc), or ``None`` when no segment flattened."""
    points = [(x, y) for x, y in zip(loads, throughputs, strict=True)]
    for i in range(1, len(points)):
        (x1, y1), (x2, y2) = points[i - 1], points[i]
        if y1 is None or y2 is None or x2 <= x1:
            return None
        if y1 <= 0:
            continue  # nothing served yet: no ratio to take
        efficiency = math.log(max(y2, 1e-12) / y1) / math.log(x2 / x1)
        if efficiency < KNEE_EFFICIENCY:
            return i - 1
    return None


def efficiencies(loads: Sequence[float], throughputs: Sequence[float | None]) -> list[float | None]:
    """The scaling efficiency of each segment (``None`` where it cannot be taken)."""
    out: list[float | None] = []
    for i in range(1, len(loads)):
        x1, x2, y1, y2 = loads[i - 1], loads[i], throughputs[i - 1], throughputs[i]
        if y1 is None or y2 is None or y1 <= 0 or x2 <= x1:
            out.append(None)
        else:
            out.append(_r(math.log(max(y2, 1e-12) / y1) / math.log(x2 / x1)))
    return out


def max_goodput(goodputs: Sequence[float | None]) -> int | None:
    """Index of the highest goodput (the first, on a tie), ``None`` when there is none."""
    best: int | None = None
    for i, value in enumerate(goodputs):
        if value is not None and (best is None or value > (goodputs[best] or 0.0)):
            best = i
    return best


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
