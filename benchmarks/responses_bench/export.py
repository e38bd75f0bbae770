"""The bench's own CSV and HTML, drawn from ``summary.json`` alone (sans-I/O but for the writes).

- ``stats.csv``: one row per run (and per rate-sweep step), every number from the bench's exact
  histograms (exact count, min, max, mean; percentiles within the 1% bucket) — Locust's
  ``locust_stats.csv`` rounds response times to 2-3 significant digits and knows no TTFT / ITL;
- ``report.html``: one self-contained page (plots inlined as base64 PNG, no script, no external
  file) — of a run, or of a multi-run (:mod:`benchmarks.responses_bench.multirun`): the targets
  side by side, each step of a concurrency sweep, confidence intervals of repeated runs.
"""

from __future__ import annotations

import base64
import csv
import html
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "CSV_COLUMNS",
    "METRIC_LABELS",
    "TABLE_METRICS",
    "run_rows",
    "write_csv",
    "write_multi_html",
    "write_run_html",
]

METRIC_LABELS = {
    "ttft": "TTFT",
    "itl": "ITL per gap (vLLM itl)",
    "itl_request": "ITL per-request mean (GuideLLM ITL)",
    "tpot": "TPOT (vLLM tpot, AIPerf ITL)",
    "e2e": "e2e latency",
}

# (flat key, console / HTML label) of the numbers a multi-run compares side by side.
TABLE_METRICS = (
    ("requests", "requests"),
    ("failed", "failed"),
    ("successful_requests_per_s", "successful req/s"),
    ("goodput_per_s", "goodput req/s"),
    ("output_tokens_per_s", "output tok/s"),
    ("total_tokens_per_s", "total tok/s"),
    ("concurrency_mean", "in flight (mean)"),
    ("ttft_p50", "TTFT p50 ms"),
    ("ttft_p95", "TTFT p95 ms"),
    ("ttft_p99", "TTFT p99 ms"),
    ("itl_p50", "ITL per gap p50 ms"),
    ("itl_p99", "ITL per gap p99 ms"),
    ("itl_request_p50", "ITL per-request mean p50 ms"),
    ("itl_request_p99", "ITL per-request mean p99 ms"),
    ("tpot_p50", "TPOT p50 ms"),
    ("e2e_p50", "e2e p50 ms"),
    ("e2e_p95", "e2e p95 ms"),
)

_DIST_METRICS = (
    ("ttft", "ms"), ("itl", "ms"), ("itl_request", "ms"), ("tpot", "ms"), ("e2e", "ms"),
    ("input_tokens", "tokens"), ("output_tokens", "tokens"),
)  # fmt: skip
_DIST_FIELDS = ("count", "mean", "std", "min", "p0.1", "p1", "p5", "p10", "p25", "p50", "p75",
                "p90", "p95", "p99", "p99.9", "max")  # fmt: skip
_HEAD = ("target", "users", "run", "step", "offered_rate", "window_s", "requests", "succeeded",
         "failed", "warmup_excluded", "requests_per_s", "successful_requests_per_s",
         "output_tokens_per_s", "total_tokens_per_s", "goodput_per_s", "concurrency_mean",
         "slo_ok")  # fmt: skip
CSV_COLUMNS = _HEAD + tuple(
    f"{metric}_{field}" + ("_ms" if unit == "ms" and field != "count" else "")
    for metric, unit in _DIST_METRICS
    for field in _DIST_FIELDS
)


def _dists(block: dict[str, Any], summary: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    out = dict(block.get("latency_ms", {}))
    if summary is not None:
        out["input_tokens"] = summary["tokens"]["input"]
        out["output_tokens"] = summary["tokens"]["output"]
    return out


def _row(block: dict[str, Any], dists: dict[str, dict[str, Any]], **head: Any) -> dict[str, Any]:
    req, thr = block["requests"], block["throughput"]
    row: dict[str, Any] = {
        **head,
        "requests": req["total"],
        "succeeded": req["succeeded"],
        "failed": req["failed"],
        "requests_per_s": thr["requests_per_s"],
        "successful_requests_per_s": thr["successful_requests_per_s"],
        "output_tokens_per_s": thr["output_tokens_per_s"],
        "total_tokens_per_s": thr["total_tokens_per_s"],
        "goodput_per_s": thr["goodput_per_s"],
        "concurrency_mean": block["concurrency"]["mean"],
    }
    for metric, unit in _DIST_METRICS:
        dist = dists.get(metric) or {}
        for field in _DIST_FIELDS:
            suffix = "_ms" if unit == "ms" and field != "count" else ""
            row[f"{metric}_{field}{suffix}"] = dist.get(field)
    return row


def run_rows(
    summary: dict[str, Any], *, target: str | None = None, users: int | None = None, run: int = 1
) -> list[dict[str, Any]]:
    """The CSV rows of one run's summary: the whole run, then each judged rate-sweep step."""
    target = target or summary["target"]["url"]
    base = {"target": target, "users": users if users is not None else summary.get("users")}
    rows = [
        _row(
            summary,
            _dists(summary, summary),
            **base,
            run=run,
            step="all",
            window_s=summary["window_s"],
            warmup_excluded=(summary.get("warmup") or {}).get("requests", 0),
            slo_ok=not summary["slo"]["breached"],
        )
    ]
    for step in (summary.get("sweep") or {}).get("steps", []):
        if "throughput" in step:
            rows.append(
                _row(
                    step,
                    _dists(step, None),
                    **base,
                    run=run,
                    step=step["step"],
                    offered_rate=step["offered_rate"],
                    slo_ok=step["ok"],
                )
            )
    return rows


def write_csv(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return path


# ------------------------------------------------------------------------------------------ HTML

_CSS = """body{font:14px/1.4 system-ui,sans-serif;margin:1.2em auto;max-width:1100px;color:#222}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.05em;margin:1em 0 .3em}
table{border-collapse:collapse;margin:.2em 0}td,th{padding:2px 8px;border-bottom:1px solid #ddd;
text-align:right}th:first-child,td:first-child{text-align:left}th{background:#f3f3f3}
.bad{color:#b00;font-weight:600}.ok{color:#070}.note{color:#555;font-size:.92em}
img{max-width:100%;border:1px solid #ddd}"""


def _e(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 1e6 else f"{value:,.0f}"
    return html.escape(str(value))


def _table(head: Sequence[str], rows: Iterable[Sequence[Any]], raw: bool = False) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = (str(c) if raw else _e(c) for c in row)
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "".join(out) + "</table>"


def _image(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<p><img alt="{html.escape(path.name)}" src="data:image/png;base64,{data}"></p>'


def _page(title: str, body: list[str]) -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>" + "\n".join(body) + "</body></html>\n"
    )


def _verdict(code: int, reason: str) -> str:
    cls = "ok" if code == 0 else "bad"
    return f"<p class='{cls}'>exit {code}: {html.escape(reason)}</p>"


_THROUGHPUT_HEAD = ("requests", "ok", "failed", "req/s", "output tok/s", "total tok/s", "goodput/s",
                    "in flight (mean)")  # fmt: skip


def _throughput_row(summary: dict[str, Any]) -> tuple[Any, ...]:
    req, thr = summary["requests"], summary["throughput"]
    return (req["total"], req["succeeded"], req["failed"], thr["requests_per_s"],
            thr["output_tokens_per_s"], thr["total_tokens_per_s"], thr["goodput_per_s"],
            summary["concurrency"]["mean"])  # fmt: skip


def write_run_html(path: Path, summary: dict[str, Any], images: Sequence[Path]) -> Path:
    target = summary["target"]
    body = [
        f"<h1>responses-bench · {_e(target['model'])} @ {_e(target['url'])}</h1>",
        f"<p class='note'>shape {_e(summary['shape'])} · window {summary['window_s']:.2f} s · "
        f"stream {target['stream']} · judged {target['validated']}</p>",
        _verdict(summary["exit_code"], summary["exit_reason"]),
        "<h2>Requests and throughput</h2>",
        _table(_THROUGHPUT_HEAD, [_throughput_row(summary)]),
    ]
    warm = summary.get("warmup") or {}
    if warm.get("rule"):
        body.append(
            f"<p class='note'>warm-up ({_e(warm['rule'])}): {warm['requests']} requests "
            "excluded from every statistic on this page</p>"
        )
    qs = ("mean", "p50", "p90", "p95", "p99", "max", "count")
    body.append("<h2>Latency (ms; successful requests)</h2>")
    body.append(
        _table(
            ("metric", *qs),
            [
                (METRIC_LABELS.get(m, m), *(d.get(q) for q in qs))
                for m, d in summary["latency_ms"].items()
            ],
        )
    )
    tok = summary["tokens"]
    body.append("<h2>Tokens per request</h2>")
    body.append(
        _table(
            ("", *qs),
            [(n, *(tok[n].get(q) for q in qs)) for n in ("input", "output")],
        )
    )
    objectives = summary["slo"]["objectives"]
    if summary["slo"]["spec"]:
        body.append("<h2>Objectives</h2>")
        body.append(
            _table(
                ("objective", "value", "threshold", "verdict"),
                [
                    (
                        html.escape(str(o["objective"])),
                        _e(o.get("value_ms", o.get("value"))),
                        _e(o.get("threshold_ms", o.get("threshold"))),
                        "<span class='ok'>ok</span>"
                        if o["ok"]
                        else "<span class='bad'>breached</span>",
                    )
                    for o in objectives
                ],
                raw=True,
            )
        )
    sweep = summary.get("sweep")
    if sweep:
        body.append("<h2>Rate sweep</h2>")
        body.append(_sweep_table(sweep))
    causes = summary["failures"]["by_cause"]
    if causes:
        body.append("<h2>Failures (by cause)</h2>")
        body.append(_table(("cause", "requests"), causes.items()))
    body += [_image(p) for p in images if p.is_file()]
    path.write_text(_page(f"responses-bench {target['url']}", body))
    return path


def _sweep_table(sweep: dict[str, Any]) -> str:
    rows = []
    for s in sweep["steps"]:
        lat = s.get("latency_ms") or {}
        thr = s.get("throughput") or {}
        rows.append(
            (
                s["offered_rate"],
                s["status"],
                thr.get("successful_requests_per_s"),
                thr.get("goodput_per_s"),
                (lat.get("ttft") or {}).get("p95"),
                (lat.get("itl") or {}).get("p99"),
            )
        )
    knee = sweep.get("knee") or {}
    best = sweep.get("max_goodput") or {}
    return _table(
        ("offered/s", "status", "achieved/s", "goodput/s", "TTFT p95", "ITL p99"), rows
    ) + (
        f"<p class='note'>max rate meeting the SLO: {_e(sweep['max_rate_meeting_slo'])} · knee: "
        f"{_e(knee.get('offered_rate'))} · max goodput {_e(best.get('goodput_per_s'))}/s at "
        f"{_e(best.get('offered_rate'))}/s</p>"
    )


def write_multi_html(path: Path, multi: dict[str, Any], images: Sequence[Path]) -> Path:
    """The multi-run page: each target side by side, a column per step (users), CI of repeats."""
    body = [
        "<h1>responses-bench · "
        + html.escape(", ".join(t["url"] for t in multi["targets"]))
        + "</h1>",
        f"<p class='note'>users {_e(multi['plan']['users'])} · {multi['plan']['repeat']} run(s) "
        f"per step · {html.escape(multi['plan']['ci'])}</p>",
        _verdict(multi["exit_code"], multi["exit_reason"]),
    ]
    order = {t["label"]: n for n, t in enumerate(multi["targets"])}
    columns = sorted(
        ((t, s) for t in multi["targets"] for s in t["steps"] if s["runs"]),
        key=lambda c: (c[1]["users"] or 0, order[c[0]["label"]]),
    )  # the targets next to each other at each users count
    head = ["metric"] + [
        f"{t['label']} · u={s['users'] or '-'}" + ("*" if s.get("searched") else "")
        for t, s in columns
    ]
    rows = []
    for key, label in TABLE_METRICS:
        row = [html.escape(label)]
        for _, s in columns:
            stat = s["metrics"].get(key) or {}
            whole = key in ("requests", "failed")
            mean, half = stat.get("mean"), stat.get("ci95_half_width")
            cell = f"{mean:,.0f}" if whole and mean is not None else _e(mean)
            if half is not None:
                cell += f" ± {half:,.0f}" if whole else f" ± {_e(half)}"
            row.append(cell)
        rows.append(row)
    row = ["SLO"]
    for _, s in columns:
        row.append(f"<span class='{'ok' if s['status'] == 'ok' else 'bad'}'>{s['status']}</span>")
    rows.append(row)
    body += ["<h2>Side by side (mean ± 95% CI half-width over runs)</h2>", _table(head, rows, True)]
    for t in multi["targets"]:
        sweep = t.get("concurrency_sweep")
        if sweep:
            knee, best = sweep.get("knee") or {}, sweep.get("max_goodput") or {}
            body.append(
                f"<p>{html.escape(t['label'])} ({html.escape(t['url'])}): max users meeting the "
                f"SLO {_e(sweep['max_users_meeting_slo'])} · knee {_e(knee.get('users'))} users · "
                f"max goodput {_e(best.get('goodput_per_s'))}/s at {_e(best.get('users'))} users"
                + (f" · stopped: {_e(t['stopped'])}" if t.get("stopped") else "")
                + (f" · not run: -u {_e(t['not_run_users'])}" if t.get("not_run_users") else "")
                + "</p>"
            )
    if any(s.get("searched") for _, s in columns):
        body.append(
            "<p class='note'>*: a step --search added between the last users count meeting the "
            "SLO and the first breach</p>"
        )
    body += [_image(p) for p in images if p.is_file()]
    links = [
        f"<a href='{html.escape(r['dir'])}/report.html'>{html.escape(r['dir'])}</a>"
        for t in multi["targets"]
        for s in t["steps"]
        for r in s["runs"]
    ]
    body.append("<h2>Each run</h2><p class='note'>" + " · ".join(links) + "</p>")
    path.write_text(_page("responses-bench multi-run", body))
    return path
