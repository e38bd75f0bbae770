"""The first hour with ``responses-bench``: every bad option or input file is
found before the load starts, in one line and exit 2; one unit rule for every duration."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_support import NOWHERE, fails_in_one_line

from benchmarks.responses_bench.cli import main
from benchmarks.responses_bench.slo import SLO, SLOSyntaxError
from benchmarks.responses_bench.units import parse_seconds


def test_a_bare_number_is_seconds_everywhere_and_units_read_the_same() -> None:
    assert parse_seconds("3", "-t") == 3.0
    assert parse_seconds("500ms", "x") == 0.5
    assert parse_seconds("2.5s", "x") == 2.5
    assert parse_seconds("1m30s", "x") == 90.0
    assert parse_seconds("1h30m", "x") == 5400.0
    assert parse_seconds("1m500ms", "x") == 60.5
    for bad in ("2x", "", "s", "1s1m", "5s5s", "-1", "1 s 2", "inf", "nan"):
        with pytest.raises(ValueError, match="x"):
            parse_seconds(bad, "x")
    with pytest.raises(ValueError, match="> 0"):
        parse_seconds("0", "x", allow_zero=False)


def test_slo_thresholds_follow_the_same_rule_and_old_spellings_with_units_still_work() -> None:
    # 9f25f79: a bare 1 meant 1 ms here while `-t 3` meant seconds.
    (bare,) = SLO.parse("ttft_p95=1").objectives
    assert bare.threshold == 1000.0  # kept in ms inside the bench: 1 s
    old = SLO.parse("ttft_p95=500ms,itl_p99=0.05s,e2e_p99=10s,tpot_p50=1m").objectives
    assert [o.threshold for o in old] == [500.0, 50.0, 10_000.0, 60_000.0]
    with pytest.raises(SLOSyntaxError, match="ttft_p95=2x"):
        SLO.parse("ttft_p95=2x")


def test_help_states_the_unit_of_a_bare_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a bare number is seconds" in text
    assert "A bare threshold is seconds" in text


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("-t", "2x"), "-t/--run-time: '2x'"),  # 9f25f79: a traceback, exit 1
        (("-t", "2.5s"), "whole seconds"),
        (("-u", "0"), "-u/--users 0"),  # 9f25f79: silently one user
        (("-u", "-3"), "-u/--users -3"),
        (("-u", "many"), "'many' is not an integer"),
        (("-r", "0"), "--spawn-rate"),
        (("--processes", "0"), "--processes"),
        (("--slo", "ttft_p95=soon"), "ttft_p95=soon"),
        (("--read-timeout", "0"), "--read-timeout"),
        (("--think-time", "1q"), "--think-time"),
        (("--late-after", "fast"), "--late-after"),
        (("--ramp-time", "x"), "--ramp-time"),
        (("--step-time", "0", "--shape", "sweep", "--rates", "1"), "--step-time"),
        (("--progress-interval", "often"), "--progress-interval"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...], needle: str
) -> None:
    assert needle in fails_in_one_line(capsys, tmp_path, *args)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (b'{"input": "ok"}\n{"input": "broken"\n', ":2: not JSON"),
        (b'{"input": "ok"}\n\n# comment\n[1, 2]\n', ":4: expected a JSON object"),
        (b'{"input": 5}\n', ":1: `input` must be a string or a list"),
        (b'{"input": "a", "followups": [1]}\n', ":1: followups[0] must be a string or an object"),
        (b'{"input": "a", "followups": [{"x": 1}]}\n', ":1: followups[0]: needs `input`"),
        (b'{"input": "a", "followups": "b"}\n', ":1: `followups` must be a list"),
        (b'{"input": "a", "stream": "yes"}\n', ":1: `stream` must be true or false"),
        (b'{"input": "a", "max_output_tokens": 4}\n', ":1: `max_output_tokens`"),
        (b'{"prompt": "a", "model": 3}\n', ":1: `model` must be a string"),
        (b"{}\n" * 3, ":1: needs `input` or `prompt` (and 2 more bad line(s))"),
        (b"\n# nothing\n", "no request in the file"),
    ],
)
def test_every_workload_line_is_checked_before_the_load_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: bytes, needle: str
) -> None:
    # 9f25f79: such a file started the run; every user's every request then raised (14,793
    # tracebacks in 4 s for one broken line).
    path = tmp_path / "work.jsonl"
    path.write_bytes(text)
    line = fails_in_one_line(capsys, tmp_path, "--workload", str(path))
    assert line.startswith("responses-bench: --workload: ") and needle in line, line


def test_a_binary_file_as_workload_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    binary = tmp_path / "ls"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 64)
    line = fails_in_one_line(capsys, tmp_path, "--workload", str(binary))
    assert f"{binary}:1: not JSON" in line and "more bad line" in line
    missing = fails_in_one_line(capsys, tmp_path, "--workload", str(tmp_path / "nope.jsonl"))
    assert "no such file" in missing


def test_a_good_workload_with_units_gets_as_far_as_the_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "work.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"prompt": "a", "followups": ["b", {"input": "c"}]}\n')
    code = main(
        [*NOWHERE, "--report-dir", str(tmp_path / "r"), "--workload", str(path), "-t", "1m30s",
         "--slo", "ttft_p95=0.5,e2e_p99=10s", "--late-after", "50ms", "--read-timeout", "2"]
    )  # fmt: skip
    assert code == 2
    assert "target unreachable" in capsys.readouterr().err
