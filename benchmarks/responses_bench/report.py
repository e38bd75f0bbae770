"""The run's verdict and reports: ``summary.json``, the plots, the console text, the exit code.

Definitions (also in the README):

- ``window_s``: from the first request sent to the last one finished, over all processes;
- ``requests_per_s`` / ``output_tokens_per_s`` / ``goodput_per_s``: requests finished, output
  tokens of successful requests, and requests meeting every latency objective (:mod:`benchmarks.responses_bench.slo`)
  — each divided by ``window_s``;
- latency percentiles are over successful requests (ITL: over every gap of every such request);
- ``throughput.input_tokens_per_s`` / ``total_tokens_per_s``: input (prompt) tokens and input plus
  output tokens of successful requests, from their ``usage``, per second of ``window_s``;
- ``concurrency.mean``: request-seconds in flight over ``window_s`` (Little's law, every request);
  the timeline's ``concurrency`` is the same per second of wall clock;
- ``tokens.input`` / ``tokens.output``: the distribution of each successful request's usage;
- ``compat.vllm`` / ``compat.guidellm``: the same numbers under the field names and percentiles of
  vLLM's ``benchmark_serving`` and GuideLLM (docs/bench-metrics.md has the mapping);
- a per-second percentile in ``timeline`` is ``null`` unless that second has enough samples for it
  (:data:`MIN_SAMPLES`: 10 for p50, 20 for p95, 100 for p99);
- ``failures.by_cause`` counts each failed request once, under the name Locust shows for it;
  ``failures.by_name`` counts every name a request earned (so several judge checks per stream);
  ``failures.by_check_id`` is the judge's share of those.

Exit codes: 0 ok; 1 an SLO breached or a stream broke a judge check (a sweep: its first step already
breached); 2 the run broke (no request was answered at all, a crash in the load generator).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from . import search
from .aggregate import Aggregate, Stats
from .arrivals import Step
from .export import METRIC_LABELS
from .histogram import LogHistogram
from .options import BenchConfig
from .progress import Progress


class RunView(Protocol):
    """What the report reads of a run (:class:`benchmarks.responses_bench.runtime.BenchRuntime`
    is one): the report depends on this, never on the runtime, so the import goes one way only."""

    config: BenchConfig | None
    aggregate: Aggregate
    sweep_verdicts: dict[int, dict[str, Any]]
    sweep_stopped_at: int | None
    started_wall: float | None

    def progresses(self) -> Sequence[Progress]: ...


__all__ = [
    "build_summary",
    "progress_line",
    "render_text",
    "step_verdict",
    "write_reports",
]

# `itl`: every gap between output deltas (vLLM's itl); `itl_request`: each request's mean gap, one
# sample per request (GuideLLM's inter_token_latency); `tpot`: (e2e − TTFT) / (tokens − 1) (vLLM's
# tpot, AIPerf's inter_token_latency). docs/bench-metrics.md has the comparison.
_METRICS = ("ttft", "itl", "itl_request", "tpot", "e2e")
# Every percentile vLLM's benchmark_serving (--metric-percentiles) and GuideLLM report.
PERCENTILES = (0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9)


def min_samples(q: float) -> int:
    """Samples a per-second ``pQ`` needs: at least 1 / (1 − q) (else it is the maximum), and 10."""
    return max(10, math.ceil(100 / (100 - q) - 1e-9)) if q < 100 else 10


MIN_SAMPLES = {q: min_samples(q) for q in (50, 95, 99)}


def _rate(count: float, window: float) -> float:
    return round(count / window, 4) if window > 0 else 0.0


def _std(hist: LogHistogram) -> float | None:
    """The standard deviation, from bucket middles (within the buckets' 1%)."""
    mean = hist.mean
    if mean is None:
        return None
    total = 0.0
    for key, n in hist.buckets.items():
        middle = 0.0 if key <= -1_000_000 else min(max(1.01 ** (key + 0.5), hist.min), hist.max)
        total += n * (middle - mean) ** 2
    return round(math.sqrt(total / hist.count), 3)


def _distribution(hist: LogHistogram) -> dict[str, Any]:
    out = hist.summary(PERCENTILES)
    out["median"] = out["p50"]
    out["std"] = _std(hist)
    return out


def _stats_block(stats: Stats, window: float) -> dict[str, Any]:
    return {
        "requests": {
            "total": stats.requests,
            "succeeded": stats.requests - stats.failed,
            "failed": stats.failed,
            "incomplete": stats.incomplete,
            "good": stats.good,
        },
        "throughput": {
            "requests_per_s": _rate(stats.requests, window),
            "successful_requests_per_s": _rate(stats.requests - stats.failed, window),
            "output_tokens_per_s": _rate(stats.output_tokens, window),
            "input_tokens_per_s": _rate(stats.input_tokens, window),
            "total_tokens_per_s": _rate(stats.input_tokens + stats.output_tokens, window),
            "goodput_per_s": _rate(stats.good, window),
        },
        "concurrency": {"mean": round(stats.busy_s / window, 3) if window > 0 else 0.0},
        "latency_ms": {m: _distribution(stats.hists[m]) for m in _METRICS},
    }


def step_verdict(
    config: BenchConfig, number: int, step: Step, stats: Stats, unfinished: int
) -> dict[str, Any]:
    """A sweep step judged against the SLO; requests still unfinished count as errors."""
    total = stats.requests + unfinished
    failed = stats.failed + unfinished
    objectives = config.slo.evaluate(stats.hists, failed, total)
    # Throughput over the step's own requests, first sent to last finished: past capacity they
    # finish after the step ends, and dividing by the step's length would flatter the server.
    block = _stats_block(stats, max(stats.window, 1e-9))
    return {
        "step": number,
        "offered_rate": step.rate,
        "duration_s": step.duration,
        "unfinished": unfinished,
        **block,
        "objectives": objectives,
        "ok": all(o["ok"] for o in objectives) and total > 0,
    }


def build_summary(rt: RunView) -> dict[str, Any]:
    config = rt.config
    assert config is not None
    agg = rt.aggregate
    stats = agg.all
    window = stats.window
    objectives = config.slo.evaluate(stats.hists, stats.failed, stats.requests)
    breached = not all(o["ok"] for o in objectives)
    by_check = {k: v for k, v in sorted(stats.names.items()) if not k.startswith("bench.")}
    summary: dict[str, Any] = {
        "tool": "responses-bench",
        "format": 1,
        "target": {
            "url": config.responses_url,
            "model": config.workload.model,
            "stream": config.workload.stream,
            "validated": config.validate,
        },
        "shape": config.shape,
        "workload": config.workload.describe(
            config.trace_speedup if config.shape == "trace" else None
        ),
        "users": (config.users or 1) if config.shape in ("fixed", "ramp") else None,
        "started_at": stats.first_start if stats.requests else None,
        "window_s": round(window, 4),
        **_stats_block(stats, window),
        "tokens": {
            "output_total": stats.output_tokens,
            "input_total": stats.input_tokens,
            "total": stats.input_tokens + stats.output_tokens,
            "deltas_total": stats.deltas,
            "output_per_request_mean": round(
                stats.output_tokens / (stats.requests - stats.failed), 2
            )
            if stats.requests > stats.failed
            else None,
            "input": _distribution(stats.hists["input_tokens"]),
            "output": _distribution(stats.hists["output_tokens"]),
        },
        "failures": {
            "by_cause": dict(stats.causes.most_common()),
            "by_name": dict(stats.names.most_common()),
            "by_check_id": by_check,
        },
        "slo": {
            "spec": [o.key for o in config.slo.objectives],
            "objectives": objectives,
            "breached": breached,
        },
        "sources": dict(agg.sources),
        "timeline": _timeline(agg.timeline, agg.in_flight),
        "timeline_min_samples": {f"p{q:g}": n for q, n in MIN_SAMPLES.items()},
    }
    summary["warmup"] = _warmup(config, agg.warmup)
    summary["bounds"] = {
        "max_requests": config.max_requests,
        "reached_max_requests": config.max_requests is not None
        and stats.requests >= config.max_requests,
    }
    summary["concurrency"]["max_per_second"] = max(
        (p["concurrency"] for p in summary["timeline"]), default=0.0
    )
    summary["compat"] = compat(summary, stats)
    if config.plan is not None:
        summary["open_loop"] = _open_loop(rt, stats)
    if config.shape == "sweep":
        summary["sweep"] = _sweep(rt)
    code, reason = _exit(summary, stats, by_check, breached)
    summary["exit_code"] = code
    summary["exit_reason"] = reason
    return summary


def _warmup(config: BenchConfig, warm: Stats) -> dict[str, Any]:
    """What ``--warmup`` left out: counted here, in no other number of the summary."""
    if config.warmup_requests:
        rule = f"the first {config.warmup_requests} requests sent"
    elif config.warmup_s:
        rule = f"requests sent in the first {config.warmup_s:g} s"
    else:
        rule = None
    by_check = {k: v for k, v in sorted(warm.names.items()) if not k.startswith("bench.")}
    return {
        "rule": rule,
        "excluded_from_statistics": True,
        "requests": warm.requests,
        "failed": warm.failed,
        "by_cause": dict(warm.causes.most_common()),
        "by_check_id": by_check,
    }


def _open_loop(rt: RunView, stats: Stats) -> dict[str, Any]:
    config = rt.config
    assert config is not None and config.plan is not None
    progresses = rt.progresses()
    started = sum(p.started for p in progresses)
    late = sum(p.late for p in progresses)
    return {
        "arrivals": config.plan.kind,
        "steps": [{"rate": s.rate, "duration_s": s.duration} for s in config.plan.steps],
        "processes": len(progresses),
        "scheduled": sum(p.scheduled for p in progresses),
        "started": started,
        "started_on_schedule": started - late,
        "late": late,
        "late_after_ms": config.late_after * 1000,
        "skipped_max_in_flight": sum(p.skipped for p in progresses),
        "completed": sum(p.completed for p in progresses),
        "start_lag_ms": stats.hists["lag"].summary(),
    }


def _sweep(rt: RunView) -> dict[str, Any]:
    config = rt.config
    assert config is not None and config.plan is not None
    steps = []
    best: float | None = None
    for number, step in enumerate(config.plan.steps):
        verdict = rt.sweep_verdicts.get(number)
        if verdict is None:
            steps.append({"step": number, "offered_rate": step.rate, "status": "not judged"})
            continue
        steps.append({**verdict, "status": "ok" if verdict["ok"] else "breached"})
        before_breach = rt.sweep_stopped_at is None or number < rt.sweep_stopped_at
        if verdict["ok"] and before_breach:
            best = step.rate if best is None else max(best, step.rate)
    judged: list[dict[str, Any]] = [s for s in steps if "throughput" in s]
    return {
        "steps": steps,
        "breached_at_step": rt.sweep_stopped_at,
        "max_rate_meeting_slo": best,
        **search_block(
            [s["offered_rate"] for s in judged],
            [s["throughput"]["successful_requests_per_s"] for s in judged],
            [s["throughput"]["goodput_per_s"] for s in judged],
            "offered_rate",
        ),
    }


def search_block(
    loads: list[float], throughputs: list[float | None], goodputs: list[float | None], name: str
) -> dict[str, Any]:
    """Knee and max goodput of a sweep (definitions: :mod:`benchmarks.responses_bench.search`)."""
    k = search.knee(loads, throughputs)
    g = search.max_goodput(goodputs)
    return {
        "knee": None if k is None else {name: loads[k], "throughput_per_s": throughputs[k]},
        "max_goodput": None if g is None else {name: loads[g], "goodput_per_s": goodputs[g]},
        "scaling_efficiency": search.efficiencies(loads, throughputs),
        "knee_rule": f"last step before ln(T2/T1)/ln(L2/L1) < {search.KNEE_EFFICIENCY}",
    }


def _sampled(hist: LogHistogram, q: int) -> float | None:
    """A per-second percentile, only where the second has :data:`MIN_SAMPLES` for it."""
    return hist.percentile(q) if hist.count >= MIN_SAMPLES[q] else None


def _timeline(timeline: dict[int, Stats], in_flight: dict[int, float]) -> list[dict[str, Any]]:
    points = []
    empty = Stats()
    for second in sorted(set(timeline) | set(in_flight)):
        s = timeline.get(second, empty)
        hists = s.hists
        points.append(
            {
                "t": second,
                "requests": s.requests,
                "failed": s.failed,
                "good": s.good,
                "output_tokens": s.output_tokens,
                "input_tokens": s.input_tokens,
                "concurrency": round(in_flight.get(second, 0.0), 3),
                "ttft_n": hists["ttft"].count,
                "itl_n": hists["itl"].count,
                "e2e_n": hists["e2e"].count,
                "ttft_p50": _sampled(hists["ttft"], 50),
                "ttft_p95": _sampled(hists["ttft"], 95),
                "itl_p50": _sampled(hists["itl"], 50),
                "itl_p99": _sampled(hists["itl"], 99),
                "e2e_p50": _sampled(hists["e2e"], 50),
                "e2e_p95": _sampled(hists["e2e"], 95),
            }
        )
    return points


def _p_word(q: float) -> str:
    return f"{q:g}"


def compat(summary: dict[str, Any], stats: Stats) -> dict[str, Any]:
    """The run's numbers under vLLM's ``benchmark_serving`` and GuideLLM's names (docs/bench-metrics.md)."""
    thr, lat, req = summary["throughput"], summary["latency_ms"], summary["requests"]
    vllm: dict[str, Any] = {
        "duration": summary["window_s"],
        "completed": req["succeeded"],
        "failed": req["failed"],
        "total_input_tokens": stats.input_tokens,
        "total_output_tokens": stats.output_tokens,
        "request_throughput": thr["successful_requests_per_s"],
        "request_goodput": thr["goodput_per_s"],
        "output_throughput": thr["output_tokens_per_s"],
        "total_token_throughput": thr["total_tokens_per_s"],
    }
    for ours, theirs in (("ttft", "ttft"), ("tpot", "tpot"), ("itl", "itl"), ("e2e", "e2el")):
        dist = lat[ours]
        vllm[f"mean_{theirs}_ms"] = dist["mean"]
        vllm[f"median_{theirs}_ms"] = dist["median"]
        vllm[f"std_{theirs}_ms"] = dist["std"]
        for q in PERCENTILES:
            vllm[f"p{_p_word(q)}_{theirs}_ms"] = dist[f"p{q:g}"]

    def guide(dist: dict[str, Any], scale: float = 1.0) -> dict[str, Any]:
        def s(v: Any) -> Any:
            return None if v is None else round(v * scale, 6)

        names = {0.1: "p001", 1: "p01", 5: "p05", 10: "p10", 25: "p25", 50: "p50", 75: "p75",
                 90: "p90", 95: "p95", 99: "p99", 99.9: "p999"}  # fmt: skip
        return {
            "mean": s(dist["mean"]),
            "median": s(dist["median"]),
            "std_dev": s(dist["std"]),
            "min": s(dist["min"]),
            "max": s(dist["max"]),
            "count": dist["count"],
            "percentiles": {name: s(dist[f"p{q:g}"]) for q, name in names.items()},
        }

    guidellm = {
        "requests_per_second": {"mean": thr["successful_requests_per_s"]},
        "request_concurrency": {"mean": summary["concurrency"]["mean"]},
        "request_latency": guide(lat["e2e"], 0.001),  # seconds in GuideLLM
        "prompt_token_count": guide(summary["tokens"]["input"]),
        "output_token_count": guide(summary["tokens"]["output"]),
        "time_to_first_token_ms": guide(lat["ttft"]),
        # GuideLLM's inter_token_latency_ms is per request, (last − first token) / (tokens − 1):
        # our itl_request. Our per-gap ITL has no GuideLLM name (vLLM's itl is per gap, like ours).
        "inter_token_latency_ms": guide(lat["itl_request"]),
        "output_tokens_per_second": {"mean": thr["output_tokens_per_s"]},
        "tokens_per_second": {"mean": thr["total_tokens_per_s"]},
    }
    return {"vllm": vllm, "guidellm": guidellm}


def _exit(
    summary: dict[str, Any], stats: Stats, by_check: dict[str, int], breached: bool
) -> tuple[int, str]:
    if stats.requests == 0:
        return 2, "no request finished"
    if stats.unanswered == stats.requests:
        causes = ", ".join(stats.causes)
        return 2, f"the target never answered ({causes})"
    if by_check:
        return 1, f"streams broke {len(by_check)} judge check(s): {', '.join(by_check)}"
    warm_checks = summary["warmup"]["by_check_id"]
    if warm_checks:  # a broken stream is broken during warm-up too
        return 1, f"warm-up streams broke judge check(s): {', '.join(warm_checks)}"
    sweep = summary.get("sweep")
    if sweep is not None:
        first = sweep["steps"][0] if sweep["steps"] else None
        if first is not None and first.get("status") == "breached":
            return 1, "the SLO breached at the first sweep step"
        return 0, "sweep finished"
    if breached:
        failed = [o["objective"] for o in summary["slo"]["objectives"] if not o["ok"]]
        return 1, f"SLO breached: {', '.join(map(str, failed))}"
    return 0, "ok"


def write_reports(directory: Path, summary: dict[str, Any], rt: RunView) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    from . import export, plots  # plots: matplotlib is heavy; only the reporting process needs it

    images = plots.write_plots(directory, summary, rt.config.slo if rt.config else None)
    export.write_csv(directory / "stats.csv", export.run_rows(summary))
    export.write_run_html(directory / "report.html", summary, images)


def progress_line(rt: RunView, rate: float, now: float) -> str:
    stats = rt.aggregate.all
    elapsed = now - rt.started_wall if rt.started_wall else 0.0
    parts = [
        f"[responses-bench {elapsed:6.1f}s]",
        f"{stats.requests} done",
        f"{stats.failed} failed",
        f"{rate:.1f} req/s",
    ]
    ttft = stats.hists["ttft"].percentile(95)
    itl = stats.hists["itl"].percentile(99)
    if ttft is not None:
        parts.append(f"TTFT p95 {ttft:.0f} ms")
    if itl is not None:
        parts.append(f"ITL p99 {itl:.1f} ms")
    if rt.config is not None and rt.config.plan is not None:
        progresses = rt.progresses()
        parts.append(f"{sum(p.in_flight for p in progresses)} in flight")
        parts.append(f"{sum(p.late for p in progresses)} late")
    if stats.causes:
        top = ", ".join(f"{k} ×{v}" for k, v in stats.causes.most_common(3))
        parts.append(f"failures: {top}")
    return " | ".join(parts)


def render_text(summary: dict[str, Any]) -> str:
    lines = ["", "responses-bench summary", "=" * 23]
    req = summary["requests"]
    thr = summary["throughput"]
    lines.append(
        f"requests: {req['total']} ({req['succeeded']} ok, {req['failed']} failed, "
        f"{req['incomplete']} incomplete) in {summary['window_s']:.2f} s"
    )
    lines.append(
        f"throughput: {thr['requests_per_s']:.2f} req/s, {thr['output_tokens_per_s']:.1f} "
        f"output tok/s, {thr['total_tokens_per_s']:.1f} total tok/s (input + output), "
        f"goodput {thr['goodput_per_s']:.2f} req/s"
    )
    tok = summary["tokens"]
    for name in ("input", "output"):
        dist = tok[name]
        if dist["count"]:
            lines.append(
                f"{name} tokens per request: mean {_fmt(dist['mean'])}, p50 {_fmt(dist['p50'])}, "
                f"p99 {_fmt(dist['p99'])}, max {_fmt(dist['max'])} ({tok[name + '_total']} in all)"
            )
    conc = summary["concurrency"]
    lines.append(
        f"concurrency (requests in flight): mean {conc['mean']:.2f}, "
        f"busiest second {conc['max_per_second']:.2f}"
    )
    lines.append(f"{'ms':<37}{'mean':>9}{'p50':>9}{'p90':>9}{'p95':>9}{'p99':>9}{'n':>9}")
    for metric, values in summary["latency_ms"].items():
        row = [_fmt(values.get(p)) for p in ("mean", "p50", "p90", "p95", "p99")]
        label = METRIC_LABELS.get(metric, metric)
        lines.append(f"{label:<37}" + "".join(f"{v:>9}" for v in row) + f"{values['count']:>9}")
    warm = summary.get("warmup") or {}
    if warm.get("rule"):
        lines.append(
            f"warm-up ({warm['rule']}): {warm['requests']} requests ({warm['failed']} failed) "
            "excluded from every statistic above"
        )
    bounds = summary.get("bounds") or {}
    if bounds.get("max_requests") is not None:
        reached = "reached" if bounds["reached_max_requests"] else "NOT reached (time ran out)"
        lines.append(f"--max-requests {bounds['max_requests']}: {reached}")
    if "open_loop" in summary:
        ol = summary["open_loop"]
        lines.append(
            f"open loop: {ol['scheduled']} scheduled, {ol['started']} started, "
            f"{ol['started_on_schedule']} on schedule (lag ≤ {ol['late_after_ms']:g} ms), "
            f"{ol['skipped_max_in_flight']} skipped; lag p99 {_fmt(ol['start_lag_ms']['p99'])} ms"
        )
    if "sweep" in summary:
        sw = summary["sweep"]
        for step in sw["steps"]:
            lines.append(
                f"  sweep step {step['step']}: {step['offered_rate']:g} req/s → {step['status']}"
            )
        lines.append(f"  max rate meeting the SLO: {sw['max_rate_meeting_slo']}")
        knee, best = sw.get("knee"), sw.get("max_goodput")
        lines.append(
            "  knee: "
            + (f"{knee['offered_rate']:g} req/s offered" if knee else "not reached")
            + "; max goodput: "
            + (f"{best['goodput_per_s']:.2f} req/s at {best['offered_rate']:g}/s" if best else "-")
        )
    if summary["failures"]["by_cause"]:
        lines.append(
            "failures (by cause): "
            + ", ".join(f"{k} ×{v}" for k, v in summary["failures"]["by_cause"].items())
        )
    if summary["failures"]["by_check_id"]:
        lines.append(
            "judge checks broken: "
            + ", ".join(f"{k} ×{v}" for k, v in summary["failures"]["by_check_id"].items())
        )
    for o in summary["slo"]["objectives"]:
        if "threshold_ms" in o:
            lines.append(
                f"SLO {o['objective']}: {_fmt(o['value_ms'])} ms vs {o['threshold_ms']:g} ms → "
                f"{'ok' if o['ok'] else 'BREACHED'}"
            )
        else:
            lines.append(
                f"SLO error_rate: {o['value']:.4f} vs {o['threshold']:g} → "
                f"{'ok' if o['ok'] else 'BREACHED'}"
            )
    lines.append(f"exit {summary['exit_code']}: {summary['exit_reason']}")
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"
