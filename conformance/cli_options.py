"""The flags the client CLIs of the family share (docs/cli.md): one meaning, one help text, one
parser each. ``responses-conformance`` (run, check, report, list, explain, proxy) and
``responses-bench`` use them; the servers (``responses-mock``, ``responses-reference``) take theirs
from :mod:`reference_impl.server_options` (the judge and the judged share no code), and
tests/cli/test_cli_family_help.py checks that both spell and describe the shared flags the same.

- ``--base-url URL`` (the target): a base URL as the OpenAI SDK's ``base_url``; one with no path
  gets ``/v1`` appended, a trailing ``/responses`` is dropped, and the URL used is said.
- ``--api-key-env VAR``: the environment variable holding the key (never the key itself).
- ``--timeout`` is a whole-request deadline (the stream included); ``--read-timeout`` the longest
  silence (connecting, or waiting for the next bytes).
- ``--format text|json``; ``-`` for standard input where files are read.
- ``--base-url``, ``--model``, ``--name``, ``--api-key-env``: the target of the commands that
  drive a server (``run``, ``clients``); ``--report-dir`` where they write their reports.
"""

from __future__ import annotations

import argparse
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .errors import ConformanceError

__all__ = [
    "API_KEY_ENV_HELP",
    "BASE_URL_HELP",
    "FORMAT_HELP",
    "READ_TIMEOUT_HELP",
    "TIMEOUT_HELP",
    "BaseURLError",
    "add_format",
    "add_report_dir",
    "add_target",
    "base_url",
    "comma_list",
    "event_number",
    "port_number",
    "seconds",
]

BASE_URL_HELP = (
    "the server's base URL, as the OpenAI SDK's base_url, with or without /v1 "
    "(http://HOST:PORT gets /v1 appended; the URL used is printed)"
)
API_KEY_ENV_HELP = (
    "the environment variable holding the API key, sent as 'Authorization: Bearer' "
    "(default OPENAI_API_KEY; unset: no key sent)"
)
TIMEOUT_HELP = "deadline of each whole request, stream included"
READ_TIMEOUT_HELP = "the longest silence: the wait to connect, or for the next bytes"
FORMAT_HELP = "text for people, json for programs (default: text)"


class BaseURLError(ConformanceError, ValueError):
    """Not a usable base URL (one line, exit 2)."""


def base_url(given: str, *, flag: str = "--base-url") -> tuple[str, str | None]:
    """The base URL to use for ``given`` and, when it differs, a note saying so.

    ``http://h:8000`` → ``http://h:8000/v1`` (an origin alone: the API lives under /v1);
    ``…/v1/`` → ``…/v1``; ``…/v1/responses`` → ``…/v1``; the endpoint of a server at the root,
    ``http://h:8000/responses`` → ``http://h:8000``; any other path is kept as given (some
    servers serve the API elsewhere, e.g. ``/openai/v1beta``), as the SDK would.
    """
    text = given.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BaseURLError(f"{flag} {given!r} is not an http(s) URL (http://HOST[:PORT][/v1])")
    try:
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        raise BaseURLError(f"{flag} {given!r} has a bad port") from None
    if parts.query or parts.fragment:
        raise BaseURLError(f"{flag} {given!r}: a base URL has no query or fragment")
    path = parts.path.rstrip("/")
    if path.endswith("/responses"):
        # The endpoint itself: its base is taken as given, the root included (a server that
        # serves POST /responses at the root, as open-responses-server does, is named this way).
        path = path[: -len("/responses")]
    elif not path:
        path = "/v1"
    used = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    if used == text or used == text.rstrip("/"):
        return used, None
    return used, f"{flag} {_shown(text)}: using {_shown(used)}"


def _shown(url: str) -> str:
    """``url`` without a user:password part (the note reaches the console)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def event_number(text: str) -> int:
    """An argparse ``type``: a stream's event (sequence) number, 0 or more, as ``starting_after``
    takes it."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"expected an event number 0 or more, got {text!r}")
    return int(text)


def port_number(text: str) -> int:
    """An argparse ``type``: a TCP port to bind, 0-65535 (0: any free one). The socket layer
    takes a larger number modulo 65536, so ``--port 70000`` would bind 4464 without a word."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0-65535 (0: any free one), got {text!r}")
    return int(text)


def seconds(text: str) -> float:
    """An argparse ``type``: a positive duration; a bare number is seconds, ``ms``/``s``/``m``
    units too (``500ms``, ``30s``, ``2m``), as in ``responses-bench``."""
    value = text.strip().lower()
    scale = 1.0
    for unit, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if value.endswith(unit):
            value, scale = value[: -len(unit)], factor
            break
    try:
        number = float(value) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a duration (a number of seconds, or 500ms, 30s, 2m)"
        ) from None
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r}: a duration must be positive")
    return number


def add_format(parser: Any) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text", help=FORMAT_HELP)


def add_target(parser: Any) -> None:
    """The flags that name a target: ``--base-url``, ``--model``, ``--name``, ``--api-key-env``."""
    parser.add_argument("--base-url", metavar="URL", help=BASE_URL_HELP)
    parser.add_argument(
        "--model", metavar="NAME", help="the model to ask (required with --base-url)"
    )
    parser.add_argument("--name", metavar="NAME", help="the target's name in reports")
    parser.add_argument("--api-key-env", metavar="VAR", default=None, help=API_KEY_ENV_HELP)


def add_report_dir(parser: Any) -> None:
    parser.add_argument(
        "--report-dir", metavar="DIR", help="write index.json, junit.xml, report.html"
    )


def comma_list(values: list[str] | None) -> list[str]:
    """A repeatable ``--flag A,B`` flag's values, one name each (``["a,b", "c"]`` → a, b, c)."""
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]
