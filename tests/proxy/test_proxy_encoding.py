"""A gzip-encoded stream passes to the client as it was sent (still encoded) and is judged
decoded; the proxy asks the upstream only for codings it can decode."""

from __future__ import annotations

import gzip
import json
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import httpx2
from proxy_support import proxy
from suite_support import serve

CORPUS = Path(__file__).parents[1] / "data" / "openai-recorded" / "streams"
SEEN: list[bytes] = []


def _sse() -> bytes:
    path = sorted(CORPUS.glob("*.jsonl"))[0]
    events = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


async def _gzip_upstream(scope: MutableMapping[str, Any], receive: Callable[[], Awaitable[Any]],
                         send: Callable[[Any], Awaitable[None]]) -> None:  # fmt: skip
    if scope["type"] != "http":
        return
    SEEN.append(dict(scope["headers"]).get(b"accept-encoding", b""))
    packed = gzip.compress(_sse())
    headers = [(b"content-type", b"text/event-stream"), (b"content-encoding", b"gzip")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    third = len(packed) // 3
    for part in (packed[:third], packed[third : 2 * third], packed[2 * third :]):
        await send({"type": "http.response.body", "body": part, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def test_gzip_stream(tmp_path: Path) -> None:
    with (
        serve(_gzip_upstream, quiet=True) as upstream,
        proxy(upstream, report_dir=tmp_path) as run,
        httpx2.Client(timeout=30) as http,
    ):
        headers = {"accept-encoding": "gzip, br, zstd"}
        answer = http.post(run.base_url + "/responses", json={"stream": True}, headers=headers)
    assert answer.headers["content-encoding"] == "gzip"
    assert answer.content == _sse()  # the client decodes what the upstream encoded
    assert SEEN == [b"gzip"]  # br and zstd are codings the judge could not read
    assert run.code == 0, run.stdout + run.stderr
    recent = run.index["proxy"]["recent"]
    assert recent[0]["events"] == _sse().count(b"\n\n") and recent[0]["passed"]
