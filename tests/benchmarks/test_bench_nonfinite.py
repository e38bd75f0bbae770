"""responses-bench refuses rates that are no number of requests per second (nan, inf) and token
lengths no prompt can have, in one line and exit 2 before any load: ``not nan`` and
``nan <= 0`` are both False, so ``--rate nan`` passed the old check, and
``--prompt-tokens 999999999999`` hung building its first prompt."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from bench_support import fails_in_one_line

from benchmarks.responses_bench.arrivals import parse_rates
from benchmarks.responses_bench.datasets.lengths import Lengths, parse_lengths

MAX_TOKENS = 2_000_000  # benchmarks.responses_bench.datasets.lengths.MAX_TOKENS


OPEN_LOOP = ("--shape", "open-loop", "-t", "5s")


@pytest.mark.parametrize("rate", ["nan", "inf", "NaN", "Infinity", "0"])
def test_open_loop_rate_must_be_finite_and_positive(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rate: str
) -> None:
    line = fails_in_one_line(capsys, tmp_path, *OPEN_LOOP, "--rate", rate)
    assert line.startswith("responses-bench: --rate ") and "finite number > 0" in line, line


@pytest.mark.parametrize("rates", ["nan", "2,inf", "1,nan,3", "1:inf:1", "nan:5:1", "1:5:nan"])
def test_sweep_rates_must_be_finite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rates: str
) -> None:
    line = fails_in_one_line(capsys, tmp_path, "--shape", "sweep", "--rates", rates)
    assert "rates" in line, line


def test_a_sweep_of_too_many_steps_is_refused() -> None:
    for text in ("1:1e9:1e-9", "1:1e308:1e-300"):
        with pytest.raises(ValueError, match="more than 10,000 steps"):
            parse_rates(text)
    assert len(parse_rates("1:10000:1")) == 10_000  # the near miss: 10,000 steps


def test_finite_rates_still_parse() -> None:
    assert parse_rates("0.5,2,1e3") == [0.5, 2.0, 1000.0]
    assert parse_rates("5:20:5") == [5.0, 10.0, 15.0, 20.0]


@pytest.mark.parametrize("rate", ["inf", "nan"])
def test_spawn_rate_must_be_finite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rate: str
) -> None:
    assert "--spawn-rate" in fails_in_one_line(capsys, tmp_path, "-r", rate)


def test_trace_speedup_inf_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"timestamp": 0, "prompt": "ok"}\n')
    line = fails_in_one_line(
        capsys, tmp_path, "--shape", "trace", "--workload", str(path), "--trace-speedup", "inf"
    )
    assert "--trace-speedup inf: must be > 0" in line


@pytest.mark.parametrize(
    "tokens",
    [
        "999999999999",
        f"{MAX_TOKENS + 1}",
        f"1-{MAX_TOKENS + 1}",
        "mean=999999999999",
        f"mean=10,max={MAX_TOKENS + 1}",
    ],
)
def test_prompt_tokens_past_the_bound_are_refused_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tokens: str
) -> None:
    line = fails_in_one_line(capsys, tmp_path, "--prompt-tokens", tokens)
    assert line.startswith("responses-bench: --prompt-tokens") and "at most 2,000,000" in line


@pytest.mark.parametrize("flag", ["--prefix-tokens", "--trace-block-tokens"])
def test_prefix_and_block_tokens_past_the_bound_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str
) -> None:
    extra = ("--prefix-count", "1") if flag == "--prefix-tokens" else ()
    line = fails_in_one_line(capsys, tmp_path, *extra, flag, "999999999999")
    assert "at most 2,000,000" in line, line


@pytest.mark.parametrize(
    ("count", "tokens", "message"),
    [
        # Each within its own bound, the pool 1,000 x 2,000,000 tokens: it is built before the
        # run, and this one (about 10 GB of text) never finished building.
        ("1000", "2000000", "at most 10,000,000 tokens in the pool"),
        ("5001", "2000", "at most 10,000,000 tokens in the pool"),
        ("100001", "1", "--prefix-count: at most 100,000 prefixes"),  # 100k+ tiny strings
    ],
)
def test_a_prefix_pool_past_its_bound_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, count: str, tokens: str, message: str
) -> None:
    line = fails_in_one_line(capsys, tmp_path, "--prefix-count", count, "--prefix-tokens", tokens)
    assert message in line, line


def test_a_prefix_pool_at_its_bound_is_accepted() -> None:
    """The near miss: 5,000 x 2,000 tokens is the bound itself, and is taken."""
    from benchmarks.responses_bench.workload import WorkloadConfig

    WorkloadConfig("m", prefix_count=5000, prefix_tokens=2000)  # no WorkloadError
    WorkloadConfig("m", prefix_count=100_000, prefix_tokens=100)


def test_the_bound_itself_is_accepted() -> None:
    assert parse_lengths(str(MAX_TOKENS), "--prompt-tokens") == Lengths.fixed(MAX_TOKENS)
    assert parse_lengths(f"1-{MAX_TOKENS}", "--prompt-tokens").high == MAX_TOKENS
    assert parse_lengths(f"mean=10,max={MAX_TOKENS}", "--prompt-tokens").high == MAX_TOKENS


def test_a_draw_without_a_max_stays_within_the_bound() -> None:
    """``mean=10,stddev=1e12`` has no max: a draw is still at most MAX_TOKENS."""
    lengths = parse_lengths("mean=10,stddev=1e12", "--prompt-tokens")
    rng = random.Random(0)
    draws = [lengths.draw(rng) for _ in range(200)]
    assert max(draws) == MAX_TOKENS and min(draws) >= 1
