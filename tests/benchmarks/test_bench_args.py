"""Every count, duration, port and CPU option of the performance benchmarks (benchmarks/perf)
refuses a meaningless value while parsing: exit 2, argparse's usage and one error line naming the
flag, no traceback, nothing started. Before, ``--repeat 0``, ``--rounds 0``, ``--streams 0`` and
the like ran anyway, or died in a ZeroDivisionError / StatisticsError traceback."""

from __future__ import annotations

import argparse
import importlib
import os
from pathlib import Path
from typing import Any

import pytest

from benchmarks.perf import forward_floor, schema_throughput

POSITIVE = ("0", "-1")
POSITIVE_FLOAT = ("0", "-1", "nan", "inf")
NON_NEGATIVE_FLOAT = ("-0.5", "nan", "inf")
CPU = str(min(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else "0"
BAD_CPU = ("-1", "100000")

# Options a parser requires, so that only the option under test can fail.
REQUIRED: dict[str, list[str]] = {
    "forward_floor": ["--upstream", "127.0.0.1:9"],
    "sglang_side_by_side": ["--sglang-python", "python"],
}

# (module, flag, bad values, a valid small value, what it parses to)
GUARDED: list[tuple[str, str, tuple[str, ...], str, Any]] = [
    ("client_cost", "--repeat", POSITIVE, "1", 1),
    ("forward_floor", "--port", ("-1", "65536"), "0", 0),
    ("mock_capacity", "--concurrency", ("0", "1,x", "", "1,1", "20001"), "1,10", [1, 10]),
    ("mock_capacity", "--streams", POSITIVE, "1", 1),
    ("mock_capacity", "--ttft", NON_NEGATIVE_FLOAT, "0", 0.0),
    ("mock_capacity", "--inter-token", POSITIVE_FLOAT, "0.01", 0.01),
    ("mock_capacity", "--workers", POSITIVE, "1", 1),
    ("mock_capacity", "--server-cpu", BAD_CPU, CPU, int(CPU)),
    ("mock_capacity", "--client-cpu", BAD_CPU, CPU, int(CPU)),
    ("mock_capacity", "--timeout", POSITIVE_FLOAT, "0.5", 0.5),
    ("mock_capacity", "--ramp", NON_NEGATIVE_FLOAT, "0", 0.0),
    ("mock_streaming_throughput", "--rounds", POSITIVE, "1", 1),
    ("mock_streaming_throughput", "--streams", POSITIVE, "1", 1),
    ("mock_streaming_throughput", "--connections", POSITIVE, "1", 1),
    ("mock_streaming_throughput", "--max-output-tokens", POSITIVE, "1", 1),
    ("mock_streaming_throughput", "--server-cpu", BAD_CPU, CPU, int(CPU)),
    ("mock_streaming_throughput", "--client-cpu", BAD_CPU, CPU, int(CPU)),
    ("proxy_overhead", "--streams", POSITIVE, "1", 1),
    ("proxy_overhead", "--rounds", POSITIVE, "1", 1),
    ("proxy_overhead", "--ttft", NON_NEGATIVE_FLOAT, "0", 0.0),
    ("proxy_overhead", "--inter-token", NON_NEGATIVE_FLOAT, "0", 0.0),
    ("proxy_overhead", "--tokens", POSITIVE, "1", 1),
    ("proxy_overhead", "--repeat", POSITIVE, "1", 1),
    ("scaling", "--base", POSITIVE_FLOAT, "0.01", 0.01),
    ("scaling", "--repeat", POSITIVE, "1", 1),
    ("scaling", "--only", ("nope",), "validator.items", ["validator.items"]),
    ("schema_throughput", "--repeat", POSITIVE, "1", 1),
    ("schema_throughput", "--rounds", POSITIVE, "1", 1),
    ("sglang_side_by_side", "--seconds", POSITIVE_FLOAT, "0.5", 0.5),
    ("sglang_side_by_side", "--repeats", POSITIVE, "1", 1),
    ("sglang_side_by_side", "--min-ratio", POSITIVE_FLOAT, "0.5", 0.5),
    ("sglang_side_by_side", "--start-timeout", POSITIVE_FLOAT, "1", 1.0),
    ("sglang_side_by_side", "--concurrency", ("0", "1,x", "", "1,-8", "8,8"), "1,8", [1, 8]),
    ("store_memory", "--responses", POSITIVE, "1", 1),
    ("store_memory", "--warmup", ("-1",), "0", 0),
    ("store_memory", "--connections", POSITIVE, "1", 1),
    ("store_memory", "--server-cpu", BAD_CPU, CPU, int(CPU)),
    ("store_retention", "--responses", POSITIVE, "1", 1),
    ("store_retention", "--max-responses", POSITIVE, "1", 1),
    ("store_retention", "--max-bytes", ("0", "-1"), "1Ki", 1024),
    # anything but sqlite was run as redis
    (
        "store_retention",
        "--backends",
        ("mysql", "sqlite,redis,x", "", "sqlite,sqlite"),
        "sqlite",
        ["sqlite"],
    ),
    ("store_workers", "--workers", ("0", "1,x", "", "1,1"), "1", [1]),
    ("store_workers", "--connections", POSITIVE, "1", 1),
    ("store_workers", "--streams", POSITIVE, "1", 1),
    ("store_workers", "--rounds", POSITIVE, "1", 1),
    ("transport_side_by_side", "--users", POSITIVE, "1", 1),
    ("transport_side_by_side", "--time", ("0", "2x", "2.5s", "-1s"), "1s", "1s"),
    ("transport_side_by_side", "--turns", POSITIVE, "1", 1),
    ("transport_side_by_side", "--max-output-tokens", POSITIVE, "1", 1),
    ("validate_throughput", "--repeat", POSITIVE, "1", 1),
    ("validate_throughput", "--copies", POSITIVE, "1", 1),
    ("ws_sessions", "--sessions", POSITIVE, "1", 1),
    ("ws_sessions", "--lanes", POSITIVE, "1", 1),
    ("ws_sessions", "--turns", POSITIVE, "1", 1),
    ("ws_sessions", "--timeout", POSITIVE_FLOAT, "0.1", 0.1),
]

BAD = [
    pytest.param(module, flag, value, id=f"{module} {flag} {value!r}")
    for module, flag, values, _, _ in GUARDED
    for value in values
]
GOOD = [
    pytest.param(module, flag, value, parsed, id=f"{module} {flag} {value}")
    for module, flag, _, value, parsed in GUARDED
]


class _Parsed(Exception):
    """Raised in place of returning from ``parse_args``: the benchmark does not run."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__("the command line was accepted")
        self.namespace = args


@pytest.fixture
def parse_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """``main`` stops once its command line is parsed: a value the parser lets through fails the
    test at once (with _Parsed) instead of starting servers or reading the corpus."""
    parse = argparse.ArgumentParser.parse_args

    def parsed(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Parsed(parse(self, *args, **kwargs))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parsed)


def _main(module: str, argv: list[str]) -> Any:
    return importlib.import_module(f"benchmarks.perf.{module}").main(
        [*REQUIRED.get(module, []), *argv]
    )


def _error_line(err: str) -> str:
    """argparse's one error line (after its usage), checked to be the only one."""
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) == 1 and err.rstrip().splitlines()[-1] == errors[0], err
    return errors[0]


@pytest.mark.usefixtures("parse_only")
@pytest.mark.parametrize(("module", "flag", "value"), BAD)
def test_a_meaningless_value_is_refused_while_parsing(
    capsys: pytest.CaptureFixture[str], module: str, flag: str, value: str
) -> None:
    with pytest.raises(SystemExit) as done:
        _main(module, [f"{flag}={value}"])  # = keeps "-1" a value, not an option
    assert done.value.code == 2
    line = _error_line(capsys.readouterr().err)
    assert f"argument {flag}" in line and repr(value) in line


@pytest.mark.usefixtures("parse_only")
@pytest.mark.parametrize(("module", "flag", "value", "parsed"), GOOD)
def test_a_small_valid_value_is_accepted(module: str, flag: str, value: str, parsed: Any) -> None:
    with pytest.raises(_Parsed) as done:
        _main(module, [flag, value])
    assert getattr(done.value.namespace, flag.lstrip("-").replace("-", "_")) == parsed


@pytest.mark.usefixtures("parse_only")
def test_an_unknown_scaling_dimension_names_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        _main("scaling", ["--only", "nope"])
    line = _error_line(capsys.readouterr().err)
    assert "decoder.comment_lines" in line and "validator.items" in line


def test_side_by_side_min_ratio_needs_the_8_stream_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --min-ratio reads the 8-stream ratio: without 8 in --concurrency it was a KeyError
    # traceback after the whole run. Refused before any report directory is touched.
    out = tmp_path / "r"
    argv = ["--concurrency", "1,64", "--min-ratio", "1", "--report-dir", str(out)]
    with pytest.raises(SystemExit) as done:
        _main("sglang_side_by_side", argv)
    assert done.value.code == 2
    line = _error_line(capsys.readouterr().err)
    assert "--min-ratio" in line and "--concurrency" in line
    assert not out.exists()


@pytest.mark.parametrize("upstream", ["127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1", ":80"])
def test_forward_floor_refuses_an_upstream_port_out_of_range(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], upstream: str
) -> None:
    def serve(*args: object) -> None:
        raise AssertionError("it would have listened")

    monkeypatch.setattr("benchmarks.perf.forward_floor._serve", serve)
    with pytest.raises(SystemExit) as done:
        forward_floor.main(["--upstream", upstream])
    assert done.value.code == 2
    assert repr(upstream) in _error_line(capsys.readouterr().err)


def test_schema_throughput_without_a_corpus_says_where_it_looked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An installed copy (tox) has no corpus beside its source: a ZeroDivisionError traceback.
    monkeypatch.setattr(schema_throughput, "CORPUS", tmp_path / "missing")
    if hasattr(os, "sched_setaffinity"):  # main() pins its process to one CPU: not the runner's
        monkeypatch.setattr(
            "benchmarks.perf.schema_throughput.os.sched_setaffinity", lambda pid, cpus: None
        )
    assert schema_throughput.main(["--repeat", "1", "--rounds", "1"]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1 and str(tmp_path / "missing") in err


def test_side_by_side_without_a_model_clears_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No --model-path and no --cpu: refused before this script's earlier reports are removed.
    out = tmp_path / "r"
    (out / "load-1").mkdir(parents=True)
    with pytest.raises(SystemExit) as done:
        _main("sglang_side_by_side", ["--report-dir", str(out)])
    assert done.value.code == 2
    assert "--model-path" in _error_line(capsys.readouterr().err)
    assert (out / "load-1").is_dir()
