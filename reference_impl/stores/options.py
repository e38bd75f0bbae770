"""The store options ``responses-mock`` and ``responses-reference`` share: backend, retention caps,
replica ids.

Defaults, and where they come from:

* ``--store-ttl`` 30 days: OpenAI keeps a response created with ``store: true`` for 30 days
  ("The expiration time for a store: true (the default) is 30 days"); an expired id is then
  OpenAI's 404, as an unknown one;
* ``--conversation-ttl`` never: OpenAI's conversation-state guide says conversations and their
  items are not subject to that 30-day TTL;
* ``--store-max-responses`` / ``--store-max-conversations`` 10,000 each and ``--store-max-bytes``
  256 MiB: OpenAI documents no cap (it has none a client sees); these are ours, so no store grows
  without bound. The oldest goes first (memory: least recently used; SQLite, Redis: least
  recently written), and is then a 404.

Replica ids (:func:`replica_for`): several processes sharing one SQLite file or Redis, or one
process restarted on it, must never hand out the same id. An explicit ``--replica-id`` enters every
id; without one, a shared store assigns each process that opens it the next number
(``claim_replica``), never a random one, so the mock stays a pure function of request, seed and
replica id.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from .base import DEFAULT_MAX_BYTES, DEFAULT_MAX_RESPONSES, StoreLimits

__all__ = [
    "DEFAULT_STORE_TTL",
    "add_retention_options",
    "byte_size",
    "limits_from",
    "make_store",
    "replica_for",
    "store_ttl",
]

DEFAULT_STORE_TTL = 30 * 24 * 3600
"""Seconds a stored response is kept after its last write: OpenAI keeps responses created with
``store: true`` for 30 days ("The expiration time for a store: true (the default) is 30 days");
an expired id is then OpenAI's 404, as an unknown one."""

_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "ki": 2**10, "mi": 2**20, "gi": 2**30}


def store_ttl(text: str) -> float | None:
    """``--store-ttl`` / ``--conversation-ttl``: seconds, or 0 for no expiry."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if value < 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected seconds >= 0, got {text!r}")
    return value or None


def byte_size(text: str) -> int:
    """``--store-max-bytes``: bytes, with an optional K/M/G (powers of 1000) or Ki/Mi/Gi suffix."""
    number = text.strip().lower().removesuffix("b")
    unit = number.lstrip("0123456789")
    digits = number[: len(number) - len(unit)]
    if not digits or unit not in _UNITS or int(digits) * _UNITS[unit] < 1:
        raise argparse.ArgumentTypeError(
            f"expected bytes (e.g. 268435456, 256Mi, 1G), got {text!r}"
        )
    return int(digits) * _UNITS[unit]


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a count >= 1, got {text!r}")
    return int(text)


def add_retention_options(group: Any) -> None:
    """``--store-ttl``, ``--conversation-ttl``, ``--store-max-responses``,
    ``--store-max-conversations``, ``--store-max-bytes`` on an argparse group."""
    group.add_argument(
        "--store-ttl",
        type=store_ttl,
        default=float(DEFAULT_STORE_TTL),
        metavar="SECONDS",
        help="a stored response expires this long after its last write, then is a 404, as at "
        f"OpenAI (default: {DEFAULT_STORE_TTL} = 30 days, OpenAI's retention for store: true; "
        "0 = never)",
    )
    group.add_argument(
        "--conversation-ttl",
        type=store_ttl,
        default=None,
        metavar="SECONDS",
        help="a conversation (and its items) expires this long after its last write (default: 0 "
        "= never: OpenAI's conversations are not subject to the 30-day TTL)",
    )
    group.add_argument(
        "--store-max-responses",
        type=_count,
        default=None,
        metavar="N",
        help=f"keep at most N responses, the oldest evicted first, then a 404 (default: "
        f"{DEFAULT_MAX_RESPONSES:,}, or memory:N's N; OpenAI documents no cap)",
    )
    group.add_argument(
        "--store-max-conversations",
        type=_count,
        default=DEFAULT_MAX_RESPONSES,
        metavar="N",
        help=f"keep at most N conversations, the oldest evicted first (default: "
        f"{DEFAULT_MAX_RESPONSES:,}; OpenAI documents no cap)",
    )
    group.add_argument(
        "--store-max-bytes",
        type=byte_size,
        default=DEFAULT_MAX_BYTES,
        metavar="BYTES",
        help="keep at most this much, the oldest response or conversation evicted first: the "
        "memory store's JSON, the SQLite file (vacuumed as it evicts), the Redis store's keys "
        f"(default: {DEFAULT_MAX_BYTES // 2**20}Mi; suffixes K, M, G, Ki, Mi, Gi; OpenAI "
        "documents no cap)",
    )


def limits_from(args: argparse.Namespace) -> StoreLimits:
    return StoreLimits(
        max_responses=args.store_max_responses or DEFAULT_MAX_RESPONSES,
        max_conversations=args.store_max_conversations,
        max_bytes=args.store_max_bytes,
        conversation_ttl_seconds=args.conversation_ttl,
    )


def make_store(
    spec: str, ttl_seconds: float | None = None, limits: StoreLimits | None = None
) -> Any:
    """A :class:`~reference_impl.stores.base.ResponseStore` from ``memory``, ``memory:N``,
    ``sqlite:PATH`` or ``redis://…``, each response kept ``ttl_seconds`` after its last write
    (None: forever; Redis key TTLs), within ``limits`` (``memory:N``'s N, when given, is its
    ``max_responses``); :class:`ValueError` when malformed."""
    from .memory import MemoryStore
    from .sqlite import SQLiteStore

    if ttl_seconds is not None and ttl_seconds <= 0:
        raise ValueError(f"a store TTL must be positive seconds, got {ttl_seconds!r}")
    limits = limits or StoreLimits()
    if spec.startswith(("redis://", "rediss://", "unix://")):
        from .redis import RedisStore

        ttl = None if ttl_seconds is None else max(1, round(ttl_seconds))
        return RedisStore.from_url(spec, ttl_seconds=ttl, limits=limits)
    kind, _, arg = spec.partition(":")
    if kind == "memory" and (not arg or (arg.isdigit() and int(arg) > 0)):
        if arg:
            limits = StoreLimits(
                int(arg),
                limits.max_conversations,
                limits.max_bytes,
                limits.conversation_ttl_seconds,
            )
        return MemoryStore(limits.max_responses, ttl_seconds=ttl_seconds, limits=limits)
    if kind == "sqlite" and arg:
        return SQLiteStore(arg, ttl_seconds=ttl_seconds, limits=limits)
    raise ValueError(
        f"bad store {spec!r}: use memory, memory:N, sqlite:PATH or redis://HOST:PORT/DB"
    )


def replica_for(store: Any, explicit: str | None, *, first_plain: bool = True) -> str | None:
    """The replica id a process on ``store`` puts into its ids: ``explicit`` (``--replica-id``)
    as given; else, on a store shared by processes (SQLite, Redis), the number it assigns this
    opening (``"2"``, ``"3"``, … ; the first opening gets ``None`` when ``first_plain``, so a
    fresh store gives the ids a memory store would); else ``None``."""
    if explicit is not None:
        return explicit
    claim = getattr(store, "claim_replica", None)
    if claim is None:
        return None
    number = int(claim())
    return None if number == 1 and first_plain else str(number)
