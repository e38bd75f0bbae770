"""Where ids come from: a per-request id source, random by default.

The app asks its :class:`IdFactory` for one *scope* per request (``scope(body)``) and draws every id
of that request from it: ``new_id("resp")`` → ``resp_…``, and likewise ``msg``, ``rs``, ``fc``,
``call``, ``ws``. The mock server swaps in a deterministic factory so two fresh servers given the
same requests produce the same bytes (the golden snapshots, tests/mock_server/__snapshots__).
"""

from __future__ import annotations

import hashlib
import secrets
import string
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["IdFactory", "IdSource", "RandomIds", "ReplicaIds", "random_id"]

IdSource = Callable[[str], str]
"""prefix (``"resp"``, ``"msg"``, …) → a new id with that prefix."""

_ALNUM = string.ascii_letters + string.digits


@runtime_checkable
class IdFactory(Protocol):
    def scope(self, body: Mapping[str, Any]) -> IdSource:
        """An id source for the request with body ``body``."""
        ...


def random_id(prefix: str) -> str:
    # OpenAI's item and response ids are 48–50 hex characters after the prefix; call ids are
    # 24 alphanumerics (tests/data/openai-recorded).
    if prefix == "call":
        return "call_" + "".join(secrets.choice(_ALNUM) for _ in range(24))
    return f"{prefix}_{secrets.token_hex(24)}"


class RandomIds:
    """The default factory: unguessable random ids, like OpenAI's."""

    def scope(self, body: Mapping[str, Any]) -> IdSource:
        return random_id


class ReplicaIds:
    """Random ids that carry their replica: ``responses-reference --replica-id R`` (or the number
    a shared store assigns the process). The first 8 of the 48 hex digits (the first 6 of a call
    id's 24 alphanumerics) are SHA-256 of the replica id, the rest random, so replicas behind one
    store draw from disjoint id spaces, and a restart (a new number) from a new one."""

    def __init__(self, replica_id: str) -> None:
        digest = hashlib.sha256(replica_id.encode()).digest()
        self.replica_id = replica_id
        self._hex = digest[:4].hex()
        n = int.from_bytes(digest, "big")
        chars = []
        for _ in range(6):
            n, i = divmod(n, len(_ALNUM))
            chars.append(_ALNUM[i])
        self._alnum = "".join(chars)

    def new_id(self, prefix: str) -> str:
        if prefix == "call":
            return "call_" + self._alnum + "".join(secrets.choice(_ALNUM) for _ in range(18))
        return f"{prefix}_{self._hex}{secrets.token_hex(20)}"

    def scope(self, body: Mapping[str, Any]) -> IdSource:
        return self.new_id
