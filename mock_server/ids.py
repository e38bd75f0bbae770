"""Deterministic ids: a function of the seed, the request body and a per-server counter.

Each request's scope takes the next value of the server's counter, so ids are unique within one
server (and its store) even for identical requests, and two fresh servers given the same requests
in the same order hand out the same ids. Inside a scope, the n-th id drawn (whatever its prefix)
hashes (seed, counter, body, n). ``stream`` and ``stream_options`` are left out of the body: they
choose the transport, not the response, so the n-th request gets the same ids streamed or not. Shapes follow OpenAI's: 48 hex digits after the prefix; call ids
``call_`` + 24 alphanumerics (tests/data/openai-recorded).
"""

from __future__ import annotations

import hashlib
import itertools
import string
import threading
from collections.abc import Mapping
from typing import Any

import orjson

from reference_impl.ids import IdSource

__all__ = ["DeterministicIds"]

_ALNUM = string.ascii_letters + string.digits
_TRANSPORT_FIELDS = frozenset({"stream", "stream_options"})


class DeterministicIds:
    """An :class:`reference_impl.ids.IdFactory` for reproducible runs.

    ``replica_id``: several mock processes sharing one store (SQLite, Redis) would hand out the same
    id for the same n-th request, one overwriting the other's response; a replica id (any string,
    one per process) enters every id's hash, so their ids never collide while each process stays a
    pure function of its requests, seed and replica id. ``None`` (the default) leaves the ids as
    they always were."""

    def __init__(self, seed: int = 0, replica_id: str | None = None) -> None:
        self.seed = seed
        self.replica_id = replica_id
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def scope(self, body: Mapping[str, Any]) -> IdSource:
        with self._lock:
            number = next(self._counter)
        content = {k: v for k, v in body.items() if k not in _TRANSPORT_FIELDS}
        key: list[Any] = [self.seed, number, content]
        if self.replica_id is not None:
            key.append(self.replica_id)
        base = hashlib.sha256(orjson.dumps(key, option=orjson.OPT_SORT_KEYS)).digest()
        drawn = itertools.count()

        def new_id(prefix: str) -> str:
            digest = hashlib.sha256(base + next(drawn).to_bytes(8, "big")).digest()
            if prefix == "call":
                n = int.from_bytes(digest, "big")
                chars = []
                for _ in range(24):
                    n, i = divmod(n, len(_ALNUM))
                    chars.append(_ALNUM[i])
                return "call_" + "".join(chars)
            return f"{prefix}_{digest[:24].hex()}"

        return new_id
