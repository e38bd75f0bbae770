"""RedisStore: a :class:`~reference_impl.store.ResponseStore` shared by several replicas.

Behind a load balancer, a response created on one replica must be retrievable, cancellable and
chainable (``previous_response_id``) from any other (issue 6, Build 3). Keys, per response id
(``prefix`` defaults to ``responses:``):

* ``{prefix}resp:{id}`` — a hash: ``response`` (the Response JSON), ``status`` (copied out so a
  Lua script can read it), ``items`` (the input items JSON), ``cancel`` (``1`` once requested);
* ``{prefix}events:{id}`` — a list of the background stream's events (index = sequence number,
  SPEC §2.1), for ``GET …?stream=true&starting_after=N``.

Cancel across replicas: ``POST …/cancel`` on replica B sets the flag, publishes on
``{prefix}cancel:{id}`` and stores ``cancelled``; the replica A running the response learns it
through :meth:`RedisStore.wait_cancel` (one pattern subscription per store) and cancels its task,
which aborts generation. ``cancelled`` is final: a write of any other status onto a cancelled
response is dropped (atomically, in Lua), so A's late ``completed`` cannot undo B's cancel.
``ttl_seconds`` expires both keys after the last write. Requires ``redis`` (``pip install
responses-conformance[redis]``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

__all__ = ["RedisStore"]

# KEYS[1] = hash; ARGV = response, status, items ("" = keep), ttl ("" = none).
_PUT = """
local current = redis.call('HGET', KEYS[1], 'status')
if current == 'cancelled' and ARGV[2] ~= 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'response', ARGV[1], 'status', ARGV[2])
if ARGV[3] ~= '' or redis.call('HEXISTS', KEYS[1], 'items') == 0 then
  redis.call('HSET', KEYS[1], 'items', ARGV[3] ~= '' and ARGV[3] or '[]')
end
if ARGV[4] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return 1
"""


class RedisStore:
    """Responses in Redis (``redis.asyncio`` client); see the module docstring for the layout."""

    def __init__(
        self, client: Any, *, prefix: str = "responses:", ttl_seconds: int | None = None
    ) -> None:
        self._redis = client
        self.prefix = prefix
        self.ttl_seconds = ttl_seconds
        self._put = client.register_script(_PUT)
        self._waiters: dict[str, list[asyncio.Event]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._subscribed: asyncio.Event | None = None

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisStore:
        import redis.asyncio as redis

        return cls(redis.Redis.from_url(url), **options)

    def _key(self, response_id: str) -> str:
        return f"{self.prefix}resp:{response_id}"

    def _events(self, response_id: str) -> str:
        return f"{self.prefix}events:{response_id}"

    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        response_id = str(response["id"])
        items = b"" if input_items is None else orjson.dumps(list(input_items))
        ttl = "" if self.ttl_seconds is None else str(self.ttl_seconds)
        await self._put(
            keys=[self._key(response_id)],
            args=[orjson.dumps(response), str(response.get("status", "")), items, ttl],
        )

    async def get(self, response_id: str) -> dict[str, Any] | None:
        data = await self._redis.hget(self._key(response_id), "response")
        return None if data is None else _loads(data, dict)

    async def input_items(self, response_id: str) -> list[dict[str, Any]] | None:
        data = await self._redis.hget(self._key(response_id), "items")
        return None if data is None else _loads(data, list)

    async def delete(self, response_id: str) -> bool:
        removed = await self._redis.delete(self._key(response_id), self._events(response_id))
        return bool(removed)

    async def append_events(self, response_id: str, events: Sequence[Mapping[str, Any]]) -> None:
        if not events:
            return
        key = self._events(response_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.rpush(key, *(orjson.dumps(e) for e in events))
            if self.ttl_seconds is not None:
                pipe.expire(key, self.ttl_seconds)
            await pipe.execute()

    async def events_after(self, response_id: str, after: int) -> list[dict[str, Any]]:
        rows = await self._redis.lrange(self._events(response_id), max(after + 1, 0), -1)
        return [_loads(row, dict) for row in rows]

    async def request_cancel(self, response_id: str) -> None:
        key = self._key(response_id)
        if await self._redis.exists(key):
            await self._redis.hset(key, "cancel", "1")
            await self._redis.publish(f"{self.prefix}cancel:{response_id}", b"1")

    async def cancel_requested(self, response_id: str) -> bool:
        return bool(await self._redis.hget(self._key(response_id), "cancel") == b"1")

    async def wait_cancel(self, response_id: str) -> None:
        """Return once a cancel of ``response_id`` is requested, on any replica."""
        event = asyncio.Event()
        self._waiters.setdefault(response_id, []).append(event)
        try:
            await self._ensure_listener()
            if not await self.cancel_requested(response_id):  # requested before we listened?
                await event.wait()
        finally:
            waiters = self._waiters.get(response_id, [])
            if event in waiters:
                waiters.remove(event)
            if not waiters:
                self._waiters.pop(response_id, None)

    async def _ensure_listener(self) -> None:
        if self._listener is None or self._listener.done():
            self._subscribed = asyncio.Event()
            self._listener = asyncio.create_task(self._listen(self._subscribed))
        assert self._subscribed is not None
        await self._subscribed.wait()

    async def _listen(self, subscribed: asyncio.Event) -> None:
        pubsub = self._redis.pubsub()
        channel = f"{self.prefix}cancel:"
        await pubsub.psubscribe(f"{channel}*")
        subscribed.set()
        try:
            async for message in pubsub.listen():
                if message.get("type") != "pmessage":
                    continue
                name = message["channel"]
                name = name.decode() if isinstance(name, bytes) else str(name)
                for event in self._waiters.get(name[len(channel) :], ()):
                    event.set()
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    # --- conversations: {prefix}conv:{id} (the object), {prefix}conv_items:{id} (a list) -------
    def _conv(self, conversation_id: str) -> str:
        return f"{self.prefix}conv:{conversation_id}"

    def _conv_items(self, conversation_id: str) -> str:
        return f"{self.prefix}conv_items:{conversation_id}"

    async def put_conversation(self, conversation: Mapping[str, Any]) -> None:
        await self._redis.set(self._conv(str(conversation["id"])), orjson.dumps(conversation))

    async def get_conversation(self, conversation_id: str) -> dict[str, Any] | None:
        data = await self._redis.get(self._conv(conversation_id))
        return None if data is None else _loads(data, dict)

    async def delete_conversation(self, conversation_id: str) -> bool:
        removed = await self._redis.delete(
            self._conv(conversation_id), self._conv_items(conversation_id)
        )
        return bool(removed)

    async def add_conversation_items(
        self, conversation_id: str, items: Sequence[Mapping[str, Any]]
    ) -> None:
        if items:  # one RPUSH: appends from several replicas never interleave within a batch
            await self._redis.rpush(
                self._conv_items(conversation_id), *(orjson.dumps(i) for i in items)
            )

    async def conversation_items(self, conversation_id: str) -> list[dict[str, Any]]:
        rows = await self._redis.lrange(self._conv_items(conversation_id), 0, -1)
        return [_loads(row, dict) for row in rows]

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        key = self._conv_items(conversation_id)
        for row in await self._redis.lrange(key, 0, -1):
            if _loads(row, dict).get("id") == item_id:
                return bool(await self._redis.lrem(key, 1, row))
        return False

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        await self._redis.aclose()


def _loads(data: bytes, kind: type[Any]) -> Any:
    value = orjson.loads(data)
    assert isinstance(value, kind)
    return value
