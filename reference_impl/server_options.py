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
import os
from typing import Any, NoReturn

__all__ = ["OneLineParser", "add_bind_options", "port_number", "required_api_key"]


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
