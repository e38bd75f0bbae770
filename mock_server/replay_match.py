"""Which recorded exchange answers a request (sans-I/O; docs/cassettes.md, "Replay").

The key of a request is ``(method, path, query, body)``, each part configurable:

- ``method``: upper-cased;
- ``path``: exact (``/v1/responses/resp_1``: the ids the recording returned are the ids the client
  sends back, so a ``previous_response_id`` chain, a retrieve, a cancel, a poll or a resumed stream
  finds the exchange recorded for it);
- ``query``: the parameters as a sorted multiset, the ignored ones left out;
- ``body``: a JSON body as its value (key order and spacing do not matter) with the ignored fields
  left out (dotted paths, ``*`` for any key or index: ``metadata.trace_id``, ``input.*.id``); any
  other body as its bytes.

Requests with the same key are answered by their recordings in recorded order (each served once);
once all are used, a GET is answered by the last one again (a client polling a background
response more often than when it was recorded sees its final state), any other method is
unmatched. An unmatched request is told the closest recording and what differed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from cassettes import Exchange
from reference_impl.json_limits import check_depth

__all__ = [
    "DEFAULT_IGNORE",
    "KEY_PARTS",
    "Matcher",
    "Miss",
    "RequestKey",
    "request_key",
]

KEY_PARTS = ("method", "path", "query", "body")
DEFAULT_IGNORE = ("prompt_cache_key", "safety_identifier", "user")
"""Body fields that vary between runs of the same application (a per-session cache key, a user
or safety id), ignored by default; ``--replay-ignore`` adds others."""
_ABSENT = object()


@dataclass(frozen=True, slots=True)
class RequestKey:
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    body: Any
    """The body's JSON value with ignored fields removed, or its bytes."""

    def parts(self, which: Iterable[str]) -> tuple[Any, ...]:
        return tuple(
            _canonical(getattr(self, p)) if p == "body" else getattr(self, p) for p in which
        )


def _canonical(value: Any) -> Any:
    if isinstance(value, bytes):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _drop(value: Any, path: list[str]) -> Any:
    if not path:
        return _ABSENT
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if head in ("*", key):
                kept = _drop(item, rest)
                if kept is _ABSENT:
                    continue
                out[key] = kept
            else:
                out[key] = item
        return out
    if isinstance(value, list) and (head == "*" or head.isdigit()):
        out_list = []
        for index, item in enumerate(value):
            if head in ("*", str(index)):
                kept = _drop(item, rest)
                if kept is _ABSENT:
                    continue
                out_list.append(kept)
            else:
                out_list.append(item)
        return out_list
    return value


def request_key(
    method: str, path: str, query: str, body: bytes, ignore: Sequence[str] = DEFAULT_IGNORE
) -> RequestKey:
    params = tuple(
        sorted((k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k not in ignore)
    )
    value: Any = body
    if body.strip():
        try:
            check_depth(body)  # past the limit compared as bytes (json.loads would recurse)
            value = json.loads(body)
        except ValueError:
            value = body
    else:
        value = None
    if not isinstance(value, bytes):
        for field in ignore:
            value = _drop(value, field.split("."))
            if value is _ABSENT:
                value = None
    return RequestKey(method.upper(), path, params, value)


def exchange_key(exchange: Exchange, ignore: Sequence[str] = DEFAULT_IGNORE) -> RequestKey:
    return request_key(
        exchange.method, exchange.path, exchange.query, exchange.request_body, ignore
    )


@dataclass(frozen=True, slots=True)
class Miss:
    """No recording answers the request: the closest one (None when the cassette is empty) and
    the differences, one short line each."""

    closest: Exchange | None
    differences: list[str]

    def message(self, method: str, target: str) -> str:
        text = f"No recorded exchange matches {method} {target}."
        if self.closest is None:
            return text + " The cassette holds no HTTP exchanges."
        where = self.closest.source.rsplit("/", 1)[-1]
        return (
            f"{text} Closest recording: {self.closest.label} ({where}); differs in "
            + "; ".join(self.differences)
            + "."
        )


def _short(value: Any) -> str:
    if value is _ABSENT:
        return "absent"
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _diff(recorded: Any, got: Any, path: str, out: list[str], limit: int = 3) -> None:
    if len(out) >= limit or recorded == got:
        return
    if isinstance(recorded, dict) and isinstance(got, dict):
        for key in [*recorded, *(k for k in got if k not in recorded)]:
            _diff(recorded.get(key, _ABSENT), got.get(key, _ABSENT), f"{path}.{key}", out, limit)
        return
    if isinstance(recorded, list) and isinstance(got, list) and len(recorded) == len(got):
        for index, (a, b) in enumerate(zip(recorded, got, strict=True)):
            _diff(a, b, f"{path}[{index}]", out, limit)
        return
    out.append(f"{path}: recorded {_short(recorded)}, got {_short(got)}")


def differences(recorded: RequestKey, got: RequestKey, parts: Sequence[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        a, b = getattr(recorded, part), getattr(got, part)
        if part == "body":
            _diff(a, b, "body", out)
        elif a != b:
            out.append(f"{part}: recorded {_short(_fmt(a))}, got {_short(_fmt(b))}")
    return out


def _fmt(value: Any) -> Any:
    if isinstance(value, tuple):
        return "&".join(f"{k}={v}" for k, v in value) or "(none)"
    return value


class Matcher:
    """The cursor over a cassette's HTTP exchanges (thread-safe)."""

    def __init__(
        self,
        exchanges: Sequence[Exchange],
        *,
        parts: Sequence[str] = KEY_PARTS,
        ignore: Sequence[str] = DEFAULT_IGNORE,
    ) -> None:
        unknown = [p for p in parts if p not in KEY_PARTS]
        if unknown or not parts:
            raise ValueError(f"unknown match key part {unknown!r}: use {', '.join(KEY_PARTS)}")
        self.parts = tuple(parts)
        self.ignore = tuple(ignore)
        self.exchanges = [e for e in exchanges if not e.websocket]
        self.keys = [exchange_key(e, self.ignore) for e in self.exchanges]
        self._queues: dict[tuple[Any, ...], list[int]] = {}
        for index, key in enumerate(self.keys):
            self._queues.setdefault(key.parts(self.parts), []).append(index)
        self._used: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()

    def rewind(self) -> None:
        with self._lock:
            self._used.clear()

    def match(self, method: str, path: str, query: str, body: bytes) -> Exchange | Miss:
        key = request_key(method, path, query, body, self.ignore)
        wanted = key.parts(self.parts)
        with self._lock:
            queue = self._queues.get(wanted)
            if queue:
                used = self._used.get(wanted, 0)
                if used < len(queue):
                    self._used[wanted] = used + 1
                    return self.exchanges[queue[used]]
                if key.method == "GET":
                    return self.exchanges[queue[-1]]
        return self._miss(key, exhausted=bool(queue))

    def _miss(self, key: RequestKey, *, exhausted: bool) -> Miss:
        if not self.exchanges:
            return Miss(None, [])
        if exhausted:
            wanted = key.parts(self.parts)
            last = self.exchanges[self._queues[wanted][-1]]
            count = len(self._queues[wanted])
            return Miss(last, [f"all {count} recording(s) of this request were already served"])

        def score(index: int) -> tuple[int, int, int]:
            other = self.keys[index]
            diff = differences(other, key, self.parts)
            return (
                0 if other.method == key.method else 1,
                0 if other.path == key.path else 1,
                len(diff),
            )

        best = min(range(len(self.exchanges)), key=score)
        return Miss(self.exchanges[best], differences(self.keys[best], key, self.parts))
