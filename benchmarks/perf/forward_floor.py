"""The floor under any forwarding proxy: a TCP relay that parses nothing and judges nothing.

    python -m benchmarks.perf.forward_floor --port P --upstream HOST:PORT

Each client connection gets its own upstream connection; bytes go through both ways as they
arrive, one ``write`` per ``data_received``, with the same event loop the validating proxy picks
(uvloop when it is installed, else asyncio's). Flow control is the transports' own: a side whose
peer stops reading pauses the other side's reads.

``benchmarks.perf.proxy_overhead`` runs it beside the validating proxy, pinned to the same core
in front of the same mock: its CPU per event is what the kernel and the event loop charge for
moving one event through a process (two syscalls at least: a receive and a send, each of which,
on loopback, runs the peer's TCP stack too), which no proxy in Python or C can go under. The
proxy's CPU above it is what parsing, framing and judging cost.

It prints ``floor: PORT`` once it listens. It binds 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable

from conformance.cli_options import port_number


class _Side(asyncio.Protocol):
    """One connection of a pair: what it reads, the other one writes."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.peer: _Side | None = None
        self.pending: list[bytes] = []  # read before the peer connected
        self.eof = False  # this side's peer sent its FIN

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        peer = self.peer
        if peer is not None and peer.transport is not None:
            peer.transport.write(data)
        else:
            self.pending.append(data)

    def eof_received(self) -> bool:
        """Pass a half-close on; once both directions have ended, close both connections."""
        self.eof = True
        peer = self.peer
        if peer is None:
            return True  # not connected yet: the EOF follows the pending bytes
        if peer.eof or peer.transport is None or not peer.transport.can_write_eof():
            if peer.transport is not None:
                peer.transport.close()
            return False
        peer.transport.write_eof()
        return True  # the other direction may still carry bytes

    def connection_lost(self, exc: Exception | None) -> None:
        peer = self.peer
        if peer is not None and peer.transport is not None:
            peer.transport.close()

    def pause_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()


class _Client(_Side):
    def __init__(self, host: str, port: int) -> None:
        super().__init__()
        self.upstream = (host, port)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            _, upstream = await loop.create_connection(_Side, *self.upstream)
        except OSError:
            if self.transport is not None:
                self.transport.close()
            return
        assert isinstance(upstream, _Side) and upstream.transport is not None
        if self.transport is None or self.transport.is_closing():
            upstream.transport.close()  # the client left while we connected
            return
        upstream.peer, self.peer = self, upstream
        for data in self.pending:
            upstream.transport.write(data)
        self.pending.clear()
        if self.eof:
            upstream.transport.write_eof()


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


async def _serve(port: int, host: str, upstream_port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Client(host, upstream_port), "127.0.0.1", port)
    print(f"floor: {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--port", type=port_number, default=0, help="listen here (0: any free port)"
    )
    parser.add_argument("--upstream", required=True, metavar="HOST:PORT")
    args = parser.parse_args(argv)
    host, _, port = args.upstream.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 2**16:
        parser.error(f"--upstream {args.upstream!r}: expected HOST:PORT")
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        try:
            runner.run(_serve(args.port, host, int(port)))
        except KeyboardInterrupt:
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
