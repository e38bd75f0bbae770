"""The sans-I/O pieces: histogram, SLO, aggregate merging, arrival schedules, workload, options."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.responses_bench.aggregate import Aggregate
from benchmarks.responses_bench.arrivals import ArrivalPlan, Step, parse_duration, parse_rates
from benchmarks.responses_bench.histogram import LogHistogram, quantile
from benchmarks.responses_bench.meter import RequestRecord
from benchmarks.responses_bench.options import (
    ConfigError,
    add_arguments,
    build_config,
    responses_url,
)
from benchmarks.responses_bench.slo import SLO, SLOSyntaxError
from benchmarks.responses_bench.workload import Workload, WorkloadConfig, WorkloadError


def test_histogram_percentiles_are_within_half_a_percent() -> None:
    rng = random.Random(1)
    values = [rng.lognormvariate(3, 1) for _ in range(20_000)]
    hist = LogHistogram()
    hist.extend(values)
    for q in (50, 90, 99):
        exact = quantile(values, q)
        assert exact is not None
        assert hist.percentile(q) == pytest.approx(exact, rel=0.006)
    assert hist.percentile(0) == pytest.approx(min(values), rel=0.006)
    assert hist.percentile(100) == max(values)


def test_histogram_zero_and_wire_round_trip_and_merge() -> None:
    a, b = LogHistogram(), LogHistogram()
    a.extend([0.0, 0.0, 5.0])
    b.extend([10.0, 20.0])
    wire = json.loads(json.dumps(a.to_wire()))
    a2 = LogHistogram.from_wire(wire)
    assert a2.percentile(50) == 0.0 and a2.count == 3
    a2.merge(b)
    assert a2.count == 5 and a2.max == 20.0 and a2.min == 0.0
    assert LogHistogram().percentile(50) is None


def test_slo_parsing() -> None:
    slo = SLO.parse("ttft_p95=500ms, itl_p99=0.05s,e2e_p50=2,error_rate=1%")
    assert [(o.key, o.threshold) for o in slo.objectives] == [
        ("ttft_p95", 500.0),
        ("itl_p99", 50.0),
        ("e2e_p50", 2000.0),
        ("error_rate", 0.01),
    ]
    assert SLO.parse(None).error_rate == 0.0
    for bad in (
        "ttft=5",
        "ttft_p95",
        "foo_p9=1",
        "error_rate=2",
        "ttft_p95=fast",
        "ttft_p0=1",
        "ttft_p95=1,ttft_p95=2",
    ):
        with pytest.raises(SLOSyntaxError):
            SLO.parse(bad)


def _rec(ttft: float, itls: list[float], ok: bool = True, **kw: Any) -> RequestRecord:
    rec = RequestRecord(start=100.0, stream=True, ttft=ttft, itls=itls, e2e=ttft + sum(itls), **kw)
    if not ok:
        rec.failure = "bench.http.500"
        rec.names = ["bench.http.500"]
    return rec


def test_a_request_is_good_when_it_meets_every_latency_objective_on_its_own() -> None:
    slo = SLO.parse("ttft_p95=300ms,itl_p50=30ms")
    assert slo.request_is_good(_rec(0.2, [0.02, 0.02, 0.5]))  # its own p50 gap is 20 ms
    assert not slo.request_is_good(_rec(0.4, [0.02]))
    assert not slo.request_is_good(_rec(0.2, [0.04, 0.04]))
    assert not slo.request_is_good(_rec(0.1, [0.01], ok=False))


def test_aggregate_merges_across_workers_through_the_wire() -> None:
    slo = SLO.parse("ttft_p50=300ms")
    workers = []
    for w in range(2):
        agg = Aggregate()
        for i in range(10):
            rec = _rec(0.05 + 0.1 * i, [0.02] * 3, output_tokens=4, step=i % 2)
            agg.add(rec, slo.request_is_good(rec), f"w{w}")
        agg.add(_rec(0.1, [], ok=False), False, f"w{w}")
        workers.append(json.loads(json.dumps(agg.drain())))
        assert agg.all.requests == 0  # drained
    master = Aggregate()
    for w, wire in enumerate(workers):
        master.merge_wire(wire, source=f"worker-{w}")
    stats = master.all
    assert stats.requests == 22 and stats.failed == 2 and stats.good == 6
    assert stats.output_tokens == 80
    assert dict(master.sources) == {"worker-0": 11, "worker-1": 11}
    assert stats.hists["itl"].count == 60
    assert sorted(master.steps) == [0, 1] and master.steps[0].requests == 10
    assert stats.causes == {"bench.http.500": 2}


def test_constant_arrivals_are_exact_and_shares_partition_them() -> None:
    plan = ArrivalPlan((Step(20, 10),))
    times = [t for t, _ in plan.arrivals()]
    assert len(times) == 200 and times[0] == 0 and times[-1] == pytest.approx(9.95)
    shares = [list(plan.arrivals(k, 3)) for k in range(3)]
    assert sorted(t for share in shares for t, _ in share) == times
    sweep = ArrivalPlan((Step(2, 1.0), Step(4, 1.0)))
    assert [s for _, s in sweep.arrivals()] == [0, 0, 1, 1, 1, 1]
    assert sweep.step_start(1) == 1.0


def test_poisson_arrivals_have_the_right_mean_rate() -> None:
    plan = ArrivalPlan((Step(50, 40),), poisson=True, seed=3)
    count = sum(plan.scheduled(k, 2) for k in range(2))
    assert count == pytest.approx(2000, rel=0.05)


def test_durations_and_rates() -> None:
    assert parse_duration("90") == 90 and parse_duration("1m30s") == 90
    assert parse_duration("2h") == 7200 and parse_duration("1.5s") == 1.5
    assert parse_rates("5:20:5") == [5, 10, 15, 20]
    assert parse_rates("1,2.5") == [1, 2.5]
    for bad in ("soon", ""):
        with pytest.raises(ValueError):
            parse_duration(bad)
    with pytest.raises(ValueError):
        parse_rates("0,1")


def test_synthetic_sessions_chain_previous_response_id() -> None:
    workload = Workload.load(
        WorkloadConfig(model="m", prompt_tokens=(5, 5), turns=2, tools=True, reasoning="low")
    )
    session = workload.session()
    first = json.loads(session.next().body)
    assert len(first["input"].split()) == 5
    assert first["store"] is True and first["stream"] is True and first["tools"]
    assert first["reasoning"] == {"effort": "low", "summary": "auto"}
    assert "previous_response_id" not in first
    session.answered("resp_9", ok=True)
    second = json.loads(session.next().body)
    assert second["previous_response_id"] == "resp_9"
    assert session.done


def test_a_failed_turn_ends_the_session() -> None:
    workload = Workload.load(WorkloadConfig(model="m", turns=3))
    session = workload.session()
    session.next()
    session.answered(None, ok=False)
    assert session.done


def test_jsonl_workload(tmp_path: Path) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(
        '{"prompt": "hi", "max_output_tokens": 32, "followups": ["and?", {"input": "x"}]}\n'
        "# a comment\n"
        '{"input": [{"role": "user", "content": "yo"}], "stream": false}\n'
    )
    workload = Workload.load(WorkloadConfig(model="m", path=path))
    one = workload.session()
    assert [json.loads(one.next().body)["input"] for _ in range(1)] == ["hi"]
    assert len(one.turns) == 3 and one.turns[0]["max_output_tokens"] == 32
    two = workload.session()
    plan = two.next()
    assert not plan.stream and plan.max_output_tokens == 256
    (tmp_path / "bad.jsonl").write_text('{"model": "x"}\n')
    with pytest.raises(WorkloadError):
        Workload.load(WorkloadConfig(model="m", path=tmp_path / "bad.jsonl"))


def _ns(*args: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    parser.add_argument("-t", "--run-time")
    return parser.parse_args(list(args))


def test_options_build_a_config_or_say_what_is_wrong() -> None:
    cfg = build_config(
        _ns(
            "--base-url",
            "http://h:1",
            "--model",
            "m",
            "--shape",
            "open-loop",
            "--rate",
            "5",
            "-t",
            "10s",
            "--header",
            "x-a: b",
            "--slo",
            "ttft_p95=1s",
        )
    )
    assert cfg.responses_url == "http://h:1/v1/responses"
    assert cfg.plan is not None and cfg.plan.scheduled() == 50
    assert cfg.headers == {"x-a": "b"}
    for args, message in [
        (("--model", "m"), "--base-url"),
        (("--base-url", "http://h"), "--model"),
        (("--base-url", "h:1", "--model", "m"), "http://"),
        (("--base-url", "http://h", "--model", "m", "--shape", "open-loop"), "--rate"),
        (("--base-url", "http://h", "--model", "m", "--shape", "sweep"), "--rates"),
        (("--base-url", "http://h", "--model", "m", "--slo", "x=1"), "unknown objective"),
        (("--base-url", "http://h", "--model", "m", "--max-output-tokens", "8"), ">= 16"),
        (("--base-url", "http://h", "--model", "m", "--header", "nocolon"), "Name: value"),
    ]:
        with pytest.raises(ConfigError, match=message):
            build_config(_ns(*args))
    assert responses_url("http://h/v1/") == "http://h/v1/responses"
