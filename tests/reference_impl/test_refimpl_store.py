"""Store backends: the shared contract on both, LRU cap and TTL, SQLite durability."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from refimpl_support import ScriptedEngine, text_script

from reference_impl.service.app import create_app
from reference_impl.stores.base import DEFAULT_MAX_RESPONSES, ItemLookup, ResponseStore
from reference_impl.stores.memory import MemoryStore
from reference_impl.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def response(response_id: str, status: str = "completed") -> dict[str, Any]:
    return {"id": response_id, "object": "response", "status": status, "output": []}


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ResponseStore]:
    backend: ResponseStore = (
        MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "r.db")
    )
    yield backend
    await backend.close()


async def test_contract(store: ResponseStore) -> None:
    assert isinstance(store, ResponseStore)
    items = [{"id": "msg_1", "type": "message", "role": "user", "content": []}]
    await store.put(response("resp_1", "in_progress"), items)
    await store.put(response("resp_1"))  # update keeps the input items
    assert (await store.get("resp_1")) == response("resp_1")
    assert await store.input_items("resp_1") == items
    assert await store.get("resp_2") is None and await store.input_items("resp_2") is None

    events = [{"type": "t", "sequence_number": n} for n in range(5)]
    await store.append_events("resp_1", events[:2])
    await store.append_events("resp_1", events[2:])
    assert await store.events_after("resp_1", -1) == events
    assert await store.events_after("resp_1", 2) == events[3:]
    assert await store.events_after("resp_1", 4) == []

    assert not await store.cancel_requested("resp_1")
    await store.request_cancel("resp_1")
    assert await store.cancel_requested("resp_1")

    stored = await store.get("resp_1")
    assert stored is not None
    stored["status"] = "mutated"  # what get() returns is a copy
    assert (await store.get("resp_1")) == response("resp_1")

    assert await store.delete("resp_1")
    assert not await store.delete("resp_1")
    assert await store.get("resp_1") is None
    assert await store.events_after("resp_1", -1) == []


async def test_memory_store_evicts_the_least_recently_used() -> None:
    assert DEFAULT_MAX_RESPONSES == 10_000
    store = MemoryStore(max_responses=2)
    await store.put(response("resp_a"))
    await store.put(response("resp_b"))
    await store.get("resp_a")  # a is now more recent than b
    await store.put(response("resp_c"))
    assert len(store) == 2
    assert await store.get("resp_b") is None
    assert await store.get("resp_a") is not None and await store.get("resp_c") is not None


async def test_memory_store_ttl_with_an_injected_clock() -> None:
    clock = Clock()
    store = MemoryStore(ttl_seconds=60, clock=clock)
    await store.put(response("resp_a"))
    clock.now += 30
    await store.put(response("resp_b"))
    clock.now += 31  # a is 61 s old, b 31 s
    assert await store.get("resp_a") is None
    assert await store.get("resp_b") is not None
    clock.now += 100
    await store.put(response("resp_c"))  # a write sweeps expired entries
    assert len(store) == 1


async def test_sqlite_store_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "responses.db"
    first = SQLiteStore(path)
    await first.put(response("resp_1"), [{"id": "msg_1", "type": "message"}])
    await first.append_events("resp_1", [{"type": "response.created", "sequence_number": 0}])
    await first.close()

    second = SQLiteStore(path)
    assert await second.get("resp_1") == response("resp_1")
    assert await second.input_items("resp_1") == [{"id": "msg_1", "type": "message"}]
    assert await second.events_after("resp_1", -1) == [
        {"type": "response.created", "sequence_number": 0}
    ]
    await second.close()


async def test_sqlite_store_ttl(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "ttl.db", ttl_seconds=10, clock=clock)
    await store.put(response("resp_1"))
    clock.now += 11
    assert await store.get("resp_1") is None
    await store.close()


def test_memory_store_rejects_a_zero_cap() -> None:
    with pytest.raises(ValueError):
        MemoryStore(max_responses=0)


async def test_app_on_sqlite_keeps_responses_and_chains_across_restart(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    engine = ScriptedEngine(text_script("remembered"))
    first_store = SQLiteStore(path)
    async with client_for(engine, first_store) as http:
        created = (await http.post("/v1/responses", json={"model": "m", "input": "hi"})).json()
    await first_store.close()

    second_store = SQLiteStore(path)  # a new process, the same file
    async with client_for(engine, second_store) as http:
        again = (await http.get(f"/v1/responses/{created['id']}")).json()
        assert again == created
        follow_up = {"model": "m", "input": "and?", "previous_response_id": created["id"]}
        assert (await http.post("/v1/responses", json=follow_up)).status_code == 200
    await second_store.close()
    assert [m.content for m in engine.requests[-1].messages] == ["hi", "remembered", "and?"]


def client_for(engine: ScriptedEngine, store: ResponseStore) -> httpx2.AsyncClient:
    app = create_app(engine, store=store)
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://test")


async def test_memory_store_keeps_right_sized_copies() -> None:
    # orjson returns its whole write buffer (>= 4 KiB) with only the length trimmed; held as is,
    # a 1.3 KB response pinned ~16 KB (benchmarks/perf/store_memory.py).
    import tracemalloc

    store = MemoryStore(max_responses=1000)
    big = {**response("resp_0"), "instructions": "x" * 1300}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(200):
            await store.put({**big, "id": f"resp_{n}"}, [{"type": "message", "content": "hi"}])
        per_response = (tracemalloc.get_traced_memory()[0] - before) / 200
    finally:
        tracemalloc.stop()
    assert per_response < 2 * 1500, per_response


async def test_output_items_are_found_by_id(store: ResponseStore) -> None:
    assert isinstance(store, ItemLookup)
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    await store.put(response("resp_1", "in_progress"), [])
    assert await store.item("msg_1") is None
    await store.put({**response("resp_1"), "output": [message]})
    assert await store.item("msg_1") == message
    assert await store.item("msg_2") is None
    await store.delete("resp_1")
    assert await store.item("msg_1") is None


async def test_memory_store_forgets_items_of_evicted_responses() -> None:
    store = MemoryStore(max_responses=1)
    await store.put({**response("resp_1"), "output": [{"id": "msg_1", "type": "message"}]})
    await store.put({**response("resp_2"), "output": [{"id": "msg_2", "type": "message"}]})
    assert await store.item("msg_1") is None and await store.item("msg_2") is not None
    assert store._items == {"msg_2": "resp_2"}
