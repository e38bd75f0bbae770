"""The flags both servers of the family take (``responses-mock``, ``responses-reference``;
docs/cli.md): where they bind and the key their clients must send. The client CLIs declare theirs
in :mod:`conformance.cli_options` (the judged and the judge share no code);
tests/cli/test_cli_family_help.py checks that both spell and describe the shared flags the same.

A server takes the key it requires literally (``--api-key KEY``: it is the server's own key, a test
fixture, not a secret of the user's) or from the environment (``--api-key-env VAR``, which keeps it
out of ``ps`` and shell history); a client only ever takes ``--api-key-env``.
"""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from .server import ServerLimits

__all__ = [
    "OneLineParser",
    "add_bind_options",
    "add_hardening_options",
    "add_log_level",
    "port_number",
    "required_api_key",
    "seconds",
    "server_limits",
]


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit 2, not the whole usage first
    (docs/cli.md: "Bad arguments get one line on stderr")."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


HOST_HELP = "address to bind (default: 127.0.0.1)"
PORT_HELP = "port to bind; 0 picks a free one (default: {port})"
API_KEY_HELP = (
    "require 'Authorization: Bearer KEY' from clients (the server's own key, given literally; "
    "default: no auth)"
)
API_KEY_ENV_HELP = (
    "the environment variable holding the key clients must send (as --api-key, kept out of ps "
    "and shell history)"
)


def port_number(text: str) -> int:
    """An argparse ``type``: a TCP port to bind, 0-65535 (0: any free one). The socket layer
    takes a larger number modulo 65536, so ``--port 70000`` would bind 4464 without a word."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0-65535 (0: any free one), got {text!r}")
    return int(text)


def add_bind_options(group: Any, *, port: int = 8000) -> None:
    """``--host``, ``--port``, ``--api-key``, ``--api-key-env`` on ``group``."""
    group.add_argument("--host", default="127.0.0.1", help=HOST_HELP)
    group.add_argument("--port", type=port_number, default=port, help=PORT_HELP.format(port=port))
    group.add_argument("--api-key", metavar="KEY", help=API_KEY_HELP)
    group.add_argument("--api-key-env", metavar="VAR", help=API_KEY_ENV_HELP)


def required_api_key(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """The key clients must send; ``parser.error`` (exit 2) when both flags are given or $VAR is
    unset."""
    if args.api_key_env is None:
        return args.api_key  # type: ignore[no-any-return]
    if args.api_key is not None:
        parser.error("give the key once: --api-key KEY or --api-key-env VAR")
    key = os.environ.get(args.api_key_env)
    if not key:
        parser.error(f"--api-key-env: ${args.api_key_env} is not set")
    return key


def seconds(text: str) -> float:
    """An argparse ``type``: a bound or delay in seconds, a finite number >= 0. ``float`` takes
    nan and inf, and both pass a ``< 0`` test (every comparison with nan is False): a nan or inf
    delay hung or crashed every stream instead of refusing to start."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds >= 0, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    value = seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _bytes(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of bytes >= 1, got {text!r}")
    return int(text)


def add_log_level(parser: argparse.ArgumentParser, *, what: str) -> None:
    """``--log-level``: ``what`` the level is of, e.g. "uvicorn log level"."""
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["critical", "error", "warning", "info", "debug"],
        help=f"{what} (default: warning)",
    )


def add_hardening_options(parser: argparse.ArgumentParser) -> None:
    """Timeouts, WebSocket flow control and shutdown (docs/limits.md): the same names and
    defaults on both servers."""
    from .flow import DEFAULT_CONNECTION_BYTES, DEFAULT_SEND_TIMEOUT, DEFAULT_SERVER_BYTES
    from .server import DEFAULT_DRAIN_TIMEOUT

    group = parser.add_argument_group("timeouts, flow control and shutdown (docs/limits.md)")
    group.add_argument(
        "--head-timeout", type=seconds, default=30.0, metavar="S",
        help="seconds from a request's first byte to the end of its head, or 408 and the "
        "connection closed; later bytes do not extend it; 0: none (default: 30)",
    )  # fmt: skip
    group.add_argument(
        "--body-timeout", type=seconds, default=30.0, metavar="S",
        help="seconds from the end of a request's head to the end of its body, or 408 and the "
        "connection closed (default: 30)",
    )  # fmt: skip
    group.add_argument(
        "--keep-alive-timeout", type=_positive_seconds, default=5.0, metavar="S",
        help="seconds an idle connection (a new one included) stays open (default: 5)",
    )  # fmt: skip
    group.add_argument(
        "--drain-timeout", type=seconds, default=DEFAULT_DRAIN_TIMEOUT, metavar="S",
        help="on SIGTERM or SIGINT, seconds from the signal to the exit: in-flight requests "
        "may finish until the last third (at most 3 s), then what is left is stopped with a "
        f"terminal event (default: {DEFAULT_DRAIN_TIMEOUT:g})",
    )  # fmt: skip
    group.add_argument(
        "--ws-connection-bytes", type=_bytes, default=DEFAULT_CONNECTION_BYTES, metavar="N",
        help="bytes of queued creates one WebSocket connection may hold before the server stops "
        f"reading it (default: {DEFAULT_CONNECTION_BYTES:,})",
    )  # fmt: skip
    group.add_argument(
        "--ws-server-bytes", type=_bytes, default=DEFAULT_SERVER_BYTES, metavar="N",
        help="the same, for all WebSocket connections together "
        f"(default: {DEFAULT_SERVER_BYTES:,})",
    )  # fmt: skip
    group.add_argument(
        "--ws-send-timeout", type=seconds, default=DEFAULT_SEND_TIMEOUT, metavar="S",
        help="seconds a WebSocket client may read nothing while events or pongs wait for it, "
        f"then it is closed (1008) (default: {DEFAULT_SEND_TIMEOUT:g})",
    )  # fmt: skip


def server_limits(args: argparse.Namespace, max_frame_bytes: int) -> ServerLimits:
    """The :class:`~reference_impl.server.ServerLimits` parsed flags describe."""
    from .server import ServerLimits

    return ServerLimits(
        head_timeout=args.head_timeout,
        body_timeout=args.body_timeout,
        keep_alive_timeout=args.keep_alive_timeout,
        drain_timeout=args.drain_timeout,
        ws_send_timeout=args.ws_send_timeout,
        max_frame_bytes=max_frame_bytes,
    )
