"""Who cut the stream decides the verdict (docs/proxy.md): an upstream that drops its streams
fails the exchange (exit 1); the client's leaving and the proxy's own shutdown do not fail a
conformant upstream (exit 0) — over HTTP and over WebSocket alike."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
from proxy_support import proxy
from websockets.sync.client import connect

from mock_server.app import MockSettings
from mock_server.engine import Latency
from mock_server.testing import LoopbackMock

BODY = {"model": "mock", "input": "Tell me a long story.", "stream": True}
CREATE = {"type": "response.create", "model": "mock", "input": "Tell me a long story."}


_EVERY = ("--report-every", "0.2")


def _ws_url(base: str) -> str:
    return base.replace("http://", "ws://", 1) + "/responses"


def _slow() -> MockSettings:
    return MockSettings(latency=Latency(ttft=0.02, inter_token=0.2))


def test_http_upstream_drop_fails(tmp_path: Path) -> None:
    with (
        LoopbackMock(MockSettings()) as mock,
        proxy(mock.base_url, *_EVERY, report_dir=tmp_path) as run,
    ):
        with httpx2.Client(timeout=30) as http:
            try:
                with http.stream("POST", run.base_url + "/responses", json=BODY,
                                 headers={"x-mock-fault": "drop=10"}) as response:  # fmt: skip
                    for _ in response.iter_raw():
                        pass
            except httpx2.HTTPError:
                pass  # the cut may reach the client as a broken chunked body
        _wait_for_exchanges(run, 1)
    assert run.code == 1, run.stdout + run.stderr
    assert "stream.lifecycle.terminal_present" in run.failing()
    assert "Traceback" not in run.stderr


def test_http_client_leaving_does_not_fail(tmp_path: Path) -> None:
    with LoopbackMock(_slow()) as mock, proxy(mock.base_url, *_EVERY, report_dir=tmp_path) as run:
        with (
            httpx2.Client(timeout=30) as http,
            http.stream("POST", run.base_url + "/responses", json=BODY) as response,
        ):
            for n, _ in enumerate(response.iter_raw()):
                if n >= 3:
                    break  # walk away mid-stream
        _wait_for_exchanges(run, 1)
    assert run.code == 0, run.stdout + run.stderr
    assert run.index["proxy"]["exchanges"] == 1


def test_ws_upstream_drop_fails(tmp_path: Path) -> None:
    with (
        LoopbackMock(MockSettings()) as mock,
        proxy(mock.base_url, "--profile", "core,websocket", *_EVERY, report_dir=tmp_path) as run,
    ):
        with connect(_ws_url(run.base_url), additional_headers={"x-mock-fault": "drop=10"},
                     open_timeout=10) as ws:  # fmt: skip
            ws.send(json.dumps(CREATE))
            _read_until_closed(ws)
        _wait_for_exchanges(run, 1)
    assert run.code == 1, run.stdout + run.stderr
    assert "stream.lifecycle.terminal_present" in run.failing(), sorted(run.failing())


def test_ws_client_leaving_does_not_fail(tmp_path: Path) -> None:
    with (
        LoopbackMock(_slow()) as mock,
        proxy(mock.base_url, "--profile", "core,websocket", *_EVERY, report_dir=tmp_path) as run,
    ):
        with connect(_ws_url(run.base_url), open_timeout=10) as ws:
            ws.send(json.dumps(CREATE))
            for _ in range(4):
                ws.recv(timeout=10)  # the response is in flight: leave now
        _wait_for_exchanges(run, 1)
    assert run.code == 0, run.stdout + run.stderr
    assert not run.failing()


def test_ws_sigint_in_flight_does_not_fail(tmp_path: Path) -> None:
    with (
        LoopbackMock(_slow()) as mock,
        proxy(mock.base_url, "--profile", "core,websocket", *_EVERY, report_dir=tmp_path) as run,
    ):
        started = threading.Event()

        def client() -> None:
            try:
                with connect(_ws_url(run.base_url), open_timeout=10) as ws:
                    ws.send(json.dumps(CREATE))
                    ws.recv(timeout=10)
                    started.set()
                    _read_until_closed(ws)
            except Exception:  # the proxy's shutdown closes the socket under it
                pass

        thread = threading.Thread(target=client, daemon=True)
        thread.start()
        assert started.wait(30)
    thread.join(30)
    assert run.code == 0, run.stdout + run.stderr  # the cut sessions are the proxy's doing
    assert run.index["proxy"]["exchanges"] == 1
    assert "Traceback" not in run.stderr


def _read_until_closed(ws: Any) -> None:
    try:
        while True:
            ws.recv(timeout=30)
    except Exception:  # ConnectionClosed, or a timeout: either way the session is over
        return


def _wait_for_exchanges(run: Any, n: int) -> None:
    """Until the proxy's periodic report (``--report-every``) counts ``n`` exchanges, at most
    10 s: the verdict is then the exchange's own, not the shutdown's."""
    deadline = time.monotonic() + 10
    index = run.report_dir / "index.json"
    while time.monotonic() < deadline:
        try:
            if json.loads(index.read_text())["proxy"]["exchanges"] >= n:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"the proxy did not judge {n} exchange(s) within 10 s")
