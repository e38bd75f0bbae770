"""The probes of issue #39 against ``responses-mock`` (or ``responses-reference``, or the proxy)
on loopback, with memory figures: what a careless or hostile client costs the server.

    python -m benchmarks.perf.hardening [--probe never-reading|ping-flood|stalled|sigterm]...
        [--creates 255] [--create-mib 4] [--flood-seconds 20] [--stalled 1250] [--wait 40]
        [--clients 1] [--steady 4] [--steady-tokens 200] [--server mock|reference|proxy]
        [--python PY] [--code DIR] [--json out.json] [-- SERVER FLAGS...]

- ``never-reading``: one WebSocket client sends ``--creates`` creates of ``--create-mib`` MiB
  and reads nothing, for at most ``--flood-seconds``; then it leaves. Figures: the server's RSS
  before, at its peak, and 5 s after the client left. ``--clients N``: N such clients one after
  the other against the same server, a figure each (what the server keeps after each).
- ``ping-flood``: one client sends pings for ``--flood-seconds`` and reads nothing (so the
  pongs pile up). Figures: RSS before and at the peak, and whether the server dropped it.
- ``stalled``: ``--stalled`` connections each send half a request head and then one byte every
  2 s. Figure: how many the server has closed after ``--wait`` seconds.
- ``sigterm``: ``--steady`` clients stream one response after another (each of at most
  ``--steady-tokens``) for ``--flood-seconds``;
  then the server gets SIGTERM while they go on asking. Figures: its exit code and how long after
  the signal it exited (to be read against the server's ``--drain-timeout``, given after
  ``--``), the requests answered after the signal, and how the streams in flight ended (a
  terminal event, or cut).

``--server proxy`` probes ``responses-conformance proxy`` in front of the mock (both of the same
code; the figures are the proxy's; its flags after ``--``). ``--code DIR`` runs the server of
another checkout (e.g. the main branch, for the figures before a
change); the flags after ``--`` go to the server. ``--server reference`` runs
``reference_impl.sglang.cli`` under ``--python`` (an interpreter with SGLang, e.g. the ``sglang``
tox env's), given its engine by those flags: ``-- --sglang-url http://127.0.0.1:30000`` for a
running SGLang server (the reference tokenizes in its own process either way). tox -e hardening runs every probe at these full
sizes; the CI slice (small counts, short timeouts) is tests/reference_impl/test_refimpl_limits.py.
Loopback only; every probe is bounded in time.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psutil

from benchmarks.perf.cli_args import positive_float, positive_int
from benchmarks.perf.errors import RunError
from benchmarks.perf.servers import PROXY_READY, Server, start_server

__all__ = ["main"]

MIB = 1024 * 1024
PROBES = ("never-reading", "ping-flood", "stalled", "sigterm")


SERVERS = {
    "mock": "mock_server.cli",
    "reference": "reference_impl.sglang.cli",
    "proxy": "conformance.cli",  # `proxy`, in front of a mock of the same code
}


def _launch(python: str, code: Path, module: str) -> list[str]:
    return [python, "-c", f"import runpy, sys; sys.path.insert(0, {str(code)!r}); "
            f"sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__')"]  # fmt: skip


def _server(kind: str, python: str, code: Path, flags: Sequence[str]) -> Server:
    if kind == "proxy":
        return _proxy(python, code, flags)
    argv = [*_launch(python, code, SERVERS[kind]), "--port", "0", *flags]
    try:  # the reference loads a tokenizer (and, in process, a model) first
        return start_server(kind, argv, None, timeout=30 if kind == "mock" else 600)
    except RunError as exc:
        raise SystemExit(f"the {kind} did not start: {exc}") from None


class _Proxied(Server):
    """The proxy (the server probed) and the mock behind it, stopped together."""

    upstream: Server | None = None

    def stop(self) -> None:
        super().stop()
        if self.upstream is not None:
            self.upstream.stop()


def _proxy(python: str, code: Path, flags: Sequence[str]) -> Server:
    """``responses-conformance proxy`` (the figures are its own) in front of the mock."""
    mock = _server("mock", python, code, ())
    argv = [*_launch(python, code, SERVERS["proxy"]), "proxy", "--upstream", mock.origin,
            "--port", "0", "-q", "--report-dir", tempfile.mkdtemp(prefix="hardening-proxy-"),
            *flags]  # fmt: skip
    try:
        proxy = start_server("proxy", argv, None, timeout=30, ready=PROXY_READY)
    except RunError as exc:
        mock.stop()
        raise SystemExit(f"the proxy did not start: {exc}") from None
    proxied = _Proxied(proxy.name, proxy.process, proxy.host, proxy.port, proxy.drain)
    proxied.upstream = mock
    return proxied


def _rss(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / MIB


def _client(port: int) -> socket.socket:
    """A WebSocket client that reads nothing: a small receive buffer, the handshake read."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16))
    sock.sendall(
        b"GET /v1/responses HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\n"
        b"sec-websocket-key: " + key + b"\r\nsec-websocket-version: 13\r\n\r\n"
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    if not head.startswith(b"HTTP/1.1 101"):
        raise SystemExit(f"the WebSocket upgrade was refused: {head[:40]!r}")
    return sock


def _frame(opcode: int, payload: bytes) -> bytes:
    """A masked client frame (the all-zero mask: the payload goes as it is)."""
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    return header + b"\0\0\0\0" + payload


def _push(
    sock: socket.socket,
    frames: Callable[[], bytes | None],
    seconds: float,
    sample: Callable[[], None],
) -> tuple[int, bool]:
    """Send what ``frames`` gives until it gives None or ``seconds`` pass; (bytes sent, dropped)."""
    sock.settimeout(0.2)
    sent = 0
    pending = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sample()
        if not pending:
            frame = frames()
            if frame is None:
                return sent, False
            pending = frame
        try:
            n = sock.send(pending[: 4 * MIB])
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return sent, True
        sent += n
        pending = pending[n:]
    return sent, False


class _Peak:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.before = self.peak = _rss(pid)
        self._last = 0.0

    def __call__(self) -> None:
        now = time.monotonic()
        if now - self._last >= 0.1:
            self._last = now
            self.peak = max(self.peak, _rss(self.pid))


def never_reading(server: Server, creates: int, mib: float, seconds: float) -> dict[str, Any]:
    peak = _Peak(server.pid)
    sock = _client(server.port)
    body = json.dumps({"type": "response.create", "model": "m", "input": "x" * int(mib * MIB)})
    frame = _frame(0x1, body.encode())
    left = [creates]

    def frames() -> bytes | None:
        if not left[0]:
            return None
        left[0] -= 1
        return frame

    started = time.monotonic()
    sent, dropped = _push(sock, frames, seconds, peak)
    if not dropped:  # all sent: hold on, unread, until the time is up or the server drops it
        ping = _frame(0x9, b"")
        left_s = max(0.0, seconds - (time.monotonic() - started))

        def pings() -> bytes:
            time.sleep(0.05)
            return ping

        dropped = _push(sock, pings, left_s, peak)[1]
    sock.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        peak()
        time.sleep(0.2)
    return {"probe": "never-reading", "creates_sent": creates - left[0], "sent_mib": round(sent / MIB),
            "dropped_by_server": dropped, "rss_before_mib": round(peak.before),
            "rss_peak_mib": round(peak.peak), "rss_after_leaving_mib": round(_rss(server.pid))}  # fmt: skip


def ping_flood(server: Server, seconds: float) -> dict[str, Any]:
    peak = _Peak(server.pid)
    sock = _client(server.port)
    batch = _frame(0x9, b"p" * 125) * 4096
    started = time.monotonic()
    sent, dropped = _push(sock, lambda: batch, seconds, peak)
    took = time.monotonic() - started
    sock.close()
    return {"probe": "ping-flood", "seconds": round(took, 1), "sent_mib": round(sent / MIB),
            "dropped_by_server": dropped, "rss_before_mib": round(peak.before),
            "rss_peak_mib": round(peak.peak)}  # fmt: skip


def stalled(server: Server, count: int, wait: float) -> dict[str, Any]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: appl")
        sock.setblocking(False)
        socks.append(sock)
    closed: set[int] = set()
    started = time.monotonic()
    next_trickle = started + 2
    while time.monotonic() - started < wait and len(closed) < count:
        for i, sock in enumerate(socks):
            if i in closed:
                continue
            try:
                while sock.recv(65536):
                    pass
                closed.add(i)  # b"": the server closed it
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
        if time.monotonic() >= next_trickle:
            next_trickle += 2
            for i, sock in enumerate(socks):
                if i not in closed:
                    try:
                        sock.send(b"i")
                    except OSError:
                        closed.add(i)
        time.sleep(0.1)
    for sock in socks:
        sock.close()
    return {"probe": "stalled", "connections": count, "closed": len(closed),
            "after_seconds": round(time.monotonic() - started, 1)}  # fmt: skip


def sigterm(server: Server, clients: int, seconds: float, tokens: int) -> dict[str, Any]:
    import httpx2  # a dependency of the project

    signalled: list[float] = []
    counts = {"answered_before": 0, "answered_after": 0, "refused_after": 0, "terminal": 0,
              "cut": 0}  # fmt: skip
    lock = threading.Lock()
    body = {"model": "m", "input": "tell a long story", "stream": True, "max_output_tokens": tokens}

    def count(key: str) -> None:
        with lock:
            counts[key] += 1

    def client() -> None:
        # Streams one response after another. A stream in flight at the signal ends by a
        # terminal event or is cut; a request the server never began to answer once signalled
        # (refused, or its connection closed unanswered: safe to send elsewhere) is "refused".
        while not signalled or time.monotonic() - signalled[0] < 60:
            after, began, ended = bool(signalled), False, False
            try:
                with (
                    httpx2.Client(timeout=30) as http,
                    http.stream("POST", server.origin + "/v1/responses", json=body) as got,
                ):
                    began = True
                    count("answered_after" if after else "answered_before")
                    for line in got.iter_lines():
                        ended = ended or (
                            line[16:] in _ENDS and line.startswith("event: response.")
                        )
            except httpx2.HTTPError:
                if signalled and not began:
                    count("refused_after")
                    return
                if signalled:
                    count("cut")
                continue
            if signalled:
                count("terminal" if ended else "cut")

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    server.process.send_signal(signal.SIGTERM)
    signalled.append(time.monotonic())
    try:
        code: int | None = server.process.wait(120)
    except subprocess.TimeoutExpired:
        code = None
    exited = time.monotonic() - signalled[0]
    for thread in threads:
        thread.join(5)
    return {"probe": "sigterm", "clients": clients, "exit_code": code,
            "exit_seconds": round(exited, 2), **counts}  # fmt: skip


_ENDS = {"completed", "incomplete", "failed"}


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    flags: list[str] = []
    if "--" in args_list:
        at = args_list.index("--")
        args_list, flags = args_list[:at], args_list[at + 1 :]
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.perf.hardening",
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--probe", action="append", choices=PROBES, help="default: all four")
    parser.add_argument("--creates", type=positive_int, default=255)
    parser.add_argument("--create-mib", type=positive_float, default=4.0)
    parser.add_argument("--flood-seconds", type=positive_float, default=20.0)
    parser.add_argument("--stalled", type=positive_int, default=1250)
    parser.add_argument("--wait", type=positive_float, default=40.0)
    parser.add_argument(
        "--clients",
        type=positive_int,
        default=1,
        help="never-reading clients one after the other (default 1)",
    )
    parser.add_argument(
        "--steady", type=positive_int, default=4, help="sigterm: streaming clients (default 4)"
    )
    parser.add_argument(
        "--steady-tokens", type=positive_int, default=200,
        help="sigterm: each stream's max_output_tokens (default 200)",
    )  # fmt: skip
    parser.add_argument("--server", choices=sorted(SERVERS), default="mock")
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter the server runs under (default: this one)",
    )
    parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the checkout whose server runs (default: this one)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(args_list)
    results = []
    for probe in args.probe or PROBES:
        # a fresh server per probe: figures do not mix
        server = _server(args.server, args.python, args.code, flags)
        try:
            if probe == "never-reading":
                found = [
                    {"client": n + 1, **never_reading(server, args.creates, args.create_mib,
                                                       args.flood_seconds)}
                    for n in range(args.clients)
                ]  # fmt: skip
            elif probe == "ping-flood":
                found = [ping_flood(server, args.flood_seconds)]
            elif probe == "sigterm":
                found = [sigterm(server, args.steady, args.flood_seconds, args.steady_tokens)]
            else:
                found = [stalled(server, args.stalled, args.wait)]
        finally:
            server.stop()
        for result in found:
            print(json.dumps({"server": args.server, **result}), flush=True)
        results.extend(found)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
