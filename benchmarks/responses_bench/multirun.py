"""Several runs as one: a concurrency sweep (``-u 1,4,16,64``), ``--repeat N``, several targets.

Each run is a whole ``responses-bench`` run in a child process (a fresh Locust, fresh connections:
what GuideLLM and AIPerf do for each step of a sweep), with its own reports in
``DIR/<target>/u<users>/run<k>/``. The order interleaves targets and repeats — for each step, run
1 of every target, then run 2… — so a drift of the machine is shared rather than charged to one
target. After each step a target's sweep stops at the first step that breaches the SLO (a step
breaches when any of its runs does), as the rate sweep does. Then ``DIR/summary.json``,
``stats.csv``, ``report.html`` and ``sweep.png`` put it all together: per target a column per step,
the mean of each number over the runs and its 95% Student-t interval
(:mod:`benchmarks.responses_bench.search`), the knee, the max goodput, the most users meeting the
SLO.

Exit codes: 2 when a run broke (the others still report), 1 when a stream broke a judge check or an
SLO breached (a sweep: at its first step), else 0.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from . import export, search
from .export import TABLE_METRICS
from .report import search_block
from .slo import SLO

__all__ = ["TABLE_METRICS", "Plan", "run_all"]


@dataclass(frozen=True, slots=True)
class Plan:
    targets: tuple[str, ...]  # --base-url values, as given
    users: tuple[int | None, ...]  # -u values (None: the child's default)
    repeat: int
    report_dir: Path
    slo: SLO
    child_argv: tuple[str, ...]  # every other option, passed to each run unchanged
    search: int = 0  # --search: bisection steps after a sweep's first breach

    @property
    def sweep(self) -> bool:
        return len(self.users) > 1


def labels(targets: tuple[str, ...]) -> list[str]:
    """Short, distinct, file-safe names: ``host_port`` (plus ``-2``… when two are equal)."""
    out: list[str] = []
    for url in targets:
        parts = urlsplit(url)
        base = f"{parts.hostname or 'target'}_{parts.port or ''}".strip("_").replace(":", "_")
        name, n = base, 2
        while name in out:
            name, n = f"{base}-{n}", n + 1
        out.append(name)
    return out


def flat(summary: dict[str, Any]) -> dict[str, Any]:
    """The numbers of one run the multi-run compares (see :data:`TABLE_METRICS`)."""
    thr, lat, req = summary["throughput"], summary["latency_ms"], summary["requests"]
    out: dict[str, Any] = {
        "requests": req["total"],
        "failed": req["failed"],
        "successful_requests_per_s": thr["successful_requests_per_s"],
        "goodput_per_s": thr["goodput_per_s"],
        "output_tokens_per_s": thr["output_tokens_per_s"],
        "total_tokens_per_s": thr["total_tokens_per_s"],
        "concurrency_mean": summary["concurrency"]["mean"],
    }
    for metric, qs in (
        ("ttft", (50, 95, 99)), ("itl", (50, 99)), ("itl_request", (50, 99)), ("tpot", (50,)),
        ("e2e", (50, 95)),
    ):  # fmt: skip
        for q in qs:
            out[f"{metric}_p{q}"] = (lat.get(metric) or {}).get(f"p{q}")
    return out


def run_all(plan: Plan) -> int:
    plan.report_dir.mkdir(parents=True, exist_ok=True)
    names = labels(plan.targets)
    targets: list[dict[str, Any]] = [
        {"url": url, "label": name, "steps": [], "stopped": None}
        for url, name in zip(plan.targets, names, strict=True)
    ]
    total = len(plan.users) * plan.repeat * len(targets)
    done = 0
    interrupted = False
    try:
        for users in plan.users:
            live = [t for t in targets if t["stopped"] is None]
            if not live:
                break
            steps = {t["label"]: _step(users) for t in live}
            for t in live:
                t["steps"].append(steps[t["label"]])
            for run in range(1, plan.repeat + 1):
                for t in live:
                    done += 1
                    _announce(plan, t, users, run, done, total)
                    steps[t["label"]]["runs"].append(_child(plan, t, users, run))
            for t in live:
                _judge_step(plan, t, steps[t["label"]])
        for t in targets:
            _search(plan, t)
    except KeyboardInterrupt:
        print("responses-bench: interrupted; reporting the runs that finished", flush=True)
        interrupted = True
    multi = _summary(plan, targets)
    if interrupted:
        multi["interrupted"] = True
        multi["exit_code"], multi["exit_reason"] = 2, "interrupted: " + multi["exit_reason"]
    _write(plan, multi)
    print(render(multi), flush=True)
    return int(multi["exit_code"])


def _step(users: int | None) -> dict[str, Any]:
    return {"users": users, "status": "not run", "runs": [], "metrics": {}}


def _announce(plan: Plan, t: dict[str, Any], users: int | None, run: int, n: int, of: int) -> None:
    what = [t["url"]]
    if users is not None:
        what.append(f"-u {users}")
    if plan.repeat > 1:
        what.append(f"run {run}/{plan.repeat}")
    print(f"\n=== responses-bench run {n}/{of}: {', '.join(what)} ===", flush=True)


def _child(plan: Plan, t: dict[str, Any], users: int | None, run: int) -> dict[str, Any]:
    rel = Path(t["label"]) / (f"u{users}" if users is not None else "u-") / f"run{run}"
    directory = plan.report_dir / rel
    argv = [*plan.child_argv, "--base-url", t["url"], "--report-dir", str(directory)]
    if users is not None:
        argv += ["-u", str(users)]
    command = [sys.executable, "-m", "benchmarks.responses_bench.cli", *argv]
    code = subprocess.call(command)
    record: dict[str, Any] = {"run": run, "dir": rel.as_posix(), "exit_code": code}
    path = directory / "summary.json"
    if path.is_file():
        summary = json.loads(path.read_text())
        record["metrics"] = flat(summary)
        record["slo_breached"] = bool(summary["slo"]["breached"])
        record["check_ids"] = sorted(summary["failures"]["by_check_id"])
        record["exit_reason"] = summary.get("exit_reason")
        record["_summary"] = summary
    return record


def _search(plan: Plan, t: dict[str, Any]) -> None:
    """``--search N``: bisect between the last users count meeting the SLO and the first breach.

    The midpoint is geometric (``round(√(lo·hi))``: sweeps are log-spaced); each searched step
    runs ``--repeat`` times like the others and is put in order among the steps (``searched``).
    """
    steps: list[dict[str, Any]] = t["steps"]
    breach = next((i for i, s in enumerate(steps) if s["status"] == "breached"), None)
    if not plan.search or breach is None or breach == 0 or steps[breach - 1]["status"] != "ok":
        return
    low, high = steps[breach - 1]["users"], steps[breach]["users"]
    stopped = t["stopped"]
    for _ in range(plan.search):
        middle = round(math.sqrt(low * high))
        middle = min(max(middle, low + 1), high - 1)
        if not low < middle < high:
            break
        step = _step(middle)
        step["searched"] = True
        for run in range(1, plan.repeat + 1):
            print(f"\n=== responses-bench search: {t['url']}, -u {middle} (between {low} and "
                  f"{high}), run {run}/{plan.repeat} ===", flush=True)  # fmt: skip
            step["runs"].append(_child(plan, t, middle, run))
        _judge_step(plan, t, step)
        steps.append(step)
        steps.sort(key=lambda s: s["users"])
        if step["status"] == "ok":
            low = middle
        elif step["status"] == "breached":
            high = middle
        else:
            break
    if t["stopped"] != "a run broke":
        t["stopped"] = stopped


def _judge_step(plan: Plan, t: dict[str, Any], step: dict[str, Any]) -> None:
    runs = step["runs"]
    keys = [k for k, _ in TABLE_METRICS]
    step["metrics"] = {
        k: search.t_interval([r.get("metrics", {}).get(k) for r in runs]) for k in keys
    }
    if any(r["exit_code"] == 2 or "metrics" not in r for r in runs):
        step["status"] = "broke"
        t["stopped"] = "a run broke"
    elif any(r["slo_breached"] for r in runs):
        step["status"] = "breached"
        if plan.sweep:
            t["stopped"] = f"SLO breached at -u {step['users']}"
    else:
        step["status"] = "ok"


def _summary(plan: Plan, targets: list[dict[str, Any]]) -> dict[str, Any]:
    out_targets = []
    for t in targets:
        steps = [{k: v for k, v in s.items()} for s in t["steps"]]
        for s in steps:
            s["runs"] = [{k: v for k, v in r.items() if k != "_summary"} for r in s["runs"]]
        block: dict[str, Any] = {"url": t["url"], "label": t["label"], "steps": steps}
        ran = [u for u in plan.users if u not in {s["users"] for s in steps}]
        block["not_run_users"] = ran
        block["stopped"] = t["stopped"]
        if plan.sweep:
            block["concurrency_sweep"] = _sweep(steps)
        out_targets.append(block)
    multi: dict[str, Any] = {
        "tool": "responses-bench",
        "format": 1,
        "kind": "multi-run",
        "plan": {
            "targets": list(plan.targets),
            "users": list(plan.users),
            "repeat": plan.repeat,
            "search": plan.search,
            "order": "for each step: run 1 of every target, then run 2, ...",
            "ci": "95% Student-t interval over the runs' values (mean ± t(0.975, n-1)·s/√n)",
            "slo": [o.key for o in plan.slo.objectives],
        },
        "targets": out_targets,
    }
    multi["exit_code"], multi["exit_reason"] = _exit(plan, targets)
    return multi


def _sweep(steps: list[dict[str, Any]]) -> dict[str, Any]:
    measured = [s for s in steps if s["status"] in ("ok", "breached")]

    def mean(s: dict[str, Any], key: str) -> float | None:
        value = s["metrics"][key]["mean"]
        return None if value is None else float(value)

    best_ok: int | None = None
    for s in measured:
        if s["status"] != "ok":
            break
        best_ok = s["users"]
    out = search_block(
        [float(s["users"]) for s in measured],
        [mean(s, "successful_requests_per_s") for s in measured],
        [mean(s, "goodput_per_s") for s in measured],
        "users",
    )
    for key in ("knee", "max_goodput"):
        if out[key] is not None:
            out[key]["users"] = int(out[key]["users"])
    return {"max_users_meeting_slo": best_ok, **out}


def _exit(plan: Plan, targets: list[dict[str, Any]]) -> tuple[int, str]:
    runs = [r for t in targets for s in t["steps"] for r in s["runs"]]
    if not runs:
        return 2, "no run finished"
    broke = [r for r in runs if r["exit_code"] == 2 or "metrics" not in r]
    if broke:
        return 2, f"{len(broke)} run(s) broke: " + (broke[0].get("exit_reason") or broke[0]["dir"])
    checks = sorted({c for r in runs for c in r.get("check_ids", [])})
    if checks:
        return 1, f"streams broke judge check(s): {', '.join(checks)}"
    if plan.sweep:
        first = [t["label"] for t in targets if t["steps"] and t["steps"][0]["status"] != "ok"]
        if first:
            return 1, f"the SLO breached at the first step ({', '.join(first)})"
        return 0, "concurrency sweep finished"
    breached = [r["dir"] for r in runs if r["slo_breached"]]
    if breached:
        return 1, f"SLO breached in {len(breached)} run(s): {breached[0]}"
    return 0, "ok"


def _write(plan: Plan, multi: dict[str, Any]) -> None:
    directory = plan.report_dir
    (directory / "summary.json").write_text(json.dumps(multi, indent=2) + "\n")
    rows = []
    for t in multi["targets"]:
        for s in t["steps"]:
            for r in s["runs"]:
                path = directory / r["dir"] / "summary.json"
                if path.is_file():
                    summary = json.loads(path.read_text())
                    rows += export.run_rows(
                        summary, target=t["url"], users=s["users"], run=r["run"]
                    )
    export.write_csv(directory / "stats.csv", rows)
    from . import plots  # matplotlib: only now

    images = plots.write_multi_plots(directory, multi, plan.slo)
    export.write_multi_html(directory / "report.html", multi, images)


def side_by_side(multi: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(target, step) columns, the targets next to each other at each users count."""
    order = {t["label"]: n for n, t in enumerate(multi["targets"])}
    columns = [(t, s) for t in multi["targets"] for s in t["steps"] if s["runs"]]
    return sorted(columns, key=lambda c: (c[1]["users"] or 0, order[c[0]["label"]]))


def _cell(stat: dict[str, Any], key: str = "") -> str:
    mean = stat.get("mean")
    if mean is None:
        return "-"
    whole = key in ("requests", "failed") or abs(mean) >= 1e5
    text = f"{mean:.0f}" if whole else f"{mean:.1f}"
    half = stat.get("ci95_half_width")
    return text + (f" ±{half:.1f}" if half is not None else "")


def render(multi: dict[str, Any]) -> str:
    """The console's side-by-side table: a column per (target, step)."""
    columns = side_by_side(multi)
    lines = ["", "responses-bench multi-run summary", "=" * 33]
    plan = multi["plan"]
    if plan["repeat"] > 1:
        lines.append(f"{plan['repeat']} runs per step; ± is the {plan['ci']}")
    names = [
        f"{t['label']} u={s['users']}" + ("*" if s.get("searched") else "") for t, s in columns
    ]
    width = max([14] + [len(n) + 2 for n in names])
    lines.append(f"{'':<30}" + "".join(f"{n:>{width}}" for n in names))
    for key, label in TABLE_METRICS:
        cells = "".join(f"{_cell(s['metrics'].get(key) or {}, key):>{width}}" for _, s in columns)
        lines.append(f"{label:<30}{cells}")
    lines.append(f"{'SLO':<30}" + "".join(f"{s['status']:>{width}}" for _, s in columns))
    for t in multi["targets"]:
        sweep = t.get("concurrency_sweep")
        if sweep is None:
            continue
        knee, best = sweep["knee"], sweep["max_goodput"]
        lines.append(
            f"{t['label']}: max users meeting the SLO {sweep['max_users_meeting_slo']}; knee "
            + (f"at {knee['users']} users" if knee else "not reached")
            + "; max goodput "
            + (f"{best['goodput_per_s']:.2f} req/s at {best['users']} users" if best else "-")
            + (f"; stopped: {t['stopped']}" if t["stopped"] else "")
        )
    if any(s.get("searched") for _, s in columns):
        lines.append("*: a step --search added between the last users count meeting the SLO "
                     "and the first breach")  # fmt: skip
    lines.append("reports: summary.json, stats.csv, report.html, sweep.png; each run in its folder")
    lines.append(f"exit {multi['exit_code']}: {multi['exit_reason']}")
    return "\n".join(lines)
