"""PNG plots drawn from ``summary.json`` alone (so they can be redrawn from an old run).

- ``timeline.png``: latency percentiles per second of completion (TTFT, ITL, e2e) above, throughput
  per second (requests, failures, goodput; output tokens on the right axis) below;
- ``sweep.png`` (sweeps): each step's latency percentiles against the throughput it achieved, the
  SLO thresholds dashed, the breaching step in red — the knee of the curve is the capacity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display on CI or a load generator

import matplotlib.pyplot as plt

from .slo import SLO

__all__ = ["write_plots"]

_LATENCY_LINES = (
    ("ttft_p50", "TTFT p50", "tab:blue", "-"),
    ("ttft_p95", "TTFT p95", "tab:blue", "--"),
    ("itl_p50", "ITL p50", "tab:green", "-"),
    ("itl_p99", "ITL p99", "tab:green", "--"),
    ("e2e_p50", "e2e p50", "tab:purple", "-"),
    ("e2e_p95", "e2e p95", "tab:purple", "--"),
)


def write_plots(directory: Path, summary: dict[str, Any], slo: SLO | None) -> list[Path]:
    written = []
    if summary.get("timeline"):
        written.append(_timeline(directory / "timeline.png", summary))
    if summary.get("sweep") and any("latency_ms" in s for s in summary["sweep"]["steps"]):
        written.append(_sweep(directory / "sweep.png", summary, slo))
    return written


def _timeline(path: Path, summary: dict[str, Any]) -> Path:
    points = summary["timeline"]
    t0 = points[0]["t"]
    xs = [p["t"] - t0 for p in points]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for key, label, color, style in _LATENCY_LINES:
        ys = [p[key] for p in points]
        if any(y is not None for y in ys):
            top.plot(
                xs,
                [float("nan") if y is None else y for y in ys],
                style,
                color=color,
                label=label,
                marker=".",
            )
    top.set_yscale("log")
    top.set_ylabel("latency (ms, log)")
    top.set_title(f"{summary['target']['model']} @ {summary['target']['url']} — {summary['shape']}")
    top.grid(True, which="both", alpha=0.3)
    top.legend(loc="upper left", fontsize=8, ncol=3)
    ok = [p["requests"] - p["failed"] for p in points]
    failed = [p["failed"] for p in points]
    bottom.bar(xs, ok, width=0.9, color="tab:gray", label="requests ok / s")
    bottom.bar(xs, failed, width=0.9, bottom=ok, color="tab:red", label="failed / s")
    bottom.plot(
        xs, [p["good"] for p in points], color="tab:orange", marker=".", label="goodput / s"
    )
    bottom.set_ylabel("requests finished per second")
    bottom.set_xlabel("seconds since the first second with a request in flight")
    tokens = bottom.twinx()
    tokens.plot(xs, [p["output_tokens"] for p in points], color="tab:cyan", label="output tok/s")
    tokens.set_ylabel("output tokens per second")
    handles = bottom.get_legend_handles_labels()
    extra = tokens.get_legend_handles_labels()
    bottom.legend(handles[0] + extra[0], handles[1] + extra[1], loc="upper left", fontsize=8)
    bottom.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _sweep(path: Path, summary: dict[str, Any], slo: SLO | None) -> Path:
    steps = [s for s in summary["sweep"]["steps"] if "latency_ms" in s]
    xs = [s["throughput"]["successful_requests_per_s"] for s in steps]
    fig, ax = plt.subplots(figsize=(9, 6))
    series = (
        ("ttft", "p95", "TTFT p95", "tab:blue"),
        ("itl", "p99", "ITL p99", "tab:green"),
        ("e2e", "p50", "e2e p50", "tab:purple"),
    )
    for metric, q, label, color in series:
        ys = [s["latency_ms"][metric][q] for s in steps]
        if any(y for y in ys):  # a log axis cannot show zeros (e.g. ITL of one-chunk answers)
            ax.plot(
                xs, [float("nan") if y is None else y for y in ys], "-o", color=color, label=label
            )
            for x, y, s in zip(xs, ys, steps, strict=True):
                if y is not None and s["status"] == "breached":
                    ax.plot([x], [y], "o", color="tab:red", markersize=11, fillstyle="none")
    for x, s in zip(xs, steps, strict=True):
        y = s["latency_ms"]["ttft"]["p95"] or s["latency_ms"]["e2e"]["p50"]
        if y:
            ax.annotate(
                f"offered {s['offered_rate']:g}/s",
                (x, y),
                textcoords="offset points",
                xytext=(4, 8),
                fontsize=8,
            )
    if slo is not None:
        colors = {"ttft": "tab:blue", "itl": "tab:green", "e2e": "tab:purple", "tpot": "tab:brown"}
        for o in slo.latency:
            ax.axhline(
                o.threshold,
                linestyle="--",
                color=colors.get(o.metric, "gray"),
                alpha=0.7,
                label=f"SLO {o.key} = {o.threshold:g} ms",
            )
    ax.set_yscale("log")
    ax.set_xlabel("achieved throughput (successful requests / s)")
    ax.set_ylabel("latency (ms, log)")
    best = summary["sweep"]["max_rate_meeting_slo"]
    ax.set_title(f"rate sweep — max offered rate meeting the SLO: {best} req/s (red: breach)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
