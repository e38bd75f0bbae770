"""What makes the mock a pure function of its request: the digest of what the model sees of a
request (and the seed), and the seeded RNG every answer is drawn from. Split from
:mod:`mock_server.engine`."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

import orjson

from reference_impl.engine import GenerationRequest

__all__ = ["request_digest", "rng_of"]

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # dataclass → its field names, in order
# Fields added to the engine's dataclasses after the snapshots were pinned: left out of a request's
# digest while they hold their default, so every earlier request keeps its answer byte for byte
# (a tool's ``namespace`` and ``deferred``, for tool search).
_LATE_DEFAULTS: dict[str, object] = {"namespace": None, "deferred": False}


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """JSON-ready copy of dataclasses / mappings / sequences, for hashing."""
    cls = type(value)
    # Exact builtin types first: the ABC checks below cost a microsecond each.
    if cls in _SCALARS:
        return value
    if cls is dict:
        return {str(k): _plain(v) for k, v in value.items()}
    if cls is tuple or cls is list:
        return [_plain(v) for v in value]
    names = _FIELD_NAMES.get(cls)
    if names is None and is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(value))
    if names is not None:
        out = {}
        for name in names:
            field_value = getattr(value, name)
            if name not in _LATE_DEFAULTS or field_value is not _LATE_DEFAULTS[name]:
                out[name] = _plain(field_value)
        return out
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def request_digest(request: GenerationRequest, seed: int, *parts: str) -> bytes:
    """SHA-256 over the seed and what the model sees of a request. ``hints`` and ``body`` are left
    out: transport details (``stream``, headers, ``store``) must not change the answer, so a
    streamed and a non-streamed request get the same output."""
    doc = {
        name: _plain(getattr(request, name))
        for name in (
            "model", "messages", "tools", "tool_choice", "parallel_tool_calls",
            "max_output_tokens", "temperature", "top_p", "reasoning_effort",
            "reasoning_summary", "text_format", "metadata",
        )
    }  # fmt: skip
    if request.custom_tools:  # only then: the digests of all other requests stay as they were
        doc["custom_tools"] = _plain(request.custom_tools)
    data = orjson.dumps([seed, *parts, doc], option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return hashlib.sha256(data).digest()


def rng_of(digest: bytes) -> random.Random:
    return random.Random(int.from_bytes(digest[:16], "big"))
