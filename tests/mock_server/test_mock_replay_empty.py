"""A strict replay of a cassette with no exchange is refused before the server starts: it would
answer every request 400 ``no_recorded_exchange``, which reads as a replay but replays nothing
(a folder not recorded into yet, a VCR file with ``interactions: []``). ``--replay`` says so in
one line, exit 2; the plugin's ``replay=`` is a usage error. A fallback replay of it is fine: every
request goes to the engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cassettes import CassetteError
from mock_server.app import MockSettings
from mock_server.cli import build_parser, settings_from
from mock_server.pytest_plugin import _settings
from mock_server.replay import ReplayApp, ReplaySettings

CASSETTE = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "cassettes"
    / "pydantic-ai"
    / "test_background_mode_streaming_continuation_vcr.yaml"
)


@pytest.fixture(params=["folder", "vcr"])
def empty(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "folder":
        folder = tmp_path / "cassette"
        folder.mkdir()
        return folder
    vcr = tmp_path / "empty.yaml"
    vcr.write_text("interactions: []\nversion: 1\n")
    return vcr


def _cli(*args: str) -> MockSettings:
    parser = build_parser()
    return settings_from(parser, parser.parse_args(list(args)))


def test_cli_refuses_a_strict_replay_of_an_empty_cassette(
    capsys: pytest.CaptureFixture[str], empty: Path
) -> None:
    with pytest.raises(SystemExit) as done:
        _cli("--replay", str(empty))
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f"responses-mock: error: --replay: {empty}: no recorded exchanges; a strict replay "
        "would refuse every request (record into it first, or replay it in fallback mode)"
    )


def test_cli_takes_a_fallback_replay_of_an_empty_cassette(empty: Path) -> None:
    settings = _cli("--replay", str(empty), "--replay-mode", "fallback")
    assert settings.replay is not None and settings.replay.mode == "fallback"


def test_cli_takes_a_strict_replay_of_a_recorded_cassette() -> None:
    settings = _cli("--replay", str(CASSETTE))
    assert settings.replay is not None and settings.replay.mode == "strict"


def test_plugin_refuses_a_strict_replay_of_an_empty_cassette(empty: Path) -> None:
    with pytest.raises(pytest.UsageError, match="no recorded exchanges") as raised:
        _settings({"replay": empty})
    assert str(raised.value).startswith(f"responses_mock: replay={str(empty)!r}: ")
    with pytest.raises(pytest.UsageError, match="no recorded exchanges"):
        _settings({"replay": empty, "replay_mode": "strict"})


def test_plugin_takes_a_fallback_replay_of_an_empty_cassette(empty: Path) -> None:
    settings = _settings({"replay": empty, "replay_mode": "fallback"})
    assert settings.replay is not None and settings.replay.mode == "fallback"


def test_the_replay_app_itself_refuses_it(empty: Path) -> None:
    from mock_server.replay import replay_exchanges

    async def engine(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("not reached")

    with pytest.raises(CassetteError, match="no recorded exchanges"):
        ReplayApp(ReplaySettings(str(empty)), fallback=engine)
    assert replay_exchanges(ReplaySettings(str(empty), mode="fallback")) == []
    assert len(replay_exchanges(ReplaySettings(str(CASSETTE)))) == 2
