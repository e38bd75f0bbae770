"""Helpers for the load-test tests: the mock and ``responses-bench`` as subprocesses, on loopback.

The mock runs through its console script, as any server under test would (benchmarks/ must not import
mock_server). Readiness is its ``listening on`` line, read as soon as it is printed — never a sleep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from child_memory import listening_child
from threaded_http import serving

from benchmarks.perf.localhost import free_port as free_port

BIN = Path(sys.executable).parent

# Nothing listens on port 9 (discard): a run that got as far as connecting would say "unreachable".
NOWHERE = ("--base-url", "http://127.0.0.1:9/v1", "--model", "m")


def fails_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> str:
    """Run the CLI in-process; it must exit 2 with exactly one line on stderr, no traceback."""
    from benchmarks.responses_bench.cli import main

    try:
        code = main([*NOWHERE, "--report-dir", str(tmp_path / "r"), *args])
    except SystemExit as done:  # argparse's own errors
        code = done.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in out + err
    assert "unreachable" not in err, "the bad input must be found before the target is tried"
    assert not (tmp_path / "r").exists(), "no load started, no report written"
    return lines[0]


def quiet_env() -> dict[str, str]:
    """The environment for a child: no API key of the developer's leaks into a test."""
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextmanager
def mock_server(*args: str, timeout: float = 20.0) -> Iterator[str]:
    """A ``responses-mock --port 0 ARGS`` on 127.0.0.1; yields its base URL (``…/v1``)."""
    argv = ["responses-mock", "--host", "127.0.0.1", "--port", "0", *args]
    with listening_child(argv, timeout=timeout) as child:
        yield child.url + "/v1"


@dataclass
class BenchRun:
    code: int
    output: str
    report_dir: Path

    @property
    def summary(self) -> dict[str, Any]:
        return json.loads((self.report_dir / "summary.json").read_text())  # type: ignore[no-any-return]

    def requests(self) -> list[dict[str, Any]]:
        out = []
        for path in sorted(self.report_dir.glob("requests-*.jsonl")):
            out += [json.loads(line) for line in path.read_text().splitlines() if line]
        return out


def bench_command(*args: str) -> list[str]:
    return [str(BIN / "responses-bench"), *args]


def run_bench(report_dir: Path, *args: str, timeout: float = 60.0, quiet: bool = True) -> BenchRun:
    """Run ``responses-bench`` to completion (bounded by ``timeout``)."""
    extra = ["--loglevel", "WARNING", "--only-summary", "--progress-interval", "0"] if quiet else []
    proc = subprocess.run(
        bench_command("--report-dir", str(report_dir), *extra, *args),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=quiet_env(),
    )
    return BenchRun(proc.returncode, proc.stdout + proc.stderr, report_dir)


# ---------------------------------------------------------------- a server that sends given bytes


def sse(events: Sequence[dict[str, Any]], *, done: bool = True) -> bytes:
    body = b"".join(
        b"event: " + e["type"].encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
        for e in events
    )
    return body + (b"data: [DONE]\n\n" if done else b"")


@contextmanager
def scripted_server(
    body: bytes, status: int = 200, headers: Sequence[tuple[str, str]] = ()
) -> Iterator[str]:
    """A loopback HTTP server answering every POST with ``body`` as an SSE stream (``headers``
    added, a ``content-encoding`` say, whatever the request asked for); yields ``…/v1``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            kind = "text/event-stream" if status == 200 else "application/json"
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as url:
        yield url + "/v1"


def response_object(status: str = "in_progress", **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "model": "m",
        "output": [],
        "parallel_tool_calls": True,
        "metadata": {},
        "tool_choice": "auto",
        "tools": [],
        "temperature": 1.0,
        "top_p": 1.0,
        "usage": None,
    }
    obj.update(extra)
    return obj


def text_stream(
    pieces: Sequence[str],
    *,
    output_tokens: int | None = None,
    status: str = "completed",
    total_delta: int = 0,
) -> list[dict[str, Any]]:
    """A well-formed text stream; ``output_tokens`` / ``total_delta`` let a test break usage."""
    text = "".join(pieces)
    message_open = {
        "id": "msg_1",
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    message_done = {**message_open, "status": "completed", "content": [part]}
    out_tokens = len(pieces) if output_tokens is None else output_tokens
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": out_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 10 + out_tokens + total_delta,
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response_object()},
        {"type": "response.in_progress", "response": response_object()},
        {"type": "response.output_item.added", "output_index": 0, "item": message_open},
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []},
        },
    ]
    for piece in pieces:
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            }
        )
    events += [
        {
            "type": "response.output_text.done",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "text": text,
            "logprobs": [],
        },
        {
            "type": "response.content_part.done",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "part": part,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": message_done},
    ]
    terminal = {"completed": "response.completed", "incomplete": "response.incomplete"}[status]
    extra: dict[str, Any] = {}
    if status == "incomplete":
        extra["incomplete_details"] = {"reason": "max_output_tokens"}
    events.append(
        {
            "type": terminal,
            "response": response_object(status, output=[message_done], usage=usage, **extra),
        }
    )
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


@contextmanager
def capacity_server(slots: int, service: float, body: bytes) -> Iterator[str]:
    """A server that can work on ``slots`` requests at once, ``service`` seconds each, and queues
    the rest — so latency climbs once the offered rate passes ``slots / service`` (sweep tests)."""
    gate = threading.Semaphore(slots)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            with gate:
                time.sleep(service)  # the work this server does; not a wait for readiness
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler, backlog=256) as url:
        yield url + "/v1"
