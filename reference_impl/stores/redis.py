"""RedisStore: a :class:`~reference_impl.stores.base.ResponseStore` shared by several replicas.

Behind a load balancer, a response created on one replica must be retrievable, cancellable and
chainable (``previous_response_id``) from any other (tests/reference_impl/test_refimpl_redis.py). Keys, per response id
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

Retention (:class:`~reference_impl.stores.base.StoreLimits`), kept by the write scripts themselves so
every replica enforces the same caps atomically: ``{prefix}age:resp`` / ``{prefix}age:conv`` (sorted
sets: id → time of the last write), ``{prefix}sizes`` (a hash: ``r:ID`` / ``c:ID`` → the bytes an
entry holds: Redis's ``MEMORY USAGE`` of its keys, plus ``_OVERHEAD`` for its entries in these
books) and
``{prefix}total`` (their sum). After a write: entries past their TTL go (Redis has expired their
keys already; this settles the books), then the least recently written beyond ``max_responses`` /
``max_conversations``, then the oldest of either kind while ``total`` exceeds ``max_bytes``. Keys
are built inside the scripts, so the store needs one Redis (or one Cluster hash slot via a
``{tag}`` prefix), not a Cluster spread.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from .base import StoreLimits

__all__ = ["RedisStore"]

_OVERHEAD = 512
"""Bytes counted per entry besides its keys' ``MEMORY USAGE``: its sorted-set member and its
``sizes`` field (benchmarks/perf/store_retention.py compares the books with ``used_memory``)."""

# ARGV[1..7] of every retention script: prefix, now, ttl, conversation ttl (0 = none),
# max responses, max conversations, max bytes; the script's own arguments follow.
_LIB = """
local P = ARGV[1]
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local cttl = tonumber(ARGV[4])
local OVER = @OVERHEAD@
local ZSET = {r = P .. 'age:resp', c = P .. 'age:conv'}
local function keys_of(kind, id)
  if kind == 'r' then return P .. 'resp:' .. id, P .. 'events:' .. id end
  return P .. 'conv:' .. id, P .. 'conv_items:' .. id
end
local function drop(kind, id)
  local a, b = keys_of(kind, id)
  local removed = redis.call('DEL', a, b)
  redis.call('ZREM', ZSET[kind], id)
  local size = tonumber(redis.call('HGET', P .. 'sizes', kind .. ':' .. id) or '0')
  redis.call('HDEL', P .. 'sizes', kind .. ':' .. id)
  if size ~= 0 then redis.call('DECRBY', P .. 'total', size) end
  return removed
end
local function remeasure(kind, id)
  local a, b = keys_of(kind, id)
  local size = 0
  if redis.call('EXISTS', a) == 1 then
    size = OVER + redis.call('MEMORY', 'USAGE', a)
    if redis.call('EXISTS', b) == 1 then size = size + redis.call('MEMORY', 'USAGE', b) end
  end
  local old = tonumber(redis.call('HGET', P .. 'sizes', kind .. ':' .. id) or '0')
  redis.call('HSET', P .. 'sizes', kind .. ':' .. id, size)
  redis.call('INCRBY', P .. 'total', size - old)
end
local function touch(kind, id)
  redis.call('ZADD', ZSET[kind], now, id)
  local life = kind == 'r' and ttl or cttl
  if life > 0 then
    local a, b = keys_of(kind, id)
    redis.call('EXPIRE', a, life)
    if redis.call('EXISTS', b) == 1 then redis.call('EXPIRE', b, life) end
  end
end
local function enforce(keep_kind, keep_id)
  local evicted = 0
  for kind, life in pairs({r = ttl, c = cttl}) do
    if life > 0 then
      local old = redis.call('ZRANGEBYSCORE', ZSET[kind], '-inf', '(' .. (now - life), 'LIMIT', 0, 512)
      for _, id in ipairs(old) do drop(kind, id) end
    end
  end
  for kind, cap in pairs({r = tonumber(ARGV[5]), c = tonumber(ARGV[6])}) do
    local over = redis.call('ZCARD', ZSET[kind]) - cap
    if over > 0 then
      for _, id in ipairs(redis.call('ZRANGE', ZSET[kind], 0, over)) do
        if over > 0 and not (kind == keep_kind and id == keep_id) then
          drop(kind, id); evicted = evicted + 1; over = over - 1
        end
      end
    end
  end
  local max_bytes = tonumber(ARGV[7])
  while tonumber(redis.call('GET', P .. 'total') or '0') > max_bytes do
    local best_kind, best_id, best_age = nil, nil, nil
    for kind, zset in pairs(ZSET) do
      local oldest = redis.call('ZRANGE', zset, 0, 1, 'WITHSCORES')
      for i = 1, #oldest, 2 do
        local id, age = oldest[i], tonumber(oldest[i + 1])
        if not (kind == keep_kind and id == keep_id) then
          if best_age == nil or age < best_age then best_kind, best_id, best_age = kind, id, age end
          break
        end
      end
    end
    if best_id == nil then break end
    drop(best_kind, best_id); evicted = evicted + 1
  end
  return evicted
end
""".replace("@OVERHEAD@", str(_OVERHEAD))

# ARGV[8..11]: id, response, status, items ("" = keep).
_PUT = (
    _LIB
    + """
local id = ARGV[8]
local key = P .. 'resp:' .. id
local current = redis.call('HGET', key, 'status')
if current == 'cancelled' and ARGV[10] ~= 'cancelled' then return 0 end
redis.call('HSET', key, 'response', ARGV[9], 'status', ARGV[10])
if ARGV[11] ~= '' or redis.call('HEXISTS', key, 'items') == 0 then
  redis.call('HSET', key, 'items', ARGV[11] ~= '' and ARGV[11] or '[]')
end
touch('r', id)
remeasure('r', id)
return enforce('r', id)
"""
)

# ARGV[8]: id, ARGV[9..]: events.
_APPEND = (
    _LIB
    + """
local id = ARGV[8]
if redis.call('EXISTS', P .. 'resp:' .. id) == 0 then return 0 end
for i = 9, #ARGV do redis.call('RPUSH', P .. 'events:' .. id, ARGV[i]) end
touch('r', id)
remeasure('r', id)
return enforce('r', id)
"""
)

# ARGV[8]: kind (r or c), ARGV[9]: id; 1 if it was there.
_DROP = (
    _LIB
    + """
return drop(ARGV[8], ARGV[9]) > 0 and 1 or 0
"""
)

# ARGV[8]: id, ARGV[9]: the conversation object.
_PUT_CONV = (
    _LIB
    + """
local id = ARGV[8]
local key = P .. 'conv:' .. id
redis.call('SET', key, ARGV[9], 'KEEPTTL')
touch('c', id)
remeasure('c', id)
return enforce('c', id)
"""
)

# ARGV[8]: id, ARGV[9..]: items (one RPUSH: batches from replicas never interleave).
_ADD_ITEMS = (
    _LIB
    + """
local id = ARGV[8]
if redis.call('EXISTS', P .. 'conv:' .. id) == 0 then return 0 end
local items = {}
for i = 9, #ARGV do items[#items + 1] = ARGV[i] end
redis.call('RPUSH', P .. 'conv_items:' .. id, unpack(items))
touch('c', id)
remeasure('c', id)
return enforce('c', id)
"""
)

# ARGV[8]: id, ARGV[9]: the stored item's bytes; 1 if removed.
_DELETE_ITEM = (
    _LIB
    + """
local id = ARGV[8]
local removed = redis.call('LREM', P .. 'conv_items:' .. id, 1, ARGV[9])
if removed > 0 then touch('c', id); remeasure('c', id) end
return removed
"""
)

# KEYS: none; ARGV: prefix, fingerprint, now, capacity.
_ATTEMPT = """
local P = ARGV[1]
local count = redis.call('HINCRBY', P .. 'attempts', ARGV[2], 1)
redis.call('ZADD', P .. 'attempts:age', tonumber(ARGV[3]), ARGV[2])
local over = redis.call('ZCARD', P .. 'attempts:age') - tonumber(ARGV[4])
if over > 0 then
  for _, fp in ipairs(redis.call('ZRANGE', P .. 'attempts:age', 0, over - 1)) do
    redis.call('HDEL', P .. 'attempts', fp)
  end
  redis.call('ZREMRANGEBYRANK', P .. 'attempts:age', 0, over - 1)
end
return count
"""


class RedisStore:
    """Responses in Redis (``redis.asyncio`` client); see the module docstring for the layout."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "responses:",
        ttl_seconds: int | None = None,
        limits: StoreLimits | None = None,
        clock: Callable[[], float] = time.time,
        url: str | None = None,
    ) -> None:
        self._redis = client
        self.prefix = prefix
        self.ttl_seconds = ttl_seconds
        self.limits = limits or StoreLimits()
        self._clock = clock
        self.url = url
        self._scripts = {
            name: client.register_script(body)
            for name, body in (
                ("put", _PUT),
                ("append", _APPEND),
                ("drop", _DROP),
                ("put_conv", _PUT_CONV),
                ("add_items", _ADD_ITEMS),
                ("delete_item", _DELETE_ITEM),
            )
        }
        self._sync: Any = None  # a blocking client, for claim_replica / next_attempt
        self._waiters: dict[str, list[asyncio.Event]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._subscribed: asyncio.Event | None = None
        self.evicted = 0  # entries this process's writes dropped for a cap

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisStore:
        import redis.asyncio as redis

        return cls(redis.Redis.from_url(url), url=url, **options)

    def _key(self, response_id: str) -> str:
        return f"{self.prefix}resp:{response_id}"

    def _events(self, response_id: str) -> str:
        return f"{self.prefix}events:{response_id}"

    def _args(self) -> list[Any]:
        limits = self.limits
        conversation_ttl = limits.conversation_ttl_seconds
        return [
            self.prefix,
            repr(self._clock()),
            str(self.ttl_seconds or 0),
            str(0 if conversation_ttl is None else max(1, round(conversation_ttl))),
            str(limits.max_responses),
            str(limits.max_conversations),
            str(limits.max_bytes),
        ]

    async def _call(self, name: str, *args: Any) -> int:
        result = int(await self._scripts[name](keys=[], args=[*self._args(), *args]))
        if name not in ("drop", "delete_item"):
            self.evicted += result
        return result

    async def put(
        self, response: Mapping[str, Any], input_items: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        response_id = str(response["id"])
        items = b"" if input_items is None else orjson.dumps(list(input_items))
        status = str(response.get("status", ""))
        await self._call("put", response_id, orjson.dumps(response), status, items)

    async def get(self, response_id: str) -> dict[str, Any] | None:
        data = await self._redis.hget(self._key(response_id), "response")
        return None if data is None else _loads(data, dict)

    async def input_items(self, response_id: str) -> list[dict[str, Any]] | None:
        data = await self._redis.hget(self._key(response_id), "items")
        return None if data is None else _loads(data, list)

    async def delete(self, response_id: str) -> bool:
        return bool(await self._call("drop", "r", response_id))

    async def append_events(self, response_id: str, events: Sequence[Mapping[str, Any]]) -> None:
        if events:
            await self._call("append", response_id, *(orjson.dumps(e) for e in events))

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
        await self._call("put_conv", str(conversation["id"]), orjson.dumps(conversation))

    async def get_conversation(self, conversation_id: str) -> dict[str, Any] | None:
        data = await self._redis.get(self._conv(conversation_id))
        return None if data is None else _loads(data, dict)

    async def delete_conversation(self, conversation_id: str) -> bool:
        return bool(await self._call("drop", "c", conversation_id))

    async def add_conversation_items(
        self, conversation_id: str, items: Sequence[Mapping[str, Any]]
    ) -> None:
        if items:
            await self._call("add_items", conversation_id, *(orjson.dumps(i) for i in items))

    async def conversation_items(self, conversation_id: str) -> list[dict[str, Any]]:
        rows = await self._redis.lrange(self._conv_items(conversation_id), 0, -1)
        return [_loads(row, dict) for row in rows]

    async def delete_conversation_item(self, conversation_id: str, item_id: str) -> bool:
        key = self._conv_items(conversation_id)
        for row in await self._redis.lrange(key, 0, -1):
            if _loads(row, dict).get("id") == item_id:
                return bool(await self._call("delete_item", conversation_id, row))
        return False

    # --- several processes on one store (responses-mock --workers, replicas) ----------------
    def _blocking(self) -> Any:
        if self._sync is None:
            if self.url is None:
                raise RuntimeError("RedisStore.from_url(...) is needed for a blocking client")
            import redis

            self._sync = redis.Redis.from_url(self.url)
        return self._sync

    def claim_replica(self) -> int:
        """The number of processes that claimed one on this store before, plus one (1 for the
        first): a replica id no other process sharing the store has had."""
        return int(self._blocking().incr(f"{self.prefix}replicas"))

    def next_attempt(self, fingerprint: bytes, capacity: int = 100_000) -> int:
        """The n-th sight of request ``fingerprint`` across every process on this store (fault
        plans); at most ``capacity`` fingerprints, the least recently seen forgotten."""
        client = self._blocking()
        args = [self.prefix, fingerprint, repr(self._clock()), str(capacity)]
        return int(client.eval(_ATTEMPT, 0, *args))

    def reset_attempts(self) -> None:
        self._blocking().delete(f"{self.prefix}attempts", f"{self.prefix}attempts:age")

    def usage(self) -> dict[str, int]:
        """What the store holds by its own count: responses, conversations, bytes (``total``)."""
        client = self._blocking()
        return {
            "responses": int(client.zcard(f"{self.prefix}age:resp")),
            "conversations": int(client.zcard(f"{self.prefix}age:conv")),
            "bytes": int(client.get(f"{self.prefix}total") or 0),
        }

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        await self._redis.aclose()
        if self._sync is not None:
            self._sync.close()


def _loads(data: bytes, kind: type[Any]) -> Any:
    value = orjson.loads(data)
    assert isinstance(value, kind)
    return value
