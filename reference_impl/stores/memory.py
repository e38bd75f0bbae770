"""MemoryStore: the bounded in-memory :class:`~reference_impl.stores.base.ResponseStore` (LRU +
TTL), the default backend of ``responses-mock`` and ``responses-reference``; it implements
:class:`~reference_impl.stores.base.ItemLookup` and
:class:`~reference_impl.stores.base.ConversationStore` too.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from .base import DEFAULT_MAX_RESPONSES, StoreLimits, find_output_item, output_item_ids

__all__ = ["MemoryStore"]


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
