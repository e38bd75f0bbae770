"""The nesting bound on every JSON document the servers read, checked before it is parsed.

One value, :data:`MAX_JSON_DEPTH`, for HTTP bodies (every endpoint), WebSocket frames, the mock's
agent scripts and cassettes (docs/limits.md). Why a bound at all: ``orjson`` parses up to 1,024
levels but serializes only 254, so a body 255 levels deep parsed fine and then broke the first
``orjson.dumps`` that met it (an id hash, an event, the store) with a 500; Python's own recursive
walkers (``jsonschema``'s metaschema check, ``json.loads``) stop at its recursion limit of 1,000
frames, several frames per level. Why 64: the deepest document in the recorded corpus
(/work/shared/corpus, tests/data/openai-recorded) nests 11 levels, so 64 leaves real clients a
wide margin, and everything the servers wrap around a client's JSON (event, response, store record,
cassette line) stays far below ``orjson``'s 254, and a walker using up to 10 frames a level below
Python's 1,000.

The check is lexical and linear: strings are cut out with one regular expression (an unterminated
string runs to the end, so no input makes it quadratic), every byte but brackets is dropped, and
the running depth of what is left is summed in C. A document with no more opening brackets than
the limit is passed without the sum.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate
from typing import Any

import orjson

from .errors import APIError, invalid_request

__all__ = [
    "MAX_JSON_DEPTH",
    "JSONTooDeep",
    "check_depth",
    "json_depth",
    "loads_bounded",
    "too_deep_error",
]

MAX_JSON_DEPTH = 64
"""Arrays and objects nested in one another: ``[]`` is 1 level, ``{"a": [1]}`` 2."""

# A JSON string, or an unterminated one up to the end of the text.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*\\?(?:"|\Z)', re.S)
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_SIGNS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class JSONTooDeep(ValueError):
    """A JSON document nested past :data:`MAX_JSON_DEPTH`; the message names the limit."""

    def __init__(self, what: str = "The JSON", limit: int = MAX_JSON_DEPTH) -> None:
        super().__init__(
            f"{what} nests arrays and objects more than {limit} levels deep: the limit is {limit}."
        )
        self.limit = limit


def json_depth(data: bytes | str, limit: int | None = None) -> int:
    """How deep ``data``'s brackets nest outside strings. With ``limit``, any value at most
    ``limit`` may come back as a lower bound when the document is obviously within it."""
    raw = data.encode() if isinstance(data, str) else data
    if b'"' in raw:
        raw = _STRING.sub(b"", raw)
    brackets = raw.translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    if limit is not None and brackets.count(b"[") + brackets.count(b"{") <= limit:
        return 0
    return max(0, max(accumulate(array("b", brackets.translate(_SIGNS)))))


def check_depth(data: bytes | str, what: str = "The JSON", limit: int = MAX_JSON_DEPTH) -> None:
    """:class:`JSONTooDeep` when ``data`` nests past ``limit``."""
    if json_depth(data, limit) > limit:
        raise JSONTooDeep(what, limit)


def loads_bounded(data: bytes | str, what: str = "The JSON", limit: int = MAX_JSON_DEPTH) -> Any:
    """``orjson.loads`` of a document within ``limit``: :class:`JSONTooDeep` past it (before any
    parsing), ``orjson.JSONDecodeError`` (a ``ValueError``) when it is not JSON."""
    check_depth(data, what, limit)
    return orjson.loads(data)


def too_deep_error(error: JSONTooDeep) -> APIError:
    """The 400 a server answers a too-deep document with (its wording provisional: no recording of
    OpenAI's answer to one exists; docs/limits.md)."""
    return invalid_request(str(error), None, "json_too_deep")
