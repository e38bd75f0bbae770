"""``responses-mock`` as a user runs it: a subprocess on a free port, read through its stdout."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mock_support import scenario_request, sse_events

from mock_server.cli import main
from mock_server.scenarios import SCENARIOS

_SCRIPT = Path(sys.executable).with_name("responses-mock")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "mock_server.cli"]


@contextmanager
def running(*args: str) -> Iterator[str]:
    """Start the CLI with ``--port 0``; yield its base URL (read from the 'listening on' line)."""
    proc = subprocess.Popen(
        [*COMMAND, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.fullmatch(r"listening on (http://127\.0\.0\.1:\d+)\n", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        yield match[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            assert proc.wait(timeout=10) == 0
        finally:
            if proc.stdout:
                proc.stdout.close()
            if proc.stderr:
                proc.stderr.close()


def _transcript(base_url: str) -> list[bytes]:
    out = []
    with httpx2.Client(base_url=base_url + "/v1", timeout=30) as client:
        for scenario in SCENARIOS:
            body = scenario_request(scenario)
            out.append(client.post("/responses", json={**body, "stream": True}).content)
            out.append(client.post("/responses", json=body).content)
    return out


def test_two_fresh_servers_give_identical_bytes() -> None:
    args = ("--seed", "3", "--frozen-time", "--chunk", "1-3")
    with running(*args) as first, running(*args) as second:
        a, b = _transcript(first), _transcript(second)
    assert a == b
    # Not trivially equal: ids differ between requests of one server, and streams are real.
    streams = [sse_events(raw) for raw in a[::2]]
    ids = [events[0]["response"]["id"] for events in streams]
    assert len(set(ids)) == len(ids)
    assert all(events[0]["response"]["created_at"] == 1_700_000_000 for events in streams)


def test_cli_options_apply() -> None:
    with running(
        "--scenario", "refusal", "--api-key", "sekret", "--store", "sqlite::memory:"
    ) as url:
        assert (
            httpx2.post(url + "/v1/responses", json={"model": "mock", "input": "x"}).status_code
            == 401
        )
        ok = httpx2.post(
            url + "/v1/responses",
            json={"model": "mock", "input": "x"},
            headers={"authorization": "Bearer sekret"},
        ).json()
        assert ok["output"][0]["content"][0]["type"] == "refusal"


def test_duration_makes_every_response_take_that_long() -> None:
    # Load tests (--duration): a short and a long answer both stream for about 0.4 s, evenly paced.
    with running("--duration", "0.4", "--ttft", "0.1") as url, httpx2.Client(timeout=30) as client:
        for scenario in ("text", "long-text"):
            body = {"model": f"mock-{scenario}", "input": "hi", "stream": True}
            started = time.monotonic()
            arrivals = []
            with client.stream("POST", url + "/v1/responses", json=body) as response:
                for line in response.iter_lines():
                    if line.startswith("data: ") and '"response.output_text.delta"' in line:
                        arrivals.append(time.monotonic() - started)
            total = time.monotonic() - started
            # Lower bounds only are exact on a real clock: a busy machine can make a stream late,
            # never early. The even pacing itself is proven on a fake clock (test_mock_engine).
            assert total >= 0.4, (scenario, total)
            assert arrivals[0] >= 0.1
            assert arrivals[-1] >= 0.4 * 0.95
            assert total < 10, (scenario, total)  # not stuck


@pytest.mark.parametrize(
    "args",
    [
        ["--fault", "bogus"],
        ["--chunk", "0"],
        ["--scenario", "nope"],
        ["--store", "redis:x"],
        ["--ttft", "-1"],
        ["--duration", "-1"],
        ["--duration", "1", "--inter-token", "0.1"],
        ["--duration", "1", "--jitter", "0.1"],
        ["--duration", "1", "--ttft", "2"],
        ["--port", "http"],
    ],
)
def test_bad_arguments_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert "responses-mock: error:" in capsys.readouterr().err


def test_port_in_use_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["--port", str(taken.getsockname()[1])]) == 2
    assert "cannot bind" in capsys.readouterr().err


def test_help_explains_usage() -> None:
    result = subprocess.run([*COMMAND, "--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0
    for needle in (
        "x-mock-scenario",
        "--fault",
        "429@1,2",
        "listening on",
        "--frozen-time",
        "mock-reasoning",
    ):
        assert needle in result.stdout
