"""responses-mock refuses a time that is no number (nan) or no end (inf) while parsing its
arguments: exit 2, argparse's one error line naming the option. Before, ``float`` took them and
the engine's ``min(...) < 0`` test let them through (every comparison with nan is False): the
server started, and every stream slept for ever or failed."""

from __future__ import annotations

import math

import pytest

from mock_server.app import MockSettings
from mock_server.cli import build_parser, settings_from
from mock_server.engine import Latency

OPTIONS = ("--ttft", "--inter-token", "--jitter", "--duration", "--frozen-time")
NON_FINITE = ("nan", "inf", "NaN", "Infinity", "-inf", "+inf")


def _parse(args: list[str]) -> MockSettings:
    parser = build_parser()
    return settings_from(parser, parser.parse_args(args))


@pytest.mark.parametrize("value", NON_FINITE)
@pytest.mark.parametrize("option", OPTIONS)
def test_a_non_finite_time_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    with pytest.raises(SystemExit) as done:
        _parse([f"{option}={value}"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("responses-mock: error:")]
    assert len(errors) == 1 and err.endswith(errors[0] + "\n"), err
    assert errors[0].startswith(f"responses-mock: error: argument {option}: expected a finite")
    assert repr(value) in errors[0]


@pytest.mark.parametrize("option", ["--ttft", "--inter-token", "--jitter", "--duration"])
def test_a_negative_delay_is_still_refused(option: str) -> None:
    with pytest.raises(SystemExit) as done:
        _parse([f"{option}=-0.5"])
    assert done.value.code == 2


def test_finite_times_are_accepted() -> None:
    settings = _parse(["--ttft", "0.25", "--inter-token", "1e-3", "--jitter", "0"])
    latency = settings.latency
    assert (latency.ttft, latency.inter_token, latency.jitter) == (0.25, 0.001, 0.0)
    assert _parse(["--duration", "2", "--ttft", "0.5"]).latency.duration == 2.0
    assert _parse(["--frozen-time", "-5"]).frozen_time == -5.0
    assert _parse(["--frozen-time"]).frozen_time is not None


@pytest.mark.parametrize("field", ["ttft", "inter_token", "jitter", "duration"])
@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_latency_itself_refuses_non_finite_delays(field: str, value: float) -> None:
    """The plugin and MockSettings build a Latency without the CLI."""
    with pytest.raises(ValueError, match="finite"):
        Latency(**{field: value})
