"""The pytest plugin's cassette options: ``@pytest.mark.responses_mock(replay=..., record=...)``."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from mock_server.replay import NO_MATCH_CODE
from mock_server.testing import InProcessMock, LoopbackMock

CASSETTE = (
    Path(__file__).resolve().parents[1]
    / "data"
    / "cassettes"
    / "pydantic-ai"
    / "test_background_mode_streaming_continuation_vcr.yaml"
)
RID = "resp_078b21da0e109d4800699cc4c6b1ac8193b47f01da738fad41"


@pytest.mark.responses_mock(replay=CASSETTE)
def test_marker_replays_a_cassette(responses_mock: LoopbackMock) -> None:
    with responses_mock.client(max_retries=0) as client:
        events = list(
            client.responses.create(
                model="gpt-4o",
                input=[{"role": "user", "content": "What is 2 + 2?"}],
                background=True,
                stream=True,
            )
        )
        assert events[0].type == "response.created" and events[0].response.id == RID
        polled = client.responses.retrieve(RID, stream=False)
        assert polled.status == "completed" and polled.output_text == "2 + 2 equals 4."
        again = client.responses.retrieve(RID, stream=False)  # a poll past the recording
        assert again.model_dump() == polled.model_dump()
        with pytest.raises(openai.BadRequestError) as error:
            client.responses.create(model="gpt-4o", input="What is 3 + 3?")
        assert isinstance(error.value.body, dict) and error.value.body["code"] == NO_MATCH_CODE


@pytest.mark.responses_mock(replay=CASSETTE, replay_mode="fallback", frozen_time=True)
def test_marker_fallback_goes_to_the_engine(responses_mock_inprocess: InProcessMock) -> None:
    client = responses_mock_inprocess.client(max_retries=0)
    assert client.responses.create(model="mock", input="unrecorded").status == "completed"


def test_replay_options_without_replay_are_a_usage_error() -> None:
    from mock_server.pytest_plugin import _settings

    with pytest.raises(pytest.UsageError, match="replay_mode without replay="):
        _settings({"replay_mode": "strict"})
    assert _settings({"record": Path("x")}).record == "x"
