"""Importing VCR cassettes (vcrpy) as exchanges (docs/cassettes.md, "Importing VCR cassettes").

Variants read:

- vcrpy >= 1 (``version: 1``, an ``interactions`` list of ``{request, response}``; ``uri``,
  headers as name -> list of values, ``response.status`` as ``{code, message}``);
- vcrpy < 1 (a bare list of interactions; ``protocol`` / ``host`` / ``port`` / ``path`` instead
  of ``uri``; headers as name -> value);
- bodies as a string, as ``!!binary`` (base64 bytes), as ``{string: ...}`` (vcrpy's response
  form), ``null``; pydantic-ai's ``parsed_body`` (the JSON value itself, written compact);
- compressed bodies (``content-encoding: gzip`` or ``deflate``, kept compressed when vcrpy's
  ``decode_compressed_response`` was off) are decompressed, the header dropped;
- the JSON serializer of vcrpy (the same structure as JSON) as well as YAML; Python-2-era tags
  (``!!python/unicode``, ``!!python/str``) read as strings.

VCR keeps no timings: every time is 0, and an SSE body becomes one chunk per event (so a replay
can pace them and a diff shows events). ``content-length`` and ``transfer-encoding`` of the
response are dropped (the body is re-framed when replayed). Credential headers are redacted as the
writer does (:mod:`cassettes.secrets`).
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any
from urllib.parse import urlsplit

from cassettes.codec import CassetteError
from cassettes.model import Chunk, Exchange, Headers
from cassettes.redaction import Redactor
from cassettes.secrets import learn, redact_exchange

__all__ = ["import_vcr", "sse_events"]

_DROP_RESPONSE = frozenset({"content-length", "transfer-encoding", "content-encoding"})

MAX_DECODED_BYTES = 64 * 1024 * 1024
"""A compressed body that decompresses to more is refused (a "zip bomb": 64 KiB of deflate can
hold 64 MiB), not decompressed into memory."""

MAX_EXPANDED = 64 * 1024 * 1024
"""What a YAML cassette may expand to beyond 4 x its text (string characters + 1 per node, each
alias counted where it is used): a few aliases (PyYAML's dumper writes one for an object dumped
twice) are read, a "billion laughs" (aliases of aliases of lists) is refused."""
_EVENT = re.compile(rb".*?(?:\r\n\r\n|\n\n|\r\r)", re.DOTALL)


def _loader() -> Any:
    try:
        import yaml
    except ImportError as error:  # pragma: no cover - pyyaml is a dependency
        raise CassetteError("reading VCR cassettes needs pyyaml") from error

    # libyaml's parser where PyYAML was built with it (12.5x faster on cassettes), the same
    # safe constructors either way.
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # type: ignore[valid-type,misc]
        pass

    def as_str(loader: Any, node: Any) -> str:
        return str(loader.construct_scalar(node))

    for tag in ("tag:yaml.org,2002:python/unicode", "tag:yaml.org,2002:python/str"):
        Loader.add_constructor(tag, as_str)
    return yaml, Loader


def import_vcr(text: str, *, source: str = "<vcr>", first_seq: int = 1) -> list[Exchange]:
    """The interactions of a vcrpy cassette (YAML or JSON text) as exchanges, in their order."""
    data: Any
    if text.lstrip()[:1] in "{[" and text.strip():
        try:
            data = json.loads(text)
        except RecursionError as error:
            raise CassetteError(f"{source}: not a VCR cassette (nested too deeply)") from error
        except ValueError:
            data = None
    else:
        data = None
    if data is None:
        yaml, loader = _loader()
        try:
            data = yaml.load(text, Loader=loader)  # a SafeLoader subclass
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f":{mark.line + 1}" if mark is not None else ""
            problem = getattr(error, "problem", None) or type(error).__name__
            if "maximum nesting depth" in problem:  # libyaml's bound: the pure loader recurses
                raise CassetteError(f"{source}: not a VCR cassette (nested too deeply)") from error
            raise CassetteError(f"{source}{where}: not a VCR cassette ({problem})") from error
        except RecursionError as error:
            raise CassetteError(f"{source}: not a VCR cassette (nested too deeply)") from error
        except (ValueError, TypeError, OverflowError) as error:
            # a constructor refusing a scalar (`!!timestamp 2001-13-99`, `!!float x`)
            why = " ".join(str(error).split()) or type(error).__name__
            raise CassetteError(f"{source}: not a VCR cassette ({why})") from error
        # PyYAML builds an alias as a reference to its anchor's value, so the load is cheap; what
        # reads the values afterwards (a body's JSON, the headers) walks every reference.
        budget = MAX_EXPANDED + 4 * len(text)
        if not _expands_within(data, budget):
            raise CassetteError(
                f"{source}: not a VCR cassette (its aliases expand past {budget:,} characters, "
                "or refer to themselves)"
            )
    if isinstance(data, dict) and isinstance(data.get("interactions"), list):
        interactions = data["interactions"]
    elif isinstance(data, list):
        interactions = data  # vcrpy < 1
    else:
        raise CassetteError(f"{source}: not a VCR cassette (no 'interactions' list)")
    exchanges = []
    for index, interaction in enumerate(interactions):
        where = f"{source}#{index + 1}"
        if not isinstance(interaction, dict):
            raise CassetteError(f"{where}: an interaction must be a mapping")
        exchanges.append(_exchange(interaction, first_seq + index, where))
    # Every credential of the cassette is learnt first, then hunted in every exchange.
    redactor = Redactor()
    for exchange in exchanges:
        learn(redactor, exchange)
    return [redact_exchange(exchange, redactor) for exchange in exchanges]


def _exchange(interaction: dict[str, Any], seq: int, where: str) -> Exchange:
    request = interaction.get("request")
    response = interaction.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        raise CassetteError(f"{where}: an interaction needs a 'request' and a 'response'")
    method = request.get("method")
    if not isinstance(method, str) or not method:
        raise CassetteError(f"{where}: the request has no method")
    target = _target(request, where)
    request_headers = _headers(request.get("headers"), where)
    request_body = _body(request, where)
    status = response.get("status")
    code = status.get("code") if isinstance(status, dict) else status
    if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code < 600:
        raise CassetteError(f"{where}: the response has no status code")
    response_headers = _headers(response.get("headers"), where)
    body = _body(response, where)
    encoding = next((v for k, v in response_headers if k == "content-encoding"), "")
    body = _decompress(body, encoding.lower().strip(), where)
    exchange = Exchange(
        seq=seq,
        method=method.upper(),
        target=target,
        request_headers=request_headers,
        request_body=request_body,
        status=code,
        response_headers=[(k, v) for k, v in response_headers if k not in _DROP_RESPONSE],
        source=where,
    )
    exchange.chunks = [Chunk(0.0, piece) for piece in sse_events(body)] if exchange.is_sse else []
    if not exchange.is_sse and body:
        exchange.chunks = [Chunk(0.0, body)]
    return exchange


def sse_events(body: bytes) -> list[bytes]:
    """``body`` cut after each blank line (each event with its terminator); a tail without one
    is the last piece."""
    pieces = [m.group(0) for m in _EVENT.finditer(body)]
    rest = body[sum(len(p) for p in pieces) :]
    return [*pieces, rest] if rest else pieces


def _target(request: dict[str, Any], where: str) -> str:
    uri = request.get("uri")
    if isinstance(uri, str) and uri:
        parts = urlsplit(uri)
        path = parts.path or "/"
        return path + (f"?{parts.query}" if parts.query else "")
    old = request.get("path")  # vcrpy < 1
    if isinstance(old, str) and old:
        return old if old.startswith("/") else "/" + old
    raise CassetteError(f"{where}: the request has no 'uri'")


def _headers(value: Any, where: str) -> Headers:
    if value is None:
        return []
    if not isinstance(value, dict):
        raise CassetteError(f"{where}: headers must be a mapping")
    out: Headers = []
    for name, values in value.items():
        for item in values if isinstance(values, list) else [values]:
            if isinstance(item, dict | list) or isinstance(name, dict | list | tuple):
                raise CassetteError(f"{where}: headers must map names to values or value lists")
            out.append((str(name).lower(), "" if item is None else str(item)))
    return out


def _body(part: dict[str, Any], where: str) -> bytes:
    if "parsed_body" in part:  # pydantic-ai's serializer: the JSON value itself
        return json.dumps(part["parsed_body"], ensure_ascii=False, separators=(",", ":")).encode()
    body = part.get("body")
    if isinstance(body, dict):  # vcrpy's response form (also requests, in some versions)
        body = body.get("string")
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8", errors="surrogateescape")
    raise CassetteError(f"{where}: a body must be a string, bytes or {{string: ...}}")


def _expands_within(root: Any, budget: int) -> bool:
    """Whether ``root`` (a loaded YAML document) expands to at most ``budget``: every string's
    characters and 1 per value, a value reached by several aliases counted each time. Each
    container is sized once (memoized by identity), so a bomb is measured, not walked; a
    container that holds itself (``&a [*a]``) expands without end."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_sized = stack.pop()
        if not isinstance(node, _CONTAINERS):
            continue
        key = id(node)
        children = _children(node)
        if children_sized:
            active.discard(key)
            total = 1 + sum(
                sizes[id(c)] if isinstance(c, _CONTAINERS) else _scalar(c) for c in children
            )
            if total > budget:
                return False
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in active:
            return False
        active.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if isinstance(c, _CONTAINERS))
    return True


_CONTAINERS = (list, tuple, set, frozenset, dict)


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    return list(node)


def _scalar(value: Any) -> int:
    return 1 + len(value) if isinstance(value, str | bytes) else 1


def _decompress(body: bytes, encoding: str, where: str) -> bytes:
    if not body or encoding in ("", "identity"):
        return body
    try:
        if encoding in ("gzip", "x-gzip"):
            return _inflate(body, 16 + zlib.MAX_WBITS, where)
        if encoding == "deflate":
            try:
                return _inflate(body, zlib.MAX_WBITS, where)
            except zlib.error:
                return _inflate(body, -zlib.MAX_WBITS, where)
    except (EOFError, zlib.error):
        # vcrpy with decode_compressed_response=True keeps the header but stores plain text
        return body
    if encoding in ("br", "zstd"):
        if body[:1] in (b"{", b"[", b"e", b"d", b":"):
            return body  # already decoded by the recorder
        raise CassetteError(f"{where}: {encoding}-compressed bodies are not supported")
    return body


def _inflate(body: bytes, wbits: int, where: str) -> bytes:
    """``body`` decompressed (every gzip member, as ``gzip.decompress`` reads them), at most
    :data:`MAX_DECODED_BYTES`: past it, :class:`CassetteError`."""
    limit = MAX_DECODED_BYTES
    out = bytearray()
    data = body
    while True:
        state = zlib.decompressobj(wbits)
        out += state.decompress(data, limit + 1 - len(out))
        if len(out) > limit:
            raise CassetteError(f"{where}: the body decompresses past {limit:,} bytes")
        if not state.eof:
            raise EOFError("the compressed body ends before its end-of-stream marker")
        data = state.unused_data.lstrip(b"\x00")  # gzip members may be padded with zeros
        if wbits != 16 + zlib.MAX_WBITS or not data:
            return bytes(out)
