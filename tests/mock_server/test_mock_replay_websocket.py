"""WebSocket connections recorded by ``--record`` and replayed by ``--replay`` frame by frame."""

from __future__ import annotations

import json
from pathlib import Path

import websockets.sync.client as wsc
from websockets.exceptions import ConnectionClosed

from cassettes import read_cassette
from conformance.cli import main as conformance_main
from mock_server.app import FROZEN_TIME, MockSettings
from mock_server.replay import ReplaySettings
from mock_server.testing import LoopbackMock

TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _turns(mock: LoopbackMock, inputs: list[str]) -> list[str]:
    url = mock.base_url.replace("http://", "ws://") + "/responses"
    frames: list[str] = []
    with wsc.connect(url, max_size=None) as ws:
        for text in inputs:
            ws.send(json.dumps({"type": "response.create", "model": "mock", "input": text}))
            while True:
                frame = ws.recv(timeout=10)
                assert isinstance(frame, str)
                frames.append(frame)
                if json.loads(frame)["type"] in (*TERMINAL, "error"):
                    break
    return frames


def test_a_websocket_session_round_trips(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    recorded_settings = MockSettings(seed=2, frozen_time=FROZEN_TIME, record=str(folder))
    with LoopbackMock(recorded_settings) as mock:
        recorded = _turns(mock, ["one", "two"])
    (exchange,) = read_cassette(folder)
    assert exchange.websocket and exchange.status == 101
    senders = [f.sender for f in exchange.frames if f.opcode == "text"]
    assert senders.count("client") == 2 and senders.count("server") == len(recorded)
    assert conformance_main(["check", str(folder)]) == 0  # the judge accepts the session
    replay = ReplaySettings(str(folder), timing=0.0)
    with LoopbackMock(MockSettings(seed=77, replay=replay)) as mock:
        assert _turns(mock, ["one", "two"]) == recorded


def test_an_unexpected_message_gets_an_error_and_1008(tmp_path: Path) -> None:
    folder = tmp_path / "ws"
    with LoopbackMock(MockSettings(record=str(folder))) as mock:
        _turns(mock, ["one"])
    with LoopbackMock(MockSettings(replay=ReplaySettings(str(folder), timing=0.0))) as mock:
        url = mock.base_url.replace("http://", "ws://") + "/responses"
        with wsc.connect(url) as ws:
            ws.send(json.dumps({"type": "response.create", "model": "mock", "input": "other"}))
            error = json.loads(ws.recv(timeout=10))
            assert error["type"] == "error" and error["error"]["code"] == "no_recorded_exchange"
            assert 'body.input: recorded "one", got "other"' in error["error"]["message"]
            try:
                ws.recv(timeout=10)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1008
            else:  # pragma: no cover
                raise AssertionError("the connection stayed open")
