"""Secret redaction of whole exchanges: credential headers, query parameters, bodies, streams and
frames, in every form :mod:`cassettes.redaction` knows, also when a secret is split across the
chunks of a stream or across the deltas of its SSE events.

Headers named in :data:`SECRET_HEADERS` are always redacted (the credential scheme, ``Bearer``,
stays) and their values become secrets of the exchange, so that a server echoing the key in a
body, a stream or another header is caught too; so do query parameters in :data:`SECRET_PARAMS`.
"""

from __future__ import annotations

import bisect
import codecs
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from cassettes.model import Chunk, Exchange, Frame, Headers
from cassettes.redaction import REDACTED, Redactor

__all__ = [
    "SECRET_HEADERS",
    "SECRET_PARAMS",
    "header_secrets",
    "redact_exchange",
    "redact_headers",
    "redact_request",
    "splice",
]

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "openai-api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "x-auth-token",
        "x-amz-security-token",
        "x-openai-session-token",
    }
)
"""Header names (lower case) whose values never reach a cassette."""

SECRET_PARAMS = frozenset({"key", "api_key", "api-key", "apikey", "token", "access_token"})
"""Query parameter names whose values never reach a cassette."""

_MIN_LEARNED = 8
_SCHEME = re.compile(r"^(Bearer|Basic|Token|Digest)\s+", re.IGNORECASE)
_EVENT_END = re.compile(r"\r\n\r\n|\n\n|\r\r")


def header_secrets(name: str, value: str) -> list[str]:
    """The secrets a credential header carries: the whole value, the part after the scheme,
    each cookie's value, a Basic credential's decoded password."""
    found = [value.strip()]
    scheme = _SCHEME.match(value)
    if scheme:
        token = value[scheme.end() :].strip()
        found.append(token)
        if scheme.group(1).lower() == "basic":
            try:
                import base64

                user, _, password = base64.b64decode(token, validate=True).decode().partition(":")
                found += [f"{user}:{password}", password]
            except ValueError:
                pass
    if name in {"cookie", "set-cookie"}:
        for part in value.split(";"):
            cookie_name, eq, cookie_value = part.strip().partition("=")
            if eq and cookie_name.lower() not in {"path", "domain", "expires", "max-age"}:
                found.append(cookie_value.strip().strip('"'))
    # A short value (a cookie `theme=dark`) is redacted in its header but not hunted in bodies,
    # where it would be ordinary text.
    # An already redacted value is no secret (reading back what the writer wrote).
    return [s for s in found if len(s) >= _MIN_LEARNED and REDACTED not in s]


def redact_headers(headers: Headers, redactor: Redactor) -> Headers:
    """Credential headers as ``[REDACTED]`` (``Bearer [REDACTED]``); others through the
    redactor (a secret echoed in an ordinary header)."""
    out: Headers = []
    for name, value in headers:
        if name.lower() in SECRET_HEADERS:
            scheme = _SCHEME.match(value)
            if name.lower() == "set-cookie" or name.lower() == "cookie":
                value = "; ".join(_redact_cookie(p) for p in value.split(";"))
            else:
                value = (scheme.group(0) if scheme else "") + REDACTED
        else:
            value = redactor.text(value)
        out.append((name, value))
    return out


def _redact_cookie(part: str) -> str:
    name, eq, _ = part.strip().partition("=")
    if eq and name.lower() not in {"path", "domain", "expires", "max-age", "samesite"}:
        return f"{name}={REDACTED}"
    return part.strip()


def learn(redactor: Redactor, exchange: Exchange, extra: Iterable[str | None] = ()) -> None:
    """Add the secrets the exchange's own credential headers and query carry."""
    for secret in extra:
        redactor.add(secret)
    for name, value in (*exchange.request_headers, *exchange.response_headers):
        if name.lower() in SECRET_HEADERS:
            # A cookie's value is hunted in its forms, not in 8-character pieces: Cloudflare's
            # embed timestamps, whose digit runs would cut ordinary numbers out of bodies.
            cookie = name.lower() in {"cookie", "set-cookie"}
            for secret in header_secrets(name.lower(), value):
                redactor.add(secret, pieces=not cookie)
    for name, value in parse_qsl(exchange.query, keep_blank_values=True):
        if name.lower() in SECRET_PARAMS and value:
            redactor.add(value)
            redactor.add(unquote_plus(value))


def redact_request(exchange: Exchange, redactor: Redactor) -> Exchange:
    """The exchange's request and response head with every secret gone (``redactor`` learns the
    exchange's own first): what a recorder writes before the body streams
    (:mod:`cassettes.streaming` does the rest)."""
    learn(redactor, exchange)
    exchange.target = _redact_target(exchange.target, redactor)
    exchange.request_headers = redact_headers(exchange.request_headers, redactor)
    exchange.response_headers = redact_headers(exchange.response_headers, redactor)
    if redactor.active:
        exchange.request_body = _redact_body(exchange.request_body, redactor)
    return exchange


def redact_exchange(exchange: Exchange, redactor: Redactor) -> Exchange:
    """The exchange with every secret gone (``redactor`` learns the exchange's own first)."""
    redact_request(exchange, redactor)
    if not redactor.active:
        return exchange
    exchange.outcome = redactor.text(exchange.outcome)
    if exchange.chunks:
        texts = _redact_texts([c.data for c in exchange.chunks], redactor)
        if texts is not None:
            exchange.chunks = [Chunk(c.t, t) for c, t in zip(exchange.chunks, texts, strict=True)]
    if exchange.frames:
        exchange.frames = _redact_frames(exchange.frames, redactor)
    return exchange


def _redact_target(target: str, redactor: Redactor) -> str:
    path, mark, query = target.partition("?")
    if query:
        parts = []
        for part in query.split("&"):
            name, eq, _ = part.partition("=")
            parts.append(f"{name}={REDACTED}" if eq and name.lower() in SECRET_PARAMS else part)
        query = "&".join(parts)
    return redactor.text(path + mark + query)


def _redact_body(body: bytes, redactor: Redactor) -> bytes:
    texts = _redact_texts([body], redactor)
    return texts[0] if texts is not None else body


def _redact_texts(pieces: list[bytes], redactor: Redactor) -> list[bytes] | None:
    """``pieces`` (chunks of one byte stream) redacted: SSE events or a JSON body whose strings
    share a secret across deltas first (the changed ones re-serialized), then every form in the
    joined text; None when nothing changed (the bytes stay exactly as they came)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    texts = [decoder.decode(p) for p in pieces]
    texts[-1] += decoder.decode(b"", final=True)
    joined = "".join(texts)
    edits = _json_edits(joined, redactor)
    if edits:
        texts = splice(texts, edits)
        joined = "".join(texts)
    spans = redactor.spans(joined)
    if spans:
        texts = splice(texts, [(a, b, REDACTED) for a, b in spans])
    if not edits and not spans:
        return None
    return [t.encode("utf-8", errors="surrogateescape") for t in texts]


def event_ends(text: str) -> list[int]:
    """Where each blank line that ends an SSE event begins in ``text`` (``\n\n``, ``\r\n\r\n``
    or ``\r\r``, as :data:`_EVENT_END` finds them; without a ``\r``, by plain search: the
    recorder calls this on every window of a stream)."""
    if "\r" in text:
        return [m.start() for m in _EVENT_END.finditer(text)]
    out = []
    pos = text.find("\n\n")
    while pos >= 0:
        out.append(pos)
        pos = text.find("\n\n", pos + 2)
    return out


def _json_edits(text: str, redactor: Redactor) -> list[tuple[int, int, str]]:
    """Replacements of the JSON values in ``text`` (a JSON document, or the ``data:`` of each SSE
    event) whose strings hide a secret only when read together (split across deltas)."""
    stripped = text.strip()
    if stripped[:1] in "{[" and stripped:
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None
        if whole is not None:
            redacted = redactor.value(whole)
            return [] if redacted == whole else [(0, len(text), _dumps(redacted))]
    spans: list[tuple[int, int]] = []
    values: list[Any] = []
    pos = 0
    for end in [*event_ends(text), len(text)]:
        block = text[pos:end]
        for line in re.finditer(r"^data: ?(.*)$", block, re.MULTILINE):
            data = line.group(1).rstrip("\r")
            if data[:1] in "{[":
                try:
                    values.append(json.loads(data))
                except ValueError:
                    continue
                begin = pos + line.start(1)
                spans.append((begin, begin + len(data)))
        pos = end
    if not values:
        return []
    redacted = redactor.value(values)
    return [
        (a, b, _dumps(new))
        for (a, b), old, new in zip(spans, values, redacted, strict=True)
        if new != old
    ]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _redact_frames(frames: list[Frame], redactor: Redactor) -> list[Frame]:
    """Each frame through the redactor; JSON frames also together (a secret split across the
    deltas of several frames), the changed ones re-serialized."""
    values: list[Any] = []
    for frame in frames:
        try:
            values.append(json.loads(frame.data) if frame.opcode == "text" else None)
        except ValueError:
            values.append(None)
    redacted = redactor.value(values)
    out = []
    for frame, old, new in zip(frames, values, redacted, strict=True):
        data = frame.data
        if old is not None and new != old:
            data = _dumps(new).encode()
        texts = _redact_texts([data], redactor)
        out.append(Frame(frame.t, frame.sender, texts[0] if texts else data, frame.opcode))
    return out


def splice(texts: list[str], edits: list[tuple[int, int, str]]) -> list[str]:
    """``texts`` (pieces of one text) with ``edits`` (``(begin, end, replacement)`` over their
    concatenation, sorted, possibly overlapping) applied: each replacement goes to the piece its
    edit begins in, the rest of every piece keeps its place."""
    joined = "".join(texts)
    bounds: list[int] = []
    offset = 0
    for text in texts:
        bounds.append(offset)
        offset += len(text)
    out: list[list[str]] = [[] for _ in texts]

    def owner(pos: int) -> int:
        return max(0, min(bisect.bisect_right(bounds, pos) - 1, len(texts) - 1))

    def copy(lo: int, hi: int) -> None:
        while lo < hi:
            i = owner(lo)
            stop = min(hi, bounds[i + 1]) if i < len(texts) - 1 else hi
            out[i].append(joined[lo:stop])
            lo = stop

    merged: list[tuple[int, int, str]] = []
    for begin, end, replacement in sorted(edits):
        if merged and begin < merged[-1][1]:  # overlapping: the first replacement covers both
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]), merged[-1][2])
        else:
            merged.append((begin, end, replacement))
    pos = 0
    for begin, end, replacement in merged:
        copy(pos, begin)
        out[owner(begin)].append(replacement)
        pos = end
    copy(pos, len(joined))
    return ["".join(parts) for parts in out]
