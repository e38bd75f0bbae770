"""Where responses live: the store interface and the bounded in-memory backend.

A :class:`ResponseStore` keeps, per response id: the latest Response object, the input items it was
created with (its whole conversation, so a ``previous_response_id`` chain resolves in one read), an
event log for background streams (``GET …?stream=true&starting_after=N``, SPEC §2.12, §4) and a
cancel flag. ``store: false`` responses never reach it (SPEC §3; known bug KB26). A backend that
also implements :class:`ItemLookup` finds stored output items by id, for ``item_reference`` inputs.

Backends: :class:`MemoryStore` (here; LRU + TTL, the default) and
:class:`~reference_impl.stores.sqlite.SQLiteStore` (durable across restart). Methods are ``async`` so
a backend may do I/O off the event loop.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import orjson

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_RESPONSES",
    "ConversationStore",
    "ItemLookup",
    "MemoryStore",
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


@dataclass(slots=True)
class _Entry:
    # Serialized, so stored objects are compact and never alias a live dict.
    response: bytes
    input_items: bytes
    stored_at: float
    events: list[bytes] = field(default_factory=list)
    cancel: bool = False
    item_ids: tuple[str, ...] = ()  # output items indexed in MemoryStore._items
    size: int = 0  # bytes counted against StoreLimits.max_bytes
    used_at: float = 0.0  # last read or write (the LRU order's clock)


@dataclass(slots=True)
class _Conversation:
    conversation: bytes
    stored_at: float  # last write: the object, or items added / deleted
    items: list[bytes] = field(default_factory=list)
    size: int = 0
    used_at: float = 0.0


class MemoryStore:
    """Bounded in-memory store. Caps (:class:`StoreLimits`): at most ``max_responses`` responses
    (default 10,000) and ``max_conversations`` conversations, ``max_bytes`` of serialized objects
    in all (responses, their input items and event logs, conversations and their items); the least
    recently used (read or written) goes first. A response is kept ``ttl_seconds`` after its last
    write (default: no expiry), a conversation ``conversation_ttl_seconds``."""

    def __init__(
        self,
        max_responses: int = DEFAULT_MAX_RESPONSES,
        *,
        ttl_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        limits: StoreLimits | None = None,
    ) -> None:
        if max_responses < 1:
            raise ValueError("max_responses must be at least 1")
        limits = limits or StoreLimits(max_responses=max_responses)
        self.max_responses = max_responses
        self.max_conversations = limits.max_conversations
        self.max_bytes = limits.max_bytes
        self.ttl_seconds = ttl_seconds
        self.conversation_ttl_seconds = limits.conversation_ttl_seconds
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._items: dict[str, str] = {}  # output item id → response id
        # conversation id → object and items, least recently used first
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self.bytes = 0  # serialized bytes held (what max_bytes caps)
        self.evicted = 0  # responses and conversations dropped for a cap (not for expiry)

    def __len__(self) -> int:
        return len(self._entries)

    def _live(self, response_id: str) -> _Entry | None:
        entry = self._entries.get(response_id)
        if entry is None:
            return None
        now = self._clock()
        if self.ttl_seconds is not None and now - entry.stored_at > self.ttl_seconds:
            self._drop(response_id)
            return None
        entry.used_at = now
        self._entries.move_to_end(response_id)
        return entry

    def _resize(self, entry: _Entry | _Conversation, size: int) -> None:
        self.bytes += size - entry.size
        entry.size = size

    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        response_id = str(response["id"])
        now = self._clock()
        entry = self._live(response_id)
        data = _dumps(response)
        if entry is None:
            items = _dumps(list(input_items or ()))
            entry = self._entries[response_id] = _Entry(data, items, now, used_at=now)
        else:
            entry.response, entry.stored_at = data, now
            if input_items is not None:
                entry.input_items = _dumps(list(input_items))
        item_ids = output_item_ids(response)
        if len(item_ids) != len(entry.item_ids):
            entry.item_ids = tuple(item_ids)
            self._items.update(dict.fromkeys(item_ids, response_id))
        events = sum(len(e) for e in entry.events)
        self._resize(entry, len(entry.response) + len(entry.input_items) + events)
        self._evict(keep=response_id)

    def _drop(self, response_id: str) -> _Entry | None:
        entry = self._entries.pop(response_id, None)
        if entry is not None:
            self.bytes -= entry.size
            for item_id in entry.item_ids:
                if self._items.get(item_id) == response_id:
                    del self._items[item_id]
        return entry

    def _drop_conversation(self, conversation_id: str) -> bool:
        found = self._conversations.pop(conversation_id, None)
        if found is not None:
            self.bytes -= found.size
        return found is not None

    def _evict(self, keep: str | None = None) -> None:
        """Expired entries, then the least recently used beyond a cap (``keep``, the entry just
        written, last: an object larger than ``max_bytes`` alone is still kept until the next)."""
        now = self._clock()
        if self.ttl_seconds is not None:
            while self._entries:
                oldest_id, oldest = next(iter(self._entries.items()))
                if now - oldest.stored_at <= self.ttl_seconds:
                    break
                self._drop(oldest_id)
        if self.conversation_ttl_seconds is not None:
            while self._conversations:
                oldest_id, conv = next(iter(self._conversations.items()))
                if now - conv.stored_at <= self.conversation_ttl_seconds:
                    break
                self._drop_conversation(oldest_id)
        while len(self._entries) > self.max_responses:
            self._drop(next(iter(self._entries)))
            self.evicted += 1
        while len(self._conversations) > self.max_conversations:
            self._drop_conversation(next(iter(self._conversations)))
            self.evicted += 1
        while self.bytes > self.max_bytes:
            lru = next(iter(self._entries.items()), None)
            lru_conv = next(iter(self._conversations.items()), None)
            if lru_conv is not None and (lru is None or lru_conv[1].used_at < lru[1].used_at):
                if lru_conv[0] == keep:
                    break
                self._drop_conversation(lru_conv[0])
            elif lru is not None and lru[0] != keep:
                self._drop(lru[0])
            else:
                break
            self.evicted += 1

    async def get(self, response_id: str) -> dict[str, Any] | None:
        entry = self._live(response_id)
        return None if entry is None else _loads_dict(entry.response)

    async def input_items(self, response_id: str) -> list[dict[str, Any]] | None:
        entry = self._live(response_id)
        return None if entry is None else _loads_list(entry.input_items)

    async def item(self, item_id: str) -> dict[str, Any] | None:
        response_id = self._items.get(item_id)
        entry = None if response_id is None else self._live(response_id)
        return None if entry is None else find_output_item(_loads_dict(entry.response), item_id)

    async def delete(self, response_id: str) -> bool:
        return self._drop(response_id) is not None

    async def append_events(self, response_id: str, events: Sequence[Mapping[str, Any]]) -> None:
        entry = self._entries.get(response_id)
        if entry is not None:
            data = [_dumps(e) for e in events]
            entry.events.extend(data)
            self._resize(entry, entry.size + sum(len(d) for d in data))
            self._evict(keep=response_id)

    async def events_after(self, response_id: str, after: int) -> list[dict[str, Any]]:
        entry = self._entries.get(response_id)
        if entry is None:
            return []
        # Sequence numbers are 0..n-1 (SPEC §2.1), so the log index is the sequence number.
        start = max(after + 1, 0)
        return [_loads_dict(e) for e in entry.events[start:]]

    async def request_cancel(self, response_id: str) -> None:
        entry = self._entries.get(response_id)
        if entry is not None:
            entry.cancel = True

    async def cancel_requested(self, response_id: str) -> bool:
        entry = self._entries.get(response_id)
        return entry is not None and entry.cancel

    async def close(self) -> None:
        return None

    # --- conversations ----------------------------------------------------------------------
    def _conversation(self, conversation_id: str) -> _Conversation | None:
        found = self._conversations.get(conversation_id)
        if found is None:
            return None
        now = self._clock()
        ttl = self.conversation_ttl_seconds
        if ttl is not None and now - found.stored_at > ttl:
            self._drop_conversation(conversation_id)
            return None
        found.used_at = now
        self._conversations.move_to_end(conversation_id)
        return found

    def _touched(self, conversation_id: str, found: _Conversation) -> None:
        found.stored_at = self._clock()
        self._resize(found, len(found.conversation) + sum(len(i) for i in found.items))
        self._evict(keep=conversation_id)

    async def put_conversation(self, conversation: Mapping[str, Any]) -> None:
        conversation_id = str(conversation["id"])
        found = self._conversation(conversation_id)
        data = _dumps(conversation)
        if found is None:
            now = self._clock()
            found = self._conversations[conversation_id] = _Conversation(data, now, used_at=now)
        else:
            found.conversation = data
        self._touched(conversation_id, found)

    async def get_conversation(self, conversation_id: str) -> dict[str, Any] | None:
        found = self._conversation(conversation_id)
        return None if found is None else _loads_dict(found.conversation)

    async def delete_conversation(self, conversation_id: str) -> bool:
        return self._drop_conversation(conversation_id)

    async def add_conversation_items(
        self, conversation_id: str, items: Sequence[Mapping[str, Any]]
    ) -> None:
        found = self._conversation(conversation_id)
        if found is not None:
            found.items.extend(_dumps(item) for item in items)
            self._touched(conversation_id, found)

    async def conversation_items(self, conversation_id: str) -> list[dict[str, Any]]:
        found = self._conversation(conversation_id)
        return [] if found is None else [_loads_dict(item) for item in found.items]

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        found = self._conversation(conversation_id)
        if found is None:
            return False
        for index, data in enumerate(found.items):
            if _loads_dict(data).get("id") == item_id:
                del found.items[index]
                self._touched(conversation_id, found)
                return True
        return False


def _dumps(value: Any) -> bytes:
    """``orjson.dumps`` right-sized for keeping: orjson returns its whole write buffer (4 KiB or
    more, grown by doubling) with only the length trimmed, so a 1.3 KB response held as is pins
    about 16 KB (benchmarks/perf/store_memory.py; home-assistant/core#181245). The copy pins its size."""
    return bytes(memoryview(orjson.dumps(value)))


def _loads_dict(data: bytes) -> dict[str, Any]:
    value = orjson.loads(data)
    assert isinstance(value, dict)
    return value


def _loads_list(data: bytes) -> list[dict[str, Any]]:
    value = orjson.loads(data)
    assert isinstance(value, list)
    return value
