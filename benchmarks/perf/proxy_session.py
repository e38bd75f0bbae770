"""A long WebSocket session through ``responses-conformance proxy``, with the proxy's memory as it
goes (issue #39 item 3: one session of 23,400 responses grew the proxy linearly, about 11 KB per
response, until its end).

    python -m benchmarks.perf.proxy_session [--responses 20000] [--samples 10]
        [--code DIR] [--json out.json]

One client opens one WebSocket to the proxy, in front of ``responses-mock`` (no latency), and sends
``--responses`` creates one after the other, each read to its ``response.completed``. The proxy's
RSS is sampled ``--samples`` times along the way. Figures: RSS at the first sample and the last,
growth per 1,000 responses over the second half (flat: near 0), responses per second.
``--code DIR`` runs the proxy (and the mock) of another checkout, for the figures before a change.
Loopback only; bounded by the session's length.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil
from websockets.sync.client import connect

from benchmarks.perf.cli_args import add_code_and_json, emit, positive_int
from benchmarks.perf.servers import first_line, module_command

__all__ = ["main"]

MIB = 1024 * 1024


def session(code: Path, responses: int, samples: int) -> dict[str, Any]:
    mock = subprocess.Popen(
        module_command(code, "mock_server.cli", "--port", "0"),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    proxy = None
    try:
        text = first_line(mock)
        upstream = text.removeprefix("listening on ") + "/v1"
        proxy = subprocess.Popen(
            module_command(code, "conformance.cli", "proxy", "--upstream", upstream, "--port", "0",
                        "--profile", "core,websocket", "-q"),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = first_line(proxy).split()[1]
        url = base.replace("http://", "ws://", 1) + "/responses"
        rss: list[tuple[int, float]] = []
        process = psutil.Process(proxy.pid)
        every = max(1, responses // samples)
        create = json.dumps({"type": "response.create", "model": "mock", "input": "Hi"})
        started = time.monotonic()
        with connect(url, open_timeout=30, max_size=None) as ws:
            for n in range(1, responses + 1):
                ws.send(create)
                while '"response.completed"' not in (frame := str(ws.recv(timeout=60))):
                    if '"type":"error"' in frame.replace(" ", ""):
                        raise SystemExit(f"an error event: {frame[:200]}")
                if n % every == 0 or n == 1:
                    rss.append((n, process.memory_info().rss / MIB))
        took = time.monotonic() - started
    finally:
        for p in (proxy, mock):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
    half = [r for r in rss if r[0] >= responses // 2]
    growth = (half[-1][1] - half[0][1]) / max(1, half[-1][0] - half[0][0]) * 1000
    return {
        "responses": responses,
        "rss_mib": [[n, round(m, 1)] for n, m in rss],
        "rss_first_mib": round(rss[0][1], 1),
        "rss_last_mib": round(rss[-1][1], 1),
        "growth_mib_per_1000_responses_second_half": round(growth, 2),
        "responses_per_second": round(responses / took, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.perf.proxy_session",
                                     description=(__doc__ or "").split("\n\n")[0])  # fmt: skip
    parser.add_argument("--responses", type=positive_int, default=20_000,
                        help="creates in the one session (default 20000)")  # fmt: skip
    parser.add_argument("--samples", type=positive_int, default=10,
                        help="RSS samples along the session (default 10)")  # fmt: skip
    add_code_and_json(parser)
    args = parser.parse_args(argv)
    return emit(session(args.code.resolve(), args.responses, args.samples), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
