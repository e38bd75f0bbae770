"""Large streams through a recording proxy, with the proxy's peak memory (issue #39 item 3: a
recording proxy held up to 64 MiB per exchange; 12 concurrent 100 MB streams peaked at 1.1 GB).

    python -m benchmarks.perf.recording_memory [--streams 4] [--mb 50] [--code DIR] [--json out.json]

``responses-mock`` (``--chunk 400``: 400 tokens per delta) answers ``--streams`` concurrent
streamed creates of about ``--mb`` MB each (the ``max-output-tokens`` scenario), through
``responses-conformance proxy``: once without ``--record``, then with ``--record`` into a
temporary folder, each a fresh proxy. Each client reads its stream to the end and throws it
away; the client sends a bearer key, so the recorder's redaction is on as in real use. The
proxy's RSS is sampled every 20 ms, until the last cassette file is in place: the figures are its RSS before the streams, its peak, and the
growth (peak − before). The judge's own share is what the run without ``--record`` grows (it
keeps a stream's events as evidence); the recorder's share is the difference between the two
runs. ``--code DIR`` runs the proxy and the mock of another checkout (``git archive main | tar -x
-C DIR``), for the figures before a change; run both in one sitting and compare ratios, as the
machine's load moves absolute numbers. Loopback only; bounded by ``--streams`` × ``--mb``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil

from benchmarks.perf.cli_args import add_code_and_json, emit, positive_int
from benchmarks.perf.servers import first_line, module_command

__all__ = ["main"]

MIB = 1024 * 1024
TOKENS_PER_MB = 37_000  # the mock's max-output-tokens stream, --chunk 400: about 27 bytes a token
KEY = "sk-bench-recording-0123456789abcdef"


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is not None and process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _stream(base: str, tokens: int, got: list[int], index: int) -> None:
    """One streamed create, read to its end in 64 KiB reads and thrown away."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=120)
    body = json.dumps({"model": "mock-max-output-tokens", "input": "Hi", "stream": True,
                       "max_output_tokens": tokens})  # fmt: skip
    headers = {"content-type": "application/json", "authorization": f"Bearer {KEY}"}
    conn.request("POST", url.path.rstrip("/") + "/responses", body, headers)
    response = conn.getresponse()
    size = 0
    while block := response.read(64 * 1024):
        size += len(block)
    got[index] = size if response.status == 200 else -response.status
    conn.close()


def run(code: Path, upstream: str, streams: int, mb: int, record: Path | None) -> dict[str, Any]:
    args = ["proxy", "--upstream", upstream, "--port", "0", "-q"]
    if record is not None:
        args += ["--record", str(record)]
    proxy = subprocess.Popen(module_command(code, "conformance.cli", *args),
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        base = first_line(proxy).split()[1]
        process = psutil.Process(proxy.pid)
        time.sleep(0.5)
        before = process.memory_info().rss
        got = [0] * streams
        threads = [
            threading.Thread(target=_stream, args=(base, mb * TOKENS_PER_MB, got, i), daemon=True)
            for i in range(streams)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        peak = before
        while any(t.is_alive() for t in threads):
            peak = max(peak, process.memory_info().rss)
            time.sleep(0.02)
        took = time.monotonic() - started
        for thread in threads:
            thread.join()
        # the proxy may still be writing what it recorded: sample until every file is in place
        deadline = time.monotonic() + 300
        while record is not None and time.monotonic() < deadline:
            peak = max(peak, process.memory_info().rss)
            if len([p for p in record.iterdir() if p.suffix == ".jsonl"]) >= streams:
                break
            time.sleep(0.02)
        written = time.monotonic() - started
        time.sleep(0.3)
        after = process.memory_info().rss
    finally:
        _stop(proxy)
    result: dict[str, Any] = {
        "record": record is not None,
        "stream_bytes": got,
        "seconds": round(took, 2),
        "seconds_to_files": round(written, 2),
        "rss_before_mib": round(before / MIB, 1),
        "rss_peak_mib": round(peak / MIB, 1),
        "rss_after_mib": round(after / MIB, 1),
        "growth_mib": round((peak - before) / MIB, 1),
    }
    if record is not None:
        files = sorted(p for p in record.iterdir() if p.suffix == ".jsonl")
        result["cassette_files"] = len(files)
        result["cassette_mib"] = round(sum(p.stat().st_size for p in files) / MIB, 1)
        result["hidden_files_left"] = len([p for p in record.iterdir() if p.name.startswith(".")])
    return result


def measure(code: Path, streams: int, mb: int) -> dict[str, Any]:
    mock = subprocess.Popen(module_command(code, "mock_server.cli", "--port", "0", "--chunk", "400"),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        upstream = first_line(mock).removeprefix("listening on ") + "/v1"
        plain = run(code, upstream, streams, mb, None)
        with tempfile.TemporaryDirectory(prefix="recording-memory-") as folder:
            recorded = run(code, upstream, streams, mb, Path(folder))
    finally:
        _stop(mock)
    return {
        "code": str(code),
        "streams": streams,
        "mb_per_stream": mb,
        "without_record": plain,
        "with_record": recorded,
        "recorder_growth_mib": round(recorded["growth_mib"] - plain["growth_mib"], 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.perf.recording_memory",
                                     description=(__doc__ or "").split("\n\n")[0])  # fmt: skip
    parser.add_argument("--streams", type=positive_int, default=4,
                        help="concurrent streams (default 4)")  # fmt: skip
    parser.add_argument("--mb", type=positive_int, default=50,
                        help="about this many MB per stream (default 50)")  # fmt: skip
    add_code_and_json(parser)
    args = parser.parse_args(argv)
    return emit(measure(args.code.resolve(), args.streams, args.mb), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
