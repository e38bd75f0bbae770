"""Where ids come from: a per-request id source, random by default.

The app asks its :class:`IdFactory` for one *scope* per request (``scope(body)``) and draws every id
of that request from it: ``new_id("resp")`` → ``resp_…``, and likewise ``msg``, ``rs``, ``fc``,
``call``, ``ws``. The mock server swaps in a deterministic factory so two fresh servers given the
same requests produce the same bytes (issue 3, Build 6).
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = ["IdFactory", "IdSource", "RandomIds", "random_id"]

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
