"""Run shapes a load-testing user expects (docs/bench-metrics.md, Run shapes): warm-up, a request bound, repeats with
confidence intervals, a concurrency sweep with its SLO stop, several targets, our CSV and HTML.

Short runs against the mock on loopback, bounded by request counts; the asserts are on structure
and lower bounds, never on speed.
"""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import pytest
from bench_support import (
    bench_command,
    capacity_server,
    free_port,
    mock_server,
    quiet_env,
    run_bench,
    scripted_server,
    sse,
    text_stream,
)

from benchmarks.responses_bench import search
from benchmarks.responses_bench.export import CSV_COLUMNS

_MOCK = ("--ttft", "0.01", "--inter-token", "0.002")


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_warmup_is_left_out_and_max_requests_bounds_the_run(tmp_path: Path) -> None:
    with mock_server(*_MOCK) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "-u", "2", "--max-output-tokens", "16",
            "--warmup", "4req", "--max-requests", "10", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    # Exactly the bound, the warm-up apart: in summary.json, the timeline and Locust's own table.
    assert summary["requests"]["total"] == 10
    assert summary["bounds"] == {"max_requests": 10, "reached_max_requests": True}
    warm = summary["warmup"]
    assert warm["requests"] == 4 and warm["excluded_from_statistics"] is True
    assert warm["rule"] == "the first 4 requests sent"
    assert sum(p["requests"] for p in summary["timeline"]) == 10
    assert summary["latency_ms"]["ttft"]["count"] == 10
    locust = {r["Name"]: r for r in _csv(tmp_path / "locust_stats.csv")}
    assert int(locust["Aggregated"]["Request Count"]) == 10
    assert "4 requests (0 failed) excluded from every statistic" in run.output
    assert "--max-requests 10: reached" in run.output

    # The per-request-mean ITL beside the per-gap one, labelled for GuideLLM / vLLM / AIPerf.
    lat = summary["latency_ms"]
    assert 0 < lat["itl_request"]["count"] <= 10 < lat["itl"]["count"]
    assert lat["itl_request"]["min"] >= lat["itl"]["min"]
    assert lat["itl_request"]["max"] <= lat["itl"]["max"]
    guide = summary["compat"]["guidellm"]["inter_token_latency_ms"]
    assert guide["mean"] == lat["itl_request"]["mean"]
    assert "ITL per gap (vLLM itl)" in run.output
    assert "ITL per-request mean (GuideLLM ITL)" in run.output

    # Our CSV: the exact histogram numbers (Locust's rounds), one row for the run.
    (row,) = _csv(tmp_path / "stats.csv")
    assert tuple(row) == CSV_COLUMNS
    assert int(row["requests"]) == 10 and int(row["warmup_excluded"]) == 4
    assert int(row["ttft_count"]) == 10
    assert float(row["e2e_mean_ms"]) == lat["e2e"]["mean"]
    assert float(row["itl_request_p50_ms"]) == lat["itl_request"]["p50"]
    assert float(row["e2e_max_ms"]) == lat["e2e"]["max"]
    page = (tmp_path / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 1  # timeline.png, inlined
    assert "<script" not in page and "excluded from every statistic" in page
    assert "ITL per-request mean" in page


def test_warmup_by_duration(tmp_path: Path) -> None:
    with mock_server(*_MOCK) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "-u", "2", "-t", "3s",
            "--max-output-tokens", "16", "--warmup", "1s", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    assert summary["warmup"]["rule"] == "requests sent in the first 1 s"
    assert summary["warmup"]["requests"] >= 1 and summary["requests"]["total"] >= 1
    assert summary["bounds"]["max_requests"] is None


def test_warmup_in_a_rate_sweep_is_not_counted_as_unfinished(tmp_path: Path) -> None:
    with mock_server(*_MOCK) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "--shape", "sweep", "--rates", "4,8",
            "--step-time", "1.5s", "--warmup", "0.5s", "--max-output-tokens", "16",
            "--slo", "ttft_p95=30s", timeout=90,
        )  # fmt: skip
    assert run.code == 0, run.output
    summary = run.summary
    assert summary["warmup"]["requests"] >= 1
    first, second = summary["sweep"]["steps"]
    assert first["status"] == second["status"] == "ok"
    assert first["unfinished"] == 0 and first["requests"]["failed"] == 0
    assert first["requests"]["total"] + summary["warmup"]["requests"] == 6  # 4/s for 1.5 s


def test_concurrency_sweep_with_repeats_and_confidence_intervals(tmp_path: Path) -> None:
    with mock_server(*_MOCK) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "-u", "1,3", "--repeat", "2",
            "--max-requests", "6", "--max-output-tokens", "16", "--slo", "ttft_p95=30s",
            timeout=180,
        )  # fmt: skip
    assert run.code == 0, run.output
    multi = run.summary
    assert multi["kind"] == "multi-run" and multi["plan"]["users"] == [1, 3]
    assert "Student-t" in multi["plan"]["ci"]
    (target,) = multi["targets"]
    assert [s["users"] for s in target["steps"]] == [1, 3]
    for step in target["steps"]:
        assert step["status"] == "ok"
        assert [r["run"] for r in step["runs"]] == [1, 2]
        assert all((tmp_path / r["dir"] / "summary.json").is_file() for r in step["runs"])
        requests = step["metrics"]["requests"]
        assert requests["mean"] == 6 and requests["values"] == [6.0, 6.0]
        rps = step["metrics"]["successful_requests_per_s"]
        low, high = rps["ci95"]
        assert rps["n"] == 2 and low <= rps["mean"] <= high
    sweep = target["concurrency_sweep"]
    assert sweep["max_users_meeting_slo"] == 3
    assert sweep["max_goodput"]["users"] in (1, 3)
    assert len(sweep["scaling_efficiency"]) == 1
    assert "knee" in sweep and "ln(T2/T1)/ln(L2/L1)" in sweep["knee_rule"]
    rows = _csv(tmp_path / "stats.csv")
    assert [(r["users"], r["run"]) for r in rows] == [
        ("1", "1"),
        ("1", "2"),
        ("3", "1"),
        ("3", "2"),
    ]
    assert (tmp_path / "sweep.png").stat().st_size > 0
    page = (tmp_path / "report.html").read_text()
    assert "data:image/png;base64," in page and "u=3" in page
    assert "multi-run summary" in run.output and " ±" in run.output
    assert run.output.count("=== responses-bench run ") == 4


def test_concurrency_sweep_stops_at_the_first_breach(tmp_path: Path) -> None:
    # Two requests at a time, 0.3 s each: one and two users are served at once; eight users queue,
    # so TTFT is at least 3 × 0.3 s for most of them — past the 500 ms objective.
    with capacity_server(2, 0.3, sse(text_stream(["a", "b", "c"]))) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "-u", "1,2,8,16", "--max-requests", "16",
            "--slo", "ttft_p95=500ms", timeout=180,
        )  # fmt: skip
    assert run.code == 0, run.output  # the first step met the SLO: a finished sweep
    (target,) = run.summary["targets"]
    assert [s["status"] for s in target["steps"]][-1] == "breached"
    assert [s["users"] for s in target["steps"]][-1] == 8
    assert target["not_run_users"] == [16]
    assert target["stopped"] == "SLO breached at -u 8"
    breach = target["steps"][-1]["metrics"]["ttft_p95"]["mean"]
    assert breach > 500


def test_search_bisects_between_the_last_ok_step_and_the_breach(tmp_path: Path) -> None:
    # Two requests at a time, 0.3 s each: 2 users are served at once; 4 or more users queue, so
    # most wait one service or more (TTFT >= 0.6 s) — past the 500 ms objective.
    with capacity_server(2, 0.3, sse(text_stream(["a", "b", "c"]))) as url:
        run = run_bench(
            tmp_path, "--base-url", url, "--model", "m", "-u", "2,16", "--search", "2",
            "--max-requests", "8", "--slo", "ttft_p95=500ms", timeout=180,
        )  # fmt: skip
    assert run.code == 0, run.output
    multi = run.summary
    assert multi["plan"]["search"] == 2
    (target,) = multi["targets"]
    users = [s["users"] for s in target["steps"]]
    assert users == sorted(users) and users[0] == 2 and users[-1] == 16
    searched = [s for s in target["steps"] if s.get("searched")]
    assert 1 <= len(searched) <= 2
    assert searched[0]["users"] in (6, 3)  # round(√(2·16)) = 6, then 3 or 10 by its verdict
    assert all(2 < s["users"] < 16 and s["status"] in ("ok", "breached") for s in searched)
    best = target["concurrency_sweep"]["max_users_meeting_slo"]
    assert best is not None and 2 <= best < 16
    assert target["stopped"] == "SLO breached at -u 16"
    assert "*: a step --search added" in run.output


def test_several_targets_side_by_side(tmp_path: Path) -> None:
    other = sse(text_stream(["x", "y"]))
    with mock_server(*_MOCK) as url, scripted_server(other) as url2:
        run = run_bench(
            tmp_path, "--base-url", url, "--base-url", url2, "--model", "m", "-u", "1",
            "--max-requests", "3", "--max-output-tokens", "16", timeout=120,
        )  # fmt: skip
    assert run.code == 0, run.output
    targets = run.summary["targets"]
    assert [t["url"] for t in targets] == [url, url2]
    assert len({t["label"] for t in targets}) == 2
    assert all(t["steps"][0]["metrics"]["requests"]["mean"] == 3 for t in targets)
    assert "concurrency_sweep" not in targets[0]  # one -u value: no sweep
    rows = _csv(tmp_path / "stats.csv")
    assert [r["target"] for r in rows] == [url, url2]
    header = next(line for line in run.output.splitlines() if " u=1" in line)
    assert all(t["label"] in header for t in targets)  # one column per target, side by side


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-u", "1,4", "--shape", "open-loop", "--rate", "2", "-t", "2"], "concurrency sweep"),
        (["-u", "4,1"], "must increase"),
        (["-u", "0,4"], "at least 1 user"),
        (["--warmup", "5s", "-t", "3s"], "nothing would be measured"),
        (["--warmup", "0req"], "--warmup"),
        (["--warmup", "soon"], "--warmup"),
        (["--max-requests", "0"], "--max-requests"),
        (["--max-requests", "5", "--shape", "sweep", "--rates", "1,2"], "--step-time"),
        (["--repeat", "0"], "--repeat"),
        (["--ramp-from", "-1", "--shape", "ramp"], "--ramp-from"),
        (["--search", "2", "--slo", "ttft_p95=1s"], "--search"),
        (["-u", "1,4", "--search", "2"], "--search"),
        (["-u", "1,4", "--search", "-1", "--slo", "ttft_p95=1s"], "--search"),
        (["-u", "1,4", "--master"], "--master"),
        (["--repeat", "2", "--ui"], "--ui"),
        (["--repeat", "2", "--csv", "x"], "--csv"),
        (["-u", "1,2", "--base-url", "ftp://nowhere"], "--base-url"),
    ],
)
def test_bad_combinations_fail_before_load(tmp_path: Path, args: list[str], needle: str) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: passing the checks would say so
    proc = subprocess.run(
        bench_command("--base-url", url, "--model", "m", "--report-dir", str(tmp_path), *args),
        capture_output=True,
        text=True,
        timeout=60,
        env=quiet_env(),
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], proc.stderr
    assert "unreachable" not in lines[0]
    assert not (tmp_path / "summary.json").exists()


def test_an_unreachable_second_target_fails_before_any_load(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with mock_server(*_MOCK) as url:
        argv = ["--base-url", url, "--base-url", dead, "--model", "m", "-u", "1"]
        proc = subprocess.run(
            bench_command(*argv, "--max-requests", "2", "--report-dir", str(tmp_path)),
            capture_output=True,
            text=True,
            timeout=60,
            env=quiet_env(),
        )
    assert proc.returncode == 2 and "unreachable" in proc.stderr and dead in proc.stderr
    assert not list(tmp_path.iterdir())  # not one run started


def test_t_interval_knee_and_max_goodput() -> None:
    ci = search.t_interval([1.0, 2.0, 3.0])
    assert ci["mean"] == 2.0 and ci["std"] == 1.0
    half = 4.303 / math.sqrt(3)
    assert ci["ci95"] == [round(2 - half, 4), round(2 + half, 4)]
    assert search.t_interval([5.0])["ci95"] is None
    assert search.t975(40) == pytest.approx(2.021, abs=0.003)
    # Throughput 10, 40, 80, 85 at 1, 4, 16, 64 users: linear, then ×2 for ×4 users (efficiency
    # 0.5, still scaling), then flat: the knee is 16 users.
    loads, thr = [1.0, 4.0, 16.0, 64.0], [10.0, 40.0, 80.0, 85.0]
    assert search.knee(loads, thr) == 2
    assert search.efficiencies(loads, thr)[:2] == [1.0, 0.5]
    assert search.knee(loads[:3], thr[:3]) is None  # still scaling: not reached
    assert search.max_goodput([3.0, 9.0, 9.0, 2.0]) == 1
    assert search.max_goodput([None, None]) is None
