"""Service-level objectives: ``--slo ttft_p95=500ms,itl_p99=50ms,error_rate=1%`` (sans-I/O).

An objective is ``<metric>_p<q>=<threshold>`` for ``ttft``, ``itl``, ``tpot`` and ``e2e`` (a bare
number is seconds, as in every option of the bench (:mod:`benchmarks.responses_bench.units`); or give a unit:
``500ms``, ``0.5s``), or ``error_rate=<fraction or percent>``. A run
*breaches* when an aggregate percentile exceeds its threshold, or the share of failed requests
exceeds ``error_rate`` (0 unless given: any failure breaches, like Locust's default exit code).

**Goodput** counts the requests that meet every latency objective on their own (DistServe's
definition): a successful request whose TTFT, TPOT and e2e are within their thresholds and whose
own ``p<q>`` inter-token gap is within the ITL threshold. Error rate does not apply per request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import SLOSyntaxError
from .histogram import LogHistogram, quantile
from .meter import RequestRecord
from .units import parse_seconds

__all__ = ["LATENCY_METRICS", "SLO", "Objective", "SLOSyntaxError"]

LATENCY_METRICS = ("ttft", "itl", "tpot", "e2e")
_TERM = re.compile(r"^(ttft|itl|tpot|e2e)_p(\d+(?:\.\d+)?)$")


@dataclass(frozen=True, slots=True)
class Objective:
    metric: str  # ttft | itl | tpot | e2e | error_rate
    quantile: float | None  # percentile 0-100 for latency metrics
    threshold: float  # milliseconds, or a fraction for error_rate

    @property
    def key(self) -> str:
        return self.metric if self.quantile is None else f"{self.metric}_p{self.quantile:g}"


@dataclass(frozen=True, slots=True)
class SLO:
    objectives: tuple[Objective, ...] = ()

    @classmethod
    def parse(cls, text: str | None) -> SLO:
        if not text:
            return cls()
        out: list[Objective] = []
        for term in text.split(","):
            term = term.strip()
            if not term:
                continue
            name, eq, value = term.partition("=")
            name, value = name.strip().lower(), value.strip().lower()
            if not eq or not value:
                raise SLOSyntaxError(f"--slo: {term!r} is not NAME=VALUE")
            if name == "error_rate":
                out.append(Objective("error_rate", None, _fraction(value, term)))
                continue
            match = _TERM.match(name)
            if match is None:
                raise SLOSyntaxError(
                    f"--slo: unknown objective {name!r}; use ttft_pQ, itl_pQ, tpot_pQ, e2e_pQ "
                    "(e.g. ttft_p95) or error_rate"
                )
            q = float(match[2])
            if not 0 < q <= 100:
                raise SLOSyntaxError(f"--slo: percentile out of range in {term!r}")
            out.append(Objective(match[1], q, _milliseconds(value, term)))
        keys = [o.key for o in out]
        if len(set(keys)) != len(keys):
            raise SLOSyntaxError("--slo: an objective is given twice")
        return cls(tuple(out))

    @property
    def error_rate(self) -> float:
        for o in self.objectives:
            if o.metric == "error_rate":
                return o.threshold
        return 0.0

    @property
    def latency(self) -> tuple[Objective, ...]:
        return tuple(o for o in self.objectives if o.metric != "error_rate")

    def request_is_good(self, rec: RequestRecord) -> bool:
        """Does this request count towards goodput (successful, within every latency objective)?"""
        if not rec.ok:
            return False
        for o in self.latency:
            value = _request_value(rec, o)
            if value is not None and value * 1000 > o.threshold:
                return False
        return True

    def evaluate(
        self, hists: Mapping[str, LogHistogram], failed: int, total: int
    ) -> list[dict[str, object]]:
        """One result per objective (error_rate always): ``{objective, threshold, value, ok}``.

        A latency objective with no sample (e.g. TTFT of a non-stream run) is reported with
        ``value: None`` and does not breach.
        """
        results: list[dict[str, object]] = []
        for o in self.latency:
            hist = hists.get(o.metric)
            assert o.quantile is not None
            value = hist.percentile(o.quantile) if hist is not None else None
            ok = value is None or value <= o.threshold
            results.append(
                {
                    "objective": o.key,
                    "threshold_ms": o.threshold,
                    "value_ms": None if value is None else round(value, 3),
                    "ok": ok,
                }
            )
        rate = failed / total if total else 0.0
        results.append(
            {
                "objective": "error_rate",
                "threshold": self.error_rate,
                "value": round(rate, 6),
                "ok": rate <= self.error_rate,
            }
        )
        return results


def _request_value(rec: RequestRecord, o: Objective) -> float | None:
    if o.metric == "ttft":
        return rec.ttft
    if o.metric == "tpot":
        return rec.tpot
    if o.metric == "e2e":
        return rec.e2e
    assert o.quantile is not None
    return quantile(rec.itls, o.quantile)


def _milliseconds(value: str, term: str) -> float:
    try:
        return parse_seconds(value.replace(" ", ""), f"--slo {term!r}") * 1000
    except ValueError as error:
        raise SLOSyntaxError(str(error)) from None


def _fraction(value: str, term: str) -> float:
    try:
        number = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        raise SLOSyntaxError(
            f"--slo: {term!r}: expected a fraction (0.01) or percent (1%)"
        ) from None
    if not 0 <= number <= 1:
        raise SLOSyntaxError(f"--slo: {term!r}: error_rate must be between 0 and 1 (0%-100%)")
    return number
