"""A hung or endless target fails its cases and the run ends; an unreachable one is exit 2 with a
one-line reason."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from suite_support import run_suite, serve

from benchmarks.perf.localhost import free_port


async def _models(request: Request) -> Response:
    return JSONResponse({"object": "list", "data": []})


async def _never(request: Request) -> Response:
    await anyio.sleep(3600)
    return Response()


def hung_app() -> Starlette:
    """Accepts every request and never answers it."""
    return Starlette(routes=[
        Route("/v1/models", _models),
        Route("/v1/{rest:path}", _never, methods=["GET", "POST", "DELETE"]),
    ])  # fmt: skip


async def _endless(request: Request) -> Response:
    async def events() -> AsyncIterator[bytes]:
        n = 0
        while True:
            event = {
                "type": "response.output_text.delta",
                "sequence_number": n,
                "item_id": "m",
                "output_index": 0,
                "content_index": 0,
                "delta": "x",
                "logprobs": [],
            }
            yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
            n += 1
            if n % 50 == 0:
                await anyio.sleep(0)

    return StreamingResponse(events(), media_type="text/event-stream")


def endless_app() -> Starlette:
    """Answers every create with a stream that never ends."""
    return Starlette(routes=[
        Route("/v1/models", _models),
        Route("/v1/responses", _endless, methods=["POST"]),
        Route("/v1/{rest:path}", _never, methods=["GET", "POST", "DELETE"]),
    ])  # fmt: skip


def test_hung_target_fails_on_timeout_and_the_run_ends(tmp_path: Path) -> None:
    started = time.monotonic()
    with serve(hung_app(), quiet=True) as url:
        run = run_suite("--base-url", url, "--model", "m", "--timeout", "1",
                        report_dir=tmp_path)  # fmt: skip
    assert time.monotonic() - started < 60
    assert run.code == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert "live.transport.deadline" in run.failing()
    cases = run.index["targets"][next(iter(run.index["targets"]))]["cases"]
    assert cases and all(c["outcome"] in ("failed", "skipped") for c in cases)
    assert "did not answer the last 3 requests" in run.stdout


def test_endless_stream_is_cut_by_the_event_cap(tmp_path: Path) -> None:
    started = time.monotonic()
    with serve(endless_app(), quiet=True) as url:
        run = run_suite("--base-url", url, "--model", "m", "--timeout", "2",
                        "--max-events", "300", "-k", "create_stream and string",
                        report_dir=tmp_path)  # fmt: skip
    assert time.monotonic() - started < 60
    assert run.code == 1
    assert "sse.limit.event_count" in run.failing()


def _closed_port() -> int:
    return free_port()  # nothing listens on it


def test_unreachable_target_exits_2_with_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    run = run_suite("--base-url", url, "--model", "m", report_dir=tmp_path)
    assert run.code == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot connect to" in lines[0] and url in lines[0], run.stderr
    target = next(iter(run.index["targets"].values()))
    assert target["status"] == "unreachable" and target["exit_code"] == 2


def test_bad_arguments_exit_2() -> None:
    run = run_suite("--base-url", "http://127.0.0.1:9/v1")  # no --model
    assert run.code == 2 and "--model is required" in run.stderr
    run = run_suite("--profile", "nonsense")
    assert run.code == 2 and "unknown profile" in run.stderr
    run = run_suite("--expect-fail", "no.such.check")
    assert run.code == 2 and "name no check" in run.stderr
