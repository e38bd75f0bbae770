"""PNG plots drawn from ``summary.json`` alone (so they can be redrawn from an old run).

- ``timeline.png``: four panels over the run's seconds — TTFT and e2e percentiles, ITL
  percentiles, requests finished per second (ok, failed, goodput), requests in flight — on linear
  axes, the ``--slo`` thresholds dashed in their panel, legends beside the panels (never over the
  data). The first and last seconds are partial (the run starts and ends inside them) and are left
  out, as are per-second percentiles without enough samples (``timeline_min_samples``);
- ``sweep.png`` of a rate sweep: each step's latency against the throughput it achieved (log
  latency axis with plain labels), the offered rate beside each point, the SLO dashed, a breach
  ringed red;
- ``sweep.png`` of a concurrency sweep (:mod:`benchmarks.responses_bench.multirun`): throughput and
  latency against users, one line per target, 95% intervals as error bars when runs repeat, the
  knee marked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import matplotlib

matplotlib.use("Agg")  # no display on CI or a load generator

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from .slo import SLO

__all__ = ["write_multi_plots", "write_plots"]

_COLORS = {"ttft": "tab:blue", "itl": "tab:green", "e2e": "tab:purple", "tpot": "tab:brown"}
_SIDE = {"bbox_to_anchor": (1.01, 1.0), "loc": "upper left", "fontsize": 8, "frameon": False}
# A concurrency-sweep panel's series: (metric key, label, line style: errorbar's fmt and the
# legend's Line2D linestyle, so one of matplotlib's named styles).
_Series = tuple[tuple[str, str, Literal["-", "--", ":"]], ...]


def write_plots(directory: Path, summary: dict[str, Any], slo: SLO | None) -> list[Path]:
    written = []
    if len(summary.get("timeline") or []) >= 1:
        written.append(_timeline(directory / "timeline.png", summary, slo))
    if summary.get("sweep") and any("latency_ms" in s for s in summary["sweep"]["steps"]):
        written.append(_sweep(directory / "sweep.png", summary, slo))
    return written


def _plain(ax: Axes) -> None:
    """Plain numbers on a log axis (200, 500, 1000 — not 2×10²)."""
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _slo_lines(ax: Axes, slo: SLO | None, metrics: tuple[str, ...]) -> None:
    for o in slo.latency if slo is not None else ():
        if o.metric in metrics:
            ax.axhline(
                o.threshold,
                linestyle=(0, (4, 3)),
                linewidth=1.2,
                color=_COLORS.get(o.metric, "gray"),
                label=f"SLO {o.key} ≤ {o.threshold:g} ms",
            )


def _headroom(ax: Axes, values: list[float]) -> None:
    """From 0 to 15% above the highest value, so no line runs along the frame."""
    top = max(values, default=0.0)
    ax.set_ylim(0, top * 1.15 if top > 0 else 1.0)


def _steps(axes: Any, summary: dict[str, Any], t0: int) -> None:
    """A rate sweep's step boundaries on every panel, each step's offered rate on the top one."""
    steps = (summary.get("open_loop") or {}).get("steps") or []
    if summary["shape"] != "sweep" or not summary.get("started_at"):
        return
    start = summary["started_at"] - t0
    for step in steps:
        for ax in axes:
            ax.axvline(start, color="gray", linewidth=0.8, linestyle=(0, (1, 2)))
        axes[0].annotate(f"{step['rate']:g}/s", (start, 1.0), xycoords=("data", "axes fraction"),
                         xytext=(3, -12), textcoords="offset points", fontsize=8, color="gray")  # fmt: skip
        start += step["duration_s"]


def _latency_axis(ax: Axes, values: list[float]) -> None:
    """Linear from 0 when the values span less than 20×; else log with 1-2-5 plain labels."""
    positive = [v for v in values if v and v > 0]
    if not positive or max(positive) / min(positive) < 20:
        _headroom(ax, positive)
        ax.set_ylabel("ms")
        return
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_minor_locator(NullLocator())
    _plain(ax)
    ax.set_ylabel("ms (log scale)")


def _timeline(path: Path, summary: dict[str, Any], slo: SLO | None) -> Path:
    points = summary["timeline"]
    full = points[1:-1] if len(points) > 2 else points  # the first and last seconds are partial
    t0 = points[0]["t"]
    xs = [p["t"] - t0 for p in full]
    fig, axes = plt.subplots(
        4, 1, figsize=(11, 9), sharex=True, gridspec_kw={"height_ratios": [3, 2, 2, 1.4]}
    )
    lat, itl, rate, conc = axes

    def line(ax: Axes, key: str, label: str, metric: str, style: str) -> None:
        ys = [p.get(key) for p in full]
        if any(y is not None for y in ys):
            ax.plot(
                xs,
                [float("nan") if y is None else y for y in ys],
                style,
                color=_COLORS[metric],
                marker=".",
                label=label,
            )

    line(lat, "ttft_p50", "TTFT p50", "ttft", "-")
    line(lat, "ttft_p95", "TTFT p95", "ttft", "--")
    line(lat, "e2e_p50", "e2e p50", "e2e", "-")
    line(lat, "e2e_p95", "e2e p95", "e2e", "--")
    _slo_lines(lat, slo, ("ttft", "e2e"))
    lat.set_ylabel("ms")
    lat.set_title("TTFT and end-to-end latency per second of completion", fontsize=10)
    line(itl, "itl_p50", "ITL p50 (per gap)", "itl", "-")
    line(itl, "itl_p99", "ITL p99 (per gap)", "itl", "--")
    _slo_lines(itl, slo, ("itl", "tpot"))
    itl.set_ylabel("ms")
    itl.set_title("inter-token latency (every gap between output deltas)", fontsize=10)
    for ax in (lat, itl):
        ys = [y for ln in ax.get_lines() for y in ln.get_ydata() if y == y]  # nan != nan
        _headroom(ax, ys)
        if not ax.get_lines():
            ax.text(0.5, 0.5, "too few samples per second for a percentile", ha="center",
                    va="center", transform=ax.transAxes, color="gray")  # fmt: skip
    ok = [p["requests"] - p["failed"] for p in full]
    failed = [p["failed"] for p in full]
    rate.bar(xs, ok, width=0.85, color="tab:gray", label="finished ok")
    rate.bar(xs, failed, width=0.85, bottom=ok, color="tab:red", label="failed")
    rate.plot(xs, [p["good"] for p in full], color="tab:orange", marker=".", label="goodput")
    rate.set_ylabel("requests / s")
    rate.set_title("requests finished per second", fontsize=10)
    conc.step(xs, [p["concurrency"] for p in full], where="mid", color="black", label="in flight")
    users = summary.get("users")
    if users and summary["shape"] == "fixed":
        conc.axhline(users, color="gray", linestyle=(0, (4, 3)), label=f"users (-u {users})")
    _steps(axes, summary, t0)
    conc.set_ylabel("requests")
    conc.set_ylim(bottom=0)
    conc.set_title("requests in flight (mean over each second)", fontsize=10)
    conc.set_xlabel(
        "seconds since the first request (first and last partial seconds left out)"
        if len(points) > 2
        else "seconds since the first request"
    )
    _headroom(rate, [a + b for a, b in zip(ok, failed, strict=True)])
    _headroom(conc, [p["concurrency"] for p in full] + [float(users or 0)])
    for ax in axes:
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(**_SIDE)
    target = summary["target"]
    warm = (summary.get("warmup") or {}).get("rule")
    title = f"{target['model']} @ {target['url']} — {summary['shape']}"
    fig.suptitle(title + (f" (warm-up left out: {warm})" if warm else ""), fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _sweep(path: Path, summary: dict[str, Any], slo: SLO | None) -> Path:
    steps = [s for s in summary["sweep"]["steps"] if "latency_ms" in s]
    xs = [s["throughput"]["successful_requests_per_s"] for s in steps]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    panels = (
        (left, (("ttft", "p95", "TTFT p95"), ("e2e", "p50", "e2e p50")), ("ttft", "e2e")),
        (right, (("itl", "p99", "ITL p99 (per gap)"), ("tpot", "p50", "TPOT p50")), ("itl", "tpot")),
    )  # fmt: skip
    for ax, series, metrics in panels:
        for metric, q, label in series:
            ys = [s["latency_ms"][metric][q] for s in steps]
            if not any(ys):  # a log axis cannot show zeros (e.g. ITL of one-chunk answers)
                continue
            ax.plot(xs, [y if y else float("nan") for y in ys], "-o", color=_COLORS[metric],
                    label=label)  # fmt: skip
            for x, y, s in zip(xs, ys, steps, strict=True):
                if y and s["status"] == "breached":
                    ax.plot([x], [y], "o", color="tab:red", markersize=12, fillstyle="none")
                if y and metric == series[0][0]:
                    ax.annotate(f"{s['offered_rate']:g}/s", (x, y), textcoords="offset points",
                                xytext=(4, 6), fontsize=8)  # fmt: skip
        _slo_lines(ax, slo, metrics)
        if ax.get_lines():
            _latency_axis(ax, [y for ln in ax.get_lines() for y in ln.get_ydata() if y == y])
            ax.legend(**{**_SIDE, "bbox_to_anchor": (0.0, -0.15), "ncol": 2})
        ax.set_xlabel("achieved throughput (successful requests / s)")
        ax.grid(True, which="both", alpha=0.3)
    best = summary["sweep"]["max_rate_meeting_slo"]
    fig.suptitle(
        f"rate sweep — labels: offered rate; red ring: SLO breached; "
        f"max offered rate meeting the SLO: {best if best is not None else 'none'} req/s",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# ----------------------------------------------------------------------- concurrency sweep


def write_multi_plots(directory: Path, multi: dict[str, Any], slo: SLO | None) -> list[Path]:
    if len(multi["plan"]["users"]) < 2:
        return []
    steps = [s for t in multi["targets"] for s in t["steps"] if s["runs"]]
    if not any(s["metrics"] for s in steps):
        return []
    return [_concurrency(directory / "sweep.png", multi, slo)]


def _concurrency(path: Path, multi: dict[str, Any], slo: SLO | None) -> Path:
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    panels: tuple[tuple[Axes, _Series, str, tuple[str, ...]], ...] = (
        (axes[0][0], (("successful_requests_per_s", "req/s", "-"), ("goodput_per_s", "goodput",
         ":")), "requests / s", ()),
        (axes[0][1], (("ttft_p95", "TTFT p95", "-"),), "TTFT p95, ms", ("ttft",)),
        (axes[1][0], (("itl_p99", "ITL p99 (per gap)", "-"), ("itl_request_p99",
         "ITL p99 (per-request mean)", "--")), "ITL p99, ms", ("itl",)),
        (axes[1][1], (("e2e_p95", "e2e p95", "-"),), "e2e p95, ms", ("e2e",)),
    )  # fmt: skip
    users_seen: set[int] = set()
    searched = {s["users"] for t in multi["targets"] for s in t["steps"] if s.get("searched")}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    single = len(multi["targets"]) == 1
    for n, target in enumerate(multi["targets"]):
        color = colors[n % len(colors)]
        steps = [s for s in target["steps"] if s["metrics"] and s["status"] != "broke"]
        xs = [s["users"] for s in steps]
        users_seen.update(xs)
        for ax, series, _, _ in panels:
            for number, (key, label, style) in enumerate(series):
                if single:  # one target: a colour per series (else per target, a style per series)
                    color = ("tab:blue", "tab:orange")[number]
                stats = [s["metrics"].get(key) or {} for s in steps]
                ys = [float("nan") if st.get("mean") is None else st["mean"] for st in stats]
                errs = [st.get("ci95_half_width") or 0.0 for st in stats]
                # Several targets: the series' styles in each panel's legend (in gray, once),
                # the targets' colours in one legend above the panels.
                name = label if single or n == 0 else "_"
                ax.errorbar(xs, ys, yerr=errs if any(errs) else None, fmt=style,
                            marker="os"[number], fillstyle="full" if number == 0 else "none",
                            color=color, capsize=3, label=name)  # fmt: skip
                for x, y, s in zip(xs, ys, steps, strict=True):
                    if s["status"] == "breached":
                        ax.plot([x], [y], "o", color="tab:red", markersize=12, fillstyle="none")
        knee = (target.get("concurrency_sweep") or {}).get("knee")
        if knee:
            axes[0][0].axvline(knee["users"], color="gray" if single else color,
                               linestyle=(0, (1, 2)),
                               label=f"{target['label']}: knee at {knee['users']} users")  # fmt: skip
    for ax, series, ylabel, metrics in panels:
        _slo_lines(ax, slo, metrics)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sorted(users_seen)))
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda v, _: f"{v:g}" + ("*" if round(v) in searched else ""))
        )
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_ylim(bottom=0)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        handles = None
        if not single:  # the series' styles in gray: the colours are the targets'
            lines = [h for h in ax.get_legend_handles_labels()[0] if isinstance(h, Line2D)]
            handles = [
                Line2D([], [], color="gray", linestyle=style, marker="os"[number],
                       fillstyle="full" if number == 0 else "none", label=label)
                for number, (_, label, style) in enumerate(series)
            ] + lines  # fmt: skip
        ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(0.0, -0.12),
                  ncol=2, frameon=False)  # fmt: skip
    for ax in axes[1]:
        ax.set_xlabel("concurrent users (log scale)")
    ci = " · bars: 95% CI over runs" if multi["plan"]["repeat"] > 1 else ""
    ci += " · *: added by --search" if searched else ""
    fig.suptitle(f"concurrency sweep — red ring: SLO breached{ci}", fontsize=11)
    if not single:
        proxies = [
            Line2D([], [], color=colors[n % len(colors)], marker="o", label=t["label"])
            for n, t in enumerate(multi["targets"])
        ]
        fig.legend(handles=proxies, loc="upper center", bbox_to_anchor=(0.5, 0.965),
                   ncol=len(proxies), fontsize=9, frameon=False)  # fmt: skip
    fig.tight_layout(rect=(0, 0, 1, 0.95) if not single else (0, 0, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
