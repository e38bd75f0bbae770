"""The ``proxy`` sub-command of ``responses-conformance`` (wired in :mod:`conformance.cli`).
Heavy imports (the transport; uvicorn for WebSocket mode) happen only when it runs."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from ..cli_options import (
    BASE_URL_HELP,
    READ_TIMEOUT_HELP,
    BaseURLError,
    base_url,
    port_number,
    seconds,
)
from ..errors import ConformanceError
from ..exit_codes import EXIT_BROKEN

if TYPE_CHECKING:
    from .ledger import Ledger

__all__ = ["add_subcommand", "cmd_proxy"]


_DESCRIPTION = """\
A validating reverse proxy: point your client (the openai SDK, the Agents SDK, Codex, your app) at
http://127.0.0.1:PORT/v1 instead of the server's base URL. Every request is forwarded to the
upstream unchanged and every answer streamed back as it arrives, while the judge checks every
stream and body with the suite's checks (docs/proxy.md). One console line per exchange; on exit
the same reports as `run`, grouped by request kind.
"""

_EPILOG = """\
The API key (Authorization header, api-key, cookies) passes through to the upstream and never
into a report. The proxy binds 127.0.0.1 unless --host says otherwise.

reports (--report-dir DIR): index.json, junit.xml, report.html — written on SIGINT / SIGTERM and
every --report-every seconds; index.json's `proxy.recent` lists the latest exchanges' verdicts.

exit codes (on SIGINT / SIGTERM): 0 every exchange conformant; 1 an exchange failed (MUST; SHOULD
too with --strict); 2 the proxy could not start (bad upstream URL, port taken), or an answer was
no verdict — the upstream refused the key (401/403), sent an HTML page, or does not serve the
model: one line says so, and no outcome comes from it (docs/proxy.md).

examples:
  responses-conformance proxy --upstream http://127.0.0.1:8000 --port 8080 --report-dir reports
  OPENAI_BASE_URL=http://127.0.0.1:8080/v1 python your_app.py
  responses-conformance proxy --upstream https://api.openai.com/v1 --profile core,stateful --strict
"""


def add_subcommand(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "proxy", help="a validating reverse proxy: judge a real client's traffic live",
        description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    p.add_argument(
        "--upstream", "--base-url", dest="upstream", required=True, metavar="URL",
        help=f"the upstream (the target): {BASE_URL_HELP}",
    )  # fmt: skip
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument(
        "--port",
        type=port_number,
        default=8080,
        help="port to bind; 0 picks a free one (default: 8080)",
    )
    p.add_argument("--name", metavar="NAME", help="the target's name in reports")
    p.add_argument(
        "--profile", action="append", metavar="P[,P...]", default=None,
        help="profiles the upstream declares (checks judged; default core)",
    )  # fmt: skip
    p.add_argument("--strict", action="store_true", help="SHOULD violations fail too")
    p.add_argument("--report-dir", metavar="DIR", help="write index.json, junit.xml, report.html")
    p.add_argument(
        "--report-every", type=float, metavar="SECONDS", default=None,
        help="with --report-dir: also write the reports every SECONDS",
    )  # fmt: skip
    p.add_argument(
        "--record", metavar="DIR", default=None,
        help="also record every exchange as a cassette in DIR (docs/cassettes.md)",
    )  # fmt: skip
    p.add_argument(
        "--read-timeout", dest="timeout", type=seconds, metavar="SECONDS", default=300.0,
        help=f"{READ_TIMEOUT_HELP} from the upstream (default 300)",
    )  # fmt: skip
    p.add_argument(
        "--max-events", type=int, metavar="N", default=20_000,
        help="events judged of one stream; the rest is forwarded unjudged (default 20000)",
    )  # fmt: skip
    p.add_argument(
        "--max-body-bytes", type=int, metavar="N", default=16 * 1024 * 1024,
        help="bytes of one non-stream body; a larger one fails the exchange (default 16 MiB)",
    )  # fmt: skip
    p.add_argument(
        "--head-timeout", type=_off_or_seconds, metavar="S", default=30.0,
        help="a request head must arrive within S seconds of its first byte, else 408 and the "
        "connection closed; 0: no bound (default 30)",
    )  # fmt: skip
    p.add_argument(
        "--body-timeout", type=_off_or_seconds, metavar="S", default=30.0,
        help="a request body must arrive within S seconds of its head's end, else 408; "
        "0: no bound (default 30)",
    )  # fmt: skip
    p.add_argument(
        "--keep-alive-timeout", type=seconds, metavar="S", default=5.0,
        help="an idle client connection is closed after S seconds (default 5)",
    )  # fmt: skip
    p.add_argument(
        "--drain-timeout", type=_off_or_seconds, metavar="S", default=30.0,
        help="on SIGTERM / SIGINT: the relay ends within S seconds; in-flight HTTP exchanges "
        "may finish until the last quarter (at most 2 s), then are cut (default 30; a second "
        "signal cuts at once)",
    )  # fmt: skip
    p.add_argument(
        "--ws-send-timeout", type=_off_or_seconds, metavar="S", default=30.0,
        help="a WebSocket client that reads nothing for S seconds while the proxy has events or "
        "pongs for it is closed (1008); the proxy reads no more from a client its output waits "
        "on (default 30; 0: never closed)",
    )  # fmt: skip
    p.add_argument("-q", "--quiet", action="store_true", help="no line per exchange")


def _off_or_seconds(text: str) -> float:
    """A duration as ``seconds`` takes it, or ``0`` (no bound)."""
    try:
        if float(text.strip().lower().removesuffix("s")) == 0:
            return 0.0
    except ValueError:
        pass
    return seconds(text)


class ProxyError(ConformanceError, ValueError):
    """The proxy cannot start (exit 2, one line)."""


def _profiles(values: list[str] | None) -> tuple[str, ...]:
    from ..suite.targets import ALL_PROFILES

    names = [p.strip() for v in values or () for p in v.split(",") if p.strip()]
    bad = [p for p in names if p not in ALL_PROFILES]
    if bad:
        raise ProxyError(f"unknown profile(s) {', '.join(bad)}; known: {', '.join(ALL_PROFILES)}")
    return tuple(dict.fromkeys(("core", *names)))


def check_upstream(url: str, err: TextIO | None = None) -> str:
    """The upstream base URL, with or without /v1 as every CLI of the family takes it
    (docs/cli.md); a note on ``err`` when the URL used differs from the one given."""
    try:
        used, note = base_url(url, flag="--upstream")
    except BaseURLError as exc:
        raise ProxyError(str(exc)) from None
    if note and err is not None:
        err.write(f"responses-conformance proxy: {note}\n")
    return used


def bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def cmd_proxy(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        upstream = check_upstream(args.upstream, err)
        profiles = _profiles(args.profile)
        if args.report_every is not None and (args.report_every <= 0 or not args.report_dir):
            raise ProxyError("--report-every needs --report-dir and a positive number of seconds")
        for name in ("timeout", "max_events", "max_body_bytes"):
            if getattr(args, name) <= 0:
                raise ProxyError(f"--{name.replace('_', '-')} must be positive")
        if args.report_dir:
            from ..suite.reporting import report_dir_problem

            problem = report_dir_problem(args.report_dir)
            if problem is not None:  # said now, not after a whole session of traffic
                raise ProxyError(problem)
        recorder = _recorder(args.record)
        try:
            sock = bind(args.host, args.port)
        except (OSError, OverflowError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
            raise ProxyError(f"cannot listen on {args.host}:{args.port}: {why}") from None
    except ProxyError as exc:
        err.write(f"responses-conformance proxy: {exc}\n")
        return EXIT_BROKEN
    from cassettes.redaction import Redactor

    from ..suite.targets import Target, _name_from_url
    from .app import ProxyApp, ProxySettings
    from .ledger import Ledger

    target = Target(
        name=args.name or _name_from_url(upstream),
        base_url=upstream,
        model="(the client's)",
        profiles=profiles,
        timeout=args.timeout,
        max_events=args.max_events,
        max_body_bytes=args.max_body_bytes,
    )
    redactor = Redactor([*target.secrets(), os.environ.get("OPENAI_API_KEY")])
    ledger = Ledger(target, strict=args.strict, out=out, redactor=redactor, quiet=args.quiet)
    settings = ProxySettings(
        upstream=upstream,
        profiles=frozenset(profiles),
        timeout=args.timeout,
        max_events=args.max_events,
        max_body_bytes=args.max_body_bytes,
        head_timeout=args.head_timeout,
        body_timeout=args.body_timeout,
        keep_alive_timeout=args.keep_alive_timeout,
        drain_timeout=args.drain_timeout,
        ws_send_timeout=args.ws_send_timeout,
    )
    app = ProxyApp(settings, ledger, recorder=recorder)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    ledger.console.line(
        f"proxy: http://{shown}:{port}/v1 -> {target.shown_url()}  profiles {', '.join(profiles)}"
        + ("  strict" if args.strict else "")
    )
    try:
        factory = _loop_factory()
        loop = factory() if factory is not None else asyncio.new_event_loop()
        try:
            loop.run_until_complete(_serve(app, ledger, sock, args.report_dir, args.report_every))
        finally:
            loop.close()
    finally:
        sock.close()
    if recorder is not None:
        recorder.close()
    ledger.summary()
    if args.report_dir:
        paths = ledger.write(args.report_dir)
        ledger.console.line("reports: " + ", ".join(str(p) for p in paths))
    return ledger.exit_code()


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (the ``proxy`` extra): the same protocols on
    libuv's sockets, less CPU per event; else asyncio's own. ``RESPONSES_PROXY_LOOP=asyncio``
    picks asyncio's even then (for comparisons, and the tests run both)."""
    if os.environ.get("RESPONSES_PROXY_LOOP", "auto") == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def _recorder(directory: str | None) -> Any:
    if directory is None:
        return None
    from .record import open_recorder

    try:
        return open_recorder(directory)
    except (OSError, ImportError, ValueError) as exc:
        raise ProxyError(f"--record {directory}: {exc}") from None


async def _serve(
    app: Any, ledger: Ledger, sock: socket.socket, report_dir: str | None, every: float | None
) -> None:
    from .server import ProxyServer

    server = ProxyServer(app)
    loop = asyncio.get_running_loop()
    stop, force = asyncio.Event(), asyncio.Event()

    def on_signal() -> None:
        if stop.is_set():
            force.set()  # a second signal: do not wait for open exchanges
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    periodic = None
    if report_dir and every:

        async def report_loop() -> None:
            while True:
                await asyncio.sleep(every)
                ledger.write(report_dir)

        periodic = asyncio.ensure_future(report_loop())
    try:
        await server.serve(sock, stop, force)
    finally:
        if periodic is not None:
            periodic.cancel()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
