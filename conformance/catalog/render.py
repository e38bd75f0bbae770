"""How the judge renders a value in a report: one module, one truncation rule.

- :func:`short` — a value as a violation's ``expected`` / ``actual`` shows it: a string as it
  is, anything else by ``repr``, a value nested too deeply to ``repr`` as ``[…]`` / ``{…}``;
- :func:`short_json` — the same for schema issues, which speak JSON: the value's JSON text
  (``null``, ``true``, ``"a"``), and :func:`short` for what JSON cannot write;
- :func:`truncate` — at most ``limit`` characters, the last one ``…`` when cut; every report
  string of the judge is cut by it;
- :func:`printable` — text as a UTF-8 stream can take it: a lone surrogate written as its escape.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["printable", "short", "short_json", "truncate"]


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ``…`` last when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def short(value: Any, limit: int = 120) -> str:
    """A value for a report: a string as it is, anything else by ``repr``, then truncated."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except RecursionError:
        text = "[…]" if isinstance(value, list) else "{…}"  # nested too deeply to show
    return truncate(text, limit)


def short_json(value: Any, limit: int = 80) -> str:
    """A value for a schema issue: its JSON text, then truncated."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # not JSON, or nested deeper than orjson writes (255 levels)
        try:
            text = repr(value)
        except RecursionError:
            text = "[…]" if isinstance(value, list) else "{…}"
    return truncate(text, limit)


def printable(text: str) -> str:
    """``text`` as a UTF-8 stream (standard output) can take it: a lone surrogate, which JSON's
    ``"\\ud800"`` reads as and UTF-8 cannot encode (UnicodeEncodeError), becomes its escape
    ``\\ud800``; in JSON text that escape is the same string again. Other text is unchanged."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
