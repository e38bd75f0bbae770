"""Golden, byte-exact snapshots of every scenario, streamed (SSE) and not (JSON).

Each snapshot comes from a fresh server (seed 0, frozen time), so its ids depend on nothing but
its own request, and the non-stream body equals the stream's terminal response. A change to any
byte shows up in review; run ``pytest --snapshot-update tests/mock_server`` to accept one.
"""

from __future__ import annotations

import httpx2
import pytest
from mock_support import scenario_request, sse_events
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension

from mock_server.app import FROZEN_TIME, MockSettings
from mock_server.scenarios import SCENARIOS
from mock_server.testing import InProcessMock


class SSESnapshot(SingleFileSnapshotExtension):
    file_extension = "sse"


class JSONSnapshot(SingleFileSnapshotExtension):
    file_extension = "json"


def _post(scenario: str, *, stream: bool) -> httpx2.Response:
    mock = InProcessMock(MockSettings(frozen_time=FROZEN_TIME))
    try:
        with httpx2.Client(transport=mock.transport, base_url=mock.base_url) as client:
            response = client.post(
                "/responses", json={**scenario_request(scenario), "stream": stream}
            )
            response.read()
            return response
    finally:
        mock.close()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_stream_snapshot(scenario: str, snapshot: SnapshotAssertion) -> None:
    response = _post(scenario, stream=True)
    assert response.status_code == 200
    assert response.content == snapshot(extension_class=SSESnapshot)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_json_snapshot(scenario: str, snapshot: SnapshotAssertion) -> None:
    response = _post(scenario, stream=False)
    assert response.status_code == (500 if scenario == "failure" else 200)
    assert response.content == snapshot(extension_class=JSONSnapshot)
    if scenario != "failure":
        terminal = sse_events(_post(scenario, stream=True).content)[-1]["response"]
        assert response.json() == terminal
