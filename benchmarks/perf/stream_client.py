"""The load client of ``benchmarks/perf/mock_streaming_throughput.py`` (and the store benchmarks): raw
HTTP/1.1 over asyncio streams, keep-alive connections, one POST per stream, the chunked SSE body
read to its last chunk and its frames counted — nothing a server's cost could hide behind."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import Server

__all__ = ["Sample", "capture", "capture_chunks", "load_round", "request_bytes", "split_frames",
           "stream_once"]  # fmt: skip

_END = b"\r\n0\r\n\r\n"  # the last chunk of a chunked body (RFC 9112 §7.1)


def split_frames(body: bytes) -> list[bytes]:
    return [frame + b"\n\n" for frame in body.split(b"\n\n") if frame]


# --- the load generator -----------------------------------------------------------------------


def request_bytes(host: str, port: int, body: bytes) -> bytes:
    head = (
        f"POST /v1/responses HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Content-Type: application/json\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer unused\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _read_head(reader: asyncio.StreamReader) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    status, _, rest = head.partition(b"\r\n")
    if not status.startswith(b"HTTP/1.1 200"):
        raise RunError(f"server answered {status.decode(errors='replace')!r}")
    if b"transfer-encoding: chunked" not in rest.lower():
        raise RunError("expected a chunked streaming body")


async def stream_once(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> int:
    """Send one request on a kept-alive connection; the number of SSE frames it delivered."""
    writer.write(request)
    await _read_head(reader)
    frames = 0
    last = b""  # the previous read's last 8 bytes: a frame end or the terminator may straddle
    while True:
        data = await reader.read(1 << 18)
        if not data:
            raise RunError("the server closed the connection mid-stream")
        frames += data.count(b"\n\n")
        if last.endswith(b"\n") and data.startswith(b"\n"):
            frames += 1
        last = (last + data[-8:])[-8:]
        if last.endswith(_END):
            return frames


async def capture_chunks(host: str, port: int, body: bytes) -> list[bytes]:
    """One stream's body as the server wrote it: its HTTP chunks, in order (chunked decoding done
    properly: this is the reference). A server writes one chunk per ASGI body message."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request_bytes(host, port, body))
        await _read_head(reader)
        out: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return out
            out.append(await reader.readexactly(size))
            await reader.readexactly(2)
    finally:
        writer.close()


async def capture(host: str, port: int, body: bytes) -> bytes:
    """The decoded body of one stream."""
    return b"".join(await capture_chunks(host, port, body))


@dataclass
class Sample:
    server: str
    round: int
    events: int
    cpu_seconds: float
    wall_seconds: float

    @property
    def events_per_cpu_s(self) -> float:
        return self.events / max(self.cpu_seconds, 1e-9)

    @property
    def events_per_wall_s(self) -> float:
        return self.events / max(self.wall_seconds, 1e-9)


class _Connection:
    """One keep-alive connection; reopened when the server closed it while idle (uvicorn's
    keep-alive timeout is 5 s, and a starved server may keep a connection waiting that long)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def stream(self, request: bytes) -> int:
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(
                    self.server.host, self.server.port
                )
            assert self.reader is not None
            try:
                return await stream_once(self.reader, self.writer, request)
            except (asyncio.IncompleteReadError, ConnectionError) as error:
                nothing = isinstance(error, ConnectionError) or not error.partial
                if attempt == 2 or not nothing:
                    raise
                self.close()  # closed before answering: the idle connection had timed out
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def load_round(
    server: Server, body: bytes, frames_per_stream: int, connections: int, streams: int, rnd: int
) -> Sample:
    request = request_bytes(server.host, server.port, body)
    conns = [_Connection(server) for _ in range(connections)]
    try:

        async def run(conn: _Connection, n: int) -> int:
            total = 0
            for _ in range(n):
                got = await conn.stream(request)
                if got != frames_per_stream:
                    raise RunError(
                        f"{server.name}: a stream delivered {got} frames, expected "
                        f"{frames_per_stream}"
                    )
                total += got
            return total

        await asyncio.gather(*(run(c, 1) for c in conns))  # warm-up, not measured
        cpu0, wall0 = server.cpu_seconds(), time.perf_counter()
        frames = sum(await asyncio.gather(*(run(c, streams) for c in conns)))
        wall1, cpu1 = time.perf_counter(), server.cpu_seconds()
    finally:
        for conn in conns:
            conn.close()
    # Responses events: every frame except the closing `data: [DONE]`.
    events = frames - connections * streams
    return Sample(server.name, rnd, events, cpu1 - cpu0, wall1 - wall0)
