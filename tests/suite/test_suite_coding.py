"""A target's Content-Encoding is decoded by the suite in bounded pieces.

Before, the suite's client let httpx decode: it asked for ``gzip, deflate, br`` and expanded each
compressed read whole before the body cap was looked at. 405 bytes of brotli are 256 MiB, and a
gzip body of 256 KiB took the client past 64 MiB at once; ``preflight`` read /models whole.
"""

from __future__ import annotations

import base64
import gzip
import json
import tracemalloc
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from suite_support import serve

from conformance.sse.framing import SSEStreamValidator
from conformance.suite.coding import ACCEPT_ENCODING, ContentDecoder, UndecodableBody
from conformance.suite.http import TargetClient
from conformance.suite.runner import preflight
from conformance.suite.targets import Target

MiB = 1024 * 1024
ZEROS = 256 * MiB
# brotli.compress(b"\0" * 256 MiB, quality=5): embedded so that the test needs no brotli.
BROTLI_256_MIB = base64.b64decode(
    "y///PwAkAOKxQHLv//j//weABEAcFoDu/R////8AkACIwwLQvf/j//8fABIAcVgAuvd//P//A0ACIA4LQPf+j///fwBIAMRhAeje//H//w8ACYA4LADd+z/+//8BIAEQhwWge//H//8/ACQA4rAAdO//+P//B4AEQBwWgO79H////wCQAIjDAtC9/+P//x8AEgBxWAC693/8//8DQAIgDgtA9/6P//9/AEgAxGEB6N7/8f//DwAJgDgsAN37P/7//wEgARCHBaB7/8f//z8AJADisAB07//4//8HgARAHBaA7v0f////AJAAiMMC0L3/4///HwASAHFYALr3f/z//wNAAiAOC0D3/o///38ASADEYQHo3v/x//8PAAmAOCwA3fs//v//ASABEIcFoHv/x///PwAkAOKwAHTv//j//weABEAcFoDu/R////8AkACIwwLQvf/j//8fABIAcVgAuvd//P//A0ACIA4LQPf+j///fwBIAMRhAeje//H//w8ACYA4LADd+z/+//8BIAEQhwWge/83"
)
RESPONSE = {"id": "resp_1", "object": "response", "status": "completed", "output": []}


def _app(body: bytes, coding: str | None, seen: list[dict[str, str]], ctype: str) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
        headers = [(b"content-type", ctype.encode())]
        if coding:
            headers.append((b"content-encoding", coding.encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for start in range(0, len(body), 64 * 1024):
            part = body[start : start + 64 * 1024]
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


def _peak(run: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        out = run()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _call(url: str, **options: Any) -> Any:
    client = TargetClient(url, api_key=None, timeout=60, max_events=100, **options)
    try:
        return client.call("GET", "/responses/resp_1")
    finally:
        client.close()


def _deflate(data: bytes, wbits: int) -> bytes:
    state = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return state.compress(data) + state.flush()


# --- the failing examples -----------------------------------------------------------------------


def test_a_gzip_bomb_is_capped_on_what_it_decodes_to() -> None:
    seen: list[dict[str, str]] = []
    bomb = gzip.compress(b"\0" * ZEROS)
    with serve(_app(bomb, "gzip", seen, "application/json"), quiet=True) as url:
        ex, peak = _peak(lambda: _call(url, max_body_bytes=MiB))
    assert ex.status == 200 and ex.error == f"body larger than {MiB} bytes"
    assert peak < 8 * MiB, peak  # before: each 64 KiB read became 64 MiB at once
    assert seen[0]["accept-encoding"] == ACCEPT_ENCODING == "gzip, deflate"


def test_a_brotli_body_is_not_decoded_at_all() -> None:
    seen: list[dict[str, str]] = []
    with serve(_app(BROTLI_256_MIB, "br", seen, "application/json"), quiet=True) as url:
        ex, peak = _peak(lambda: _call(url))
    assert ex.status == 200 and ex.body is None
    assert ex.error == (
        "body unreadable: Content-Encoding 'br' was not asked for (Accept-Encoding: gzip, deflate)"
    )
    assert peak < 8 * MiB, peak  # before: 256 MiB, from 405 bytes


def test_preflight_reads_no_body() -> None:
    big = b"x" * ZEROS
    with serve(_app(big, None, [], "application/json"), quiet=True) as url:
        result, peak = _peak(lambda: preflight(Target(name="t", base_url=url, model="m")))
    assert result is None
    assert peak < 8 * MiB, peak  # before: /models read whole (256 MiB)


# --- the near misses: a coded body the suite asked for is read as it is ------------------------


@pytest.mark.parametrize(
    ("coding", "encode"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", lambda d: _deflate(d, zlib.MAX_WBITS)),  # the zlib format, as RFC 9110 says
        ("deflate", lambda d: _deflate(d, -zlib.MAX_WBITS)),  # raw deflate, as some servers send
        ("identity", lambda d: d),
        (None, lambda d: d),
    ],
)
def test_a_coded_body_is_decoded(coding: str | None, encode: Callable[[bytes], bytes]) -> None:
    body = json.dumps(RESPONSE | {"pad": "y" * 300_000}).encode()
    with serve(_app(encode(body), coding, [], "application/json"), quiet=True) as url:
        ex = _call(url)
    assert ex.error is None and ex.body == RESPONSE | {"pad": "y" * 300_000}


def test_a_gzip_stream_is_judged_event_by_event() -> None:
    events = [
        {"type": "response.created", "sequence_number": 0},
        {"type": "response.in_progress", "sequence_number": 1},
    ]
    raw = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    with serve(_app(gzip.compress(raw), "gzip", [], "text/event-stream"), quiet=True) as url:
        client = TargetClient(url, api_key=None, timeout=60, max_events=100)
        validator = SSEStreamValidator(max_events=100, keep_events=True)
        try:
            body = {"model": "m", "input": "hi", "stream": True}
            ex = client.stream("POST", "/responses", validator=validator, json_body=body)
        finally:
            client.close()
    assert ex.error is None
    assert [e.get("type") for e in ex.events] == ["response.created", "response.in_progress"]


def test_a_gzip_bomb_as_a_stream_stops_at_the_event_limit() -> None:
    """A guard (it held before too, httpx's gzip decoder happening to keep this one small): a
    stream has no body cap, its bound is the SSE decoder's on one event; one 256 MiB line of
    zeros, gzipped, is refused at that bound, fed in bounded pieces."""
    bomb = gzip.compress(b"data: " + b"\0" * ZEROS)
    with serve(_app(bomb, "gzip", [], "text/event-stream"), quiet=True) as url:
        client = TargetClient(url, api_key=None, timeout=60, max_events=100)
        validator = SSEStreamValidator(max_events=100, max_event_bytes=MiB)
        try:
            body = {"model": "m", "input": "hi", "stream": True}
            ex, peak = _peak(
                lambda: client.stream("POST", "/responses", validator=validator, json_body=body)
            )
        finally:
            client.close()
    assert ex.error is not None and ex.error.startswith("stream abandoned"), ex.error
    assert peak < 16 * MiB, peak


# --- the decoder itself -------------------------------------------------------------------------


def test_no_piece_is_larger_than_the_bound() -> None:
    blob = gzip.compress(b"\0" * (8 * MiB))
    decoder = ContentDecoder("gzip", piece=4096)
    pieces = [p for i in range(0, len(blob), 1000) for p in decoder.feed(blob[i : i + 1000])]
    pieces += list(decoder.flush())
    assert max(map(len, pieces)) == 4096 and sum(map(len, pieces)) == 8 * MiB


@pytest.mark.parametrize("coding", ["br", "zstd", "compress", "gzip, gzip", "deflate, br"])
def test_a_coding_not_asked_for_is_refused(coding: str) -> None:
    with pytest.raises(UndecodableBody, match="was not asked for"):
        ContentDecoder(coding)


def test_a_cut_or_corrupt_body_is_refused() -> None:
    blob = gzip.compress(b"hello " * 1000)
    cut = ContentDecoder("gzip")
    list(cut.feed(blob[: len(blob) // 2]))
    with pytest.raises(UndecodableBody, match="ends before its coded stream does"):
        list(cut.flush())
    with pytest.raises(UndecodableBody, match="does not decode"):
        list(ContentDecoder("gzip").feed(b"plain text, not gzip"))
    assert list(ContentDecoder("gzip").flush()) == []  # no body at all (a 204, a HEAD) is fine


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS])
def test_deflate_read_one_byte_at_a_time(wbits: int) -> None:
    """zlib and raw deflate are told apart by the first two bytes, even when they come in two
    reads (before, a first read of one byte was taken as zlib and raw deflate then refused)."""
    data = b"hello deflate " * 100
    packed = _deflate(data, wbits)
    decoder = ContentDecoder("deflate")
    out = b"".join(p for i in range(len(packed)) for p in decoder.feed(packed[i : i + 1]))
    assert out + b"".join(decoder.flush()) == data
