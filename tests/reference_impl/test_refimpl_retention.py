"""Retention on every backend: count and byte caps for responses and
conversations, oldest first out; conversation TTLs; the SQLite file vacuumed back under its cap;
Redis keys and books settled on eviction; store-assigned replica numbers. Time moves by injected
clocks, never by sleeping."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from reference_impl.ids import ReplicaIds
from reference_impl.stores.base import StoreLimits
from reference_impl.stores.memory import MemoryStore
from reference_impl.stores.options import byte_size, make_store, replica_for
from reference_impl.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 0.001  # every write a little later: a strict age order
        return self.now


def response(n: int, pad: int = 0) -> dict[str, Any]:
    return {"id": f"resp_{n}", "object": "response", "status": "completed", "output": [],
            "pad": "x" * pad}  # fmt: skip


def conversation(n: int) -> dict[str, Any]:
    return {"id": f"conv_{n}", "object": "conversation", "created_at": 0, "metadata": {}}


def _store(kind: str, tmp_path: Path, limits: StoreLimits, request: pytest.FixtureRequest) -> Any:
    clock = Clock()
    if kind == "memory":
        return MemoryStore(limits.max_responses, limits=limits, clock=clock)
    if kind == "sqlite":
        return SQLiteStore(tmp_path / "r.db", limits=limits, clock=clock)
    from reference_impl.stores.redis import RedisStore

    url = request.getfixturevalue("redis_server")
    return RedisStore.from_url(url, prefix=f"ret{time.monotonic_ns()}:", limits=limits, clock=clock)


BACKENDS = ["memory", "sqlite", "redis"]


@pytest.fixture
async def small(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    store = _store(request.param, tmp_path, StoreLimits(5, 3, 10**9), request)
    yield store
    await store.close()


@pytest.mark.parametrize("small", BACKENDS, indirect=True)
async def test_count_caps_evict_the_oldest_responses_and_conversations(small: Any) -> None:
    for n in range(20):
        await small.put(response(n), [])
        await small.put_conversation(conversation(n))
        await small.add_conversation_items(f"conv_{n}", [{"id": f"msg_{n}", "type": "message"}])
    kept = [n for n in range(20) if await small.get(f"resp_{n}") is not None]
    assert kept == list(range(15, 20))
    conversations = [n for n in range(20) if await small.get_conversation(f"conv_{n}")]
    assert conversations == [17, 18, 19]
    assert await small.conversation_items("conv_3") == []  # its items went with it
    assert await small.conversation_items("conv_19") == [{"id": "msg_19", "type": "message"}]
    assert await small.events_after("resp_0", -1) == []


@pytest.mark.parametrize("kind", BACKENDS)
async def test_a_byte_cap_keeps_the_store_within_it(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    cap = 256 * 1024
    store = _store(kind, tmp_path, StoreLimits(10**6, 10**6, cap), request)
    for n in range(600):  # ~1.2 MB written: 4.7x the cap
        await store.put(response(n, pad=2000), [{"id": f"msg_{n}", "type": "message"}])
        await store.append_events(f"resp_{n}", [{"type": "t", "sequence_number": 0}])
        if n % 50 == 0:
            await store.put_conversation(conversation(n))
    assert await store.get("resp_0") is None  # the oldest went first
    assert await store.get("resp_599") is not None
    if kind == "memory":
        assert store.bytes <= cap
    elif kind == "sqlite":
        assert store.used_bytes() <= cap
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert os.path.getsize(tmp_path / "r.db") <= cap  # vacuumed: the file itself
    else:
        usage = store.usage()
        assert usage["bytes"] <= cap and 0 < usage["responses"] < 600
        client = store._blocking()
        keys = [k for k in client.scan_iter(f"{store.prefix}resp:*")]
        assert len(keys) == usage["responses"]  # no key outlives its books
        assert len(list(client.scan_iter(f"{store.prefix}events:*"))) == usage["responses"]
    assert store.evicted > 0
    await store.close()


@pytest.mark.parametrize("kind", BACKENDS)
async def test_conversations_expire_only_when_told(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    default = _store(kind, tmp_path / "a", StoreLimits(), request) if kind != "sqlite" else None
    if kind == "sqlite":
        (tmp_path / "a").mkdir()
        default = SQLiteStore(tmp_path / "a" / "r.db", clock=Clock())
    assert default is not None
    await default.put_conversation(conversation(1))
    default._clock = lambda: 10**12  # decades later: OpenAI keeps conversations, so do we
    assert await default.get_conversation("conv_1") is not None
    await default.close()
    if kind == "redis":
        return  # Redis expires keys on its own clock (EXPIRE); the memory/SQLite ones show it
    store = _store(kind, tmp_path, StoreLimits(conversation_ttl_seconds=60), request)
    await store.put_conversation(conversation(2))
    now = store._clock()
    store._clock = lambda: now + 61
    assert await store.get_conversation("conv_2") is None
    assert await store.conversation_items("conv_2") == []
    await store.close()


async def test_redis_conversation_ttl_is_a_key_ttl(request: pytest.FixtureRequest) -> None:
    from reference_impl.stores.redis import RedisStore

    url = request.getfixturevalue("redis_server")
    store = RedisStore.from_url(
        url, prefix=f"ttl{time.monotonic_ns()}:", ttl_seconds=30,
        limits=StoreLimits(conversation_ttl_seconds=90),
    )  # fmt: skip
    await store.put(response(1), [])
    await store.put_conversation(conversation(1))
    await store.add_conversation_items("conv_1", [{"id": "msg_1", "type": "message"}])
    client = store._blocking()
    assert 0 < client.ttl(f"{store.prefix}resp:resp_1") <= 30
    assert 60 < client.ttl(f"{store.prefix}conv:conv_1") <= 90
    assert 60 < client.ttl(f"{store.prefix}conv_items:conv_1") <= 90
    await store.close()


async def test_an_older_sqlite_file_is_converted_and_capped(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)  # the layout before retention: no stored_at on conversations
    db.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, conversation BLOB NOT NULL)")
    db.execute("INSERT INTO conversations VALUES ('conv_old', ?)", (b'{"id": "conv_old"}',))
    db.commit()
    db.close()
    store = SQLiteStore(path, limits=StoreLimits(max_conversations=2))
    assert store._db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
    assert await store.get_conversation("conv_old") == {"id": "conv_old"}
    for n in range(3):
        await store.put_conversation(conversation(n))
    assert await store.get_conversation("conv_old") is None  # the oldest went first
    assert store.counts()["conversations"] == 2
    await store.close()


async def test_sqlite_counts_survive_reopen(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "r.db", limits=StoreLimits(max_responses=3))
    for n in range(5):
        await store.put(response(n), [])
    await store.delete("resp_4")
    await store.close()
    again = SQLiteStore(tmp_path / "r.db", limits=StoreLimits(max_responses=3))
    assert again.counts()["responses"] == 2
    await again.put(response(9), [])
    await again.put(response(10), [])
    assert [n for n in (2, 3, 9, 10) if await again.get(f"resp_{n}")] == [3, 9, 10]
    await again.close()


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_a_shared_store_numbers_each_process_that_opens_it(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    spec = (
        f"sqlite:{tmp_path / 's.db'}"
        if kind == "sqlite"
        else request.getfixturevalue("redis_server").rstrip("/") + f"/{os.getpid() % 15 + 1}"
    )
    first, second = make_store(spec), make_store(spec)
    if kind == "redis":
        first._blocking().delete(f"{first.prefix}replicas")
    assert replica_for(first, None) is None  # the first keeps a single mock's ids
    assert replica_for(second, None) == "2"
    assert replica_for(second, "explicit") == "explicit"
    assert replica_for(MemoryStore(), None) is None
    await first.close()
    await second.close()


def test_reference_replica_ids_carry_their_replica() -> None:
    a, b = ReplicaIds("a"), ReplicaIds("b")
    ids_a = [a.new_id("resp") for _ in range(3)]
    assert len({i[5:13] for i in ids_a}) == 1 and ids_a[0][5:13] != b.new_id("resp")[5:13]
    assert all(len(i) == len("resp_") + 48 for i in ids_a)
    assert len(set(ids_a)) == 3  # still random after the tag
    call = a.new_id("call")
    assert call.startswith("call_") and len(call) == 29 and call[5:11] == a.new_id("call")[5:11]


def test_byte_sizes() -> None:
    assert byte_size("256Mi") == 256 * 2**20
    assert byte_size("1G") == 10**9 and byte_size("4096") == 4096 and byte_size("2kb") == 2000
    for bad in ("", "0", "-1", "1X", "Mi"):
        with pytest.raises(argparse.ArgumentTypeError):
            byte_size(bad)
