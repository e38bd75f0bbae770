"""Streams pass through as they arrive, and a shutdown under an open stream is not the
upstream's fault."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import httpx2
from proxy_support import proxy

from mock_server.app import MockSettings
from mock_server.engine import Latency
from mock_server.testing import LoopbackMock

BODY = {"model": "mock", "input": "Tell me a story.", "stream": True, "max_output_tokens": 16}


def test_events_arrive_before_the_stream_ends(tmp_path: Path) -> None:
    settings = MockSettings(latency=Latency(ttft=0.05, inter_token=0.25))
    with LoopbackMock(settings) as mock, proxy(mock.base_url, report_dir=tmp_path) as run:
        arrivals: list[tuple[float, bytes]] = []
        with (
            httpx2.Client(timeout=60) as http,
            http.stream("POST", run.base_url + "/responses", json=BODY) as response,
        ):
            for chunk in response.iter_raw():
                arrivals.append((time.monotonic(), chunk))
    deltas = [t for t, c in arrivals if b"output_text.delta" in c]
    assert len(deltas) >= 5
    # the deltas reached the client spread over the seconds the upstream took to send them (a
    # proxy that held the stream back would hand them over at once, at the end)
    assert deltas[-1] - deltas[0] >= 0.25 * (len(deltas) - 1) / 2
    assert len({round(t, 2) for t in deltas}) >= len(deltas) // 2
    assert run.code == 0, run.stdout + run.stderr


def test_sigint_under_an_open_stream(tmp_path: Path) -> None:
    settings = MockSettings(latency=Latency(ttft=0.05, inter_token=1.0))
    with LoopbackMock(settings) as mock, proxy(mock.base_url, report_dir=tmp_path) as run:
        started = threading.Event()

        def client() -> None:
            try:
                with (
                    httpx2.Client(timeout=60) as http,
                    http.stream("POST", run.base_url + "/responses", json=BODY) as response,
                ):
                    for _ in response.iter_raw():
                        started.set()
            except httpx2.HTTPError:
                pass

        thread = threading.Thread(target=client, daemon=True)
        thread.start()
        assert started.wait(30)
    thread.join(30)
    assert run.code == 0, run.stdout + run.stderr  # the cut stream is the proxy's doing
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["proxy"]["exchanges"] == 1
    assert index["proxy"]["recent"][0]["kind"] == "proxy/responses.create.stream"
    assert "Traceback" not in run.stderr


def test_report_every_writes_while_running(tmp_path: Path) -> None:
    with (
        LoopbackMock(MockSettings()) as mock,
        proxy(
            mock.base_url, "--report-every", "0.5", report_dir=tmp_path, stop=signal.SIGTERM
        ) as run,
    ):
        with httpx2.Client(timeout=30) as http:
            http.post(run.base_url + "/responses", json={"model": "mock", "input": "hi"})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (tmp_path / "index.json").exists():
            time.sleep(0.1)
        assert (tmp_path / "index.json").exists()  # before the proxy stops
    assert run.code == 0
