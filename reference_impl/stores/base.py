"""Where responses live: the store interface every backend implements.

A :class:`ResponseStore` keeps, per response id: the latest Response object, the input items it was
created with (its whole conversation, so a ``previous_response_id`` chain resolves in one read), an
event log for background streams (``GET …?stream=true&starting_after=N``, SPEC §2.12, §4) and a
cancel flag. ``store: false`` responses never reach it (SPEC §3; known bug KB26). A backend that
also implements :class:`ItemLookup` finds stored output items by id, for ``item_reference`` inputs.

Backends: :class:`~reference_impl.stores.memory.MemoryStore` (LRU + TTL, the default),
:class:`~reference_impl.stores.sqlite.SQLiteStore` (durable across restart) and
:class:`~reference_impl.stores.redis.RedisStore` (shared by replicas). Methods are ``async`` so a
backend may do I/O off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_RESPONSES",
    "ConversationStore",
    "ItemLookup",
    "ResponseStore",
    "StoreLimits",
    "find_output_item",
    "output_item_ids",
]

DEFAULT_MAX_RESPONSES = 10_000
"""Every store's default cap on responses (and, by default, on conversations): OpenAI documents
none; this one keeps the mock's memory within 50 MB (benchmarks/perf/store_memory.py)."""

DEFAULT_MAX_BYTES = 256 * 2**20
"""Every store's default cap on bytes (256 MiB): the memory store's serialized objects, the SQLite
file, the Redis store's keys (benchmarks/perf/store_retention.py measures each). OpenAI documents none."""


@dataclass(frozen=True, slots=True)
class StoreLimits:
    """What a store keeps at most (``responses-mock`` / ``responses-reference`` ``--store-*``).

    Caps evict the oldest first (memory: least recently used; SQLite, Redis: least recently
    written); expiry counts from the last write. An evicted or expired id is OpenAI's 404, as an
    unknown one. ``None`` TTLs never expire: conversations by default, as at OpenAI (its
    conversation-state guide: conversations and their items are not subject to the 30-day TTL of
    stored responses)."""

    max_responses: int = DEFAULT_MAX_RESPONSES
    max_conversations: int = DEFAULT_MAX_RESPONSES
    max_bytes: int = DEFAULT_MAX_BYTES
    conversation_ttl_seconds: float | None = None

    def __post_init__(self) -> None:
        if min(self.max_responses, self.max_conversations, self.max_bytes) < 1:
            raise ValueError("store caps must be at least 1")
        if self.conversation_ttl_seconds is not None and self.conversation_ttl_seconds <= 0:
            raise ValueError("a conversation TTL must be positive seconds")


@runtime_checkable
class ResponseStore(Protocol):
    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """Insert or replace ``response`` (keyed by its ``id``); ``input_items=None`` keeps the
        items stored before."""
        ...

    async def get(self, response_id: str) -> dict[str, Any] | None: ...

    async def input_items(self, response_id: str) -> list[dict[str, Any]] | None:
        """The stored input items in conversation order, or None for an unknown id."""
        ...

    async def delete(self, response_id: str) -> bool:
        """Forget the response, its items and its event log; False if it was unknown."""
        ...

    async def append_events(self, response_id: str, events: Sequence[Mapping[str, Any]]) -> None:
        """Add to the response's event log (background streams)."""
        ...

    async def events_after(self, response_id: str, after: int) -> list[dict[str, Any]]:
        """Logged events with ``sequence_number > after``, in order."""
        ...

    async def request_cancel(self, response_id: str) -> None: ...

    async def cancel_requested(self, response_id: str) -> bool: ...

    async def close(self) -> None: ...


@runtime_checkable
class ItemLookup(Protocol):
    """What a backend may offer besides :class:`ResponseStore`: stored output items by id, for
    ``item_reference`` inputs. The app answers a reference with a 400 when its store lacks this."""

    async def item(self, item_id: str) -> dict[str, Any] | None:
        """The output item ``item_id`` of a stored response, or None."""
        ...


@runtime_checkable
class ConversationStore(Protocol):
    """Conversations (``/v1/conversations``): the object (id, created_at, metadata) and its items
    in order. Every backend here implements it (memory, SQLite, Redis), so replicas behind one
    Redis share conversations like responses."""

    async def put_conversation(self, conversation: Mapping[str, Any]) -> None:
        """Insert or replace the conversation object (keyed by its ``id``); its items stay."""
        ...

    async def get_conversation(self, conversation_id: str) -> dict[str, Any] | None: ...

    async def delete_conversation(self, conversation_id: str) -> bool:
        """Forget the conversation and its items; False if it was unknown."""
        ...

    async def add_conversation_items(
        self, conversation_id: str, items: Sequence[Mapping[str, Any]]
    ) -> None:
        """Append ``items`` (each with an ``id``) after the conversation's items."""
        ...

    async def conversation_items(self, conversation_id: str) -> list[dict[str, Any]]:
        """The conversation's items, oldest first ([] for an unknown id)."""
        ...

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool: ...


def output_item_ids(response: Mapping[str, Any]) -> list[str]:
    """The ids of ``response``'s output items (what :meth:`ItemLookup.item` finds)."""
    return [str(i["id"]) for i in response.get("output") or () if isinstance(i, dict) and "id" in i]


def find_output_item(response: Mapping[str, Any], item_id: str) -> dict[str, Any] | None:
    for item in response.get("output") or ():
        if isinstance(item, dict) and item.get("id") == item_id:
            return dict(item)
    return None
