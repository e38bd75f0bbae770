"""The Redis store against a real ``redis-server`` (Debian package; .ci/run installs it): the store
contract, and two replica *processes* on one Redis — a response created on one is retrievable,
cancellable and chainable on the other."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import orjson
import pytest
from replicas import redis_replicas

redis = pytest.importorskip("redis", reason="pip install 'responses-conformance[redis]'")

from benchmarks.perf.localhost import free_port as _free_port  # noqa: E402
from reference_impl.stores.base import ResponseStore  # noqa: E402
from reference_impl.stores.redis import RedisStore  # noqa: E402

LONG = {"model": "mock-long-text", "input": "Tell me a long story.", "background": True}


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(workdir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 10
    while True:  # poll until it answers
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise
            time.sleep(0.02)
    client.close()
    yield f"redis://127.0.0.1:{port}/0"
    server.terminate()
    server.wait(10)


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    backend = RedisStore.from_url(redis_url, prefix=f"t{time.monotonic_ns()}:")
    yield backend
    await backend.close()


def response(response_id: str, status: str = "completed") -> dict[str, Any]:
    return {"id": response_id, "object": "response", "status": status, "output": []}


@pytest.mark.anyio
async def test_contract(store: RedisStore) -> None:
    assert isinstance(store, ResponseStore)
    items = [{"id": "msg_1", "type": "message", "role": "user", "content": []}]
    await store.put(response("resp_1", "in_progress"), items)
    await store.put(response("resp_1"))  # an update keeps the input items
    assert await store.get("resp_1") == response("resp_1")
    assert await store.input_items("resp_1") == items
    assert await store.get("resp_2") is None and await store.input_items("resp_2") is None
    events = [{"type": "t", "sequence_number": n} for n in range(5)]
    await store.append_events("resp_1", events[:2])
    await store.append_events("resp_1", events[2:])
    assert await store.events_after("resp_1", -1) == events
    assert await store.events_after("resp_1", 2) == events[3:]
    assert not await store.cancel_requested("resp_1")
    await store.request_cancel("resp_1")
    assert await store.cancel_requested("resp_1")
    assert await store.delete("resp_1")
    assert not await store.delete("resp_1")
    assert await store.get("resp_1") is None and await store.events_after("resp_1", -1) == []


@pytest.mark.anyio
async def test_cancelled_is_final(store: RedisStore) -> None:
    await store.put(response("resp_1", "cancelled"), [])
    await store.put(response("resp_1", "completed"))  # a late write from the replica that ran it
    assert (await store.get("resp_1") or {})["status"] == "cancelled"


@pytest.mark.anyio
async def test_wait_cancel_hears_another_client(store: RedisStore, redis_url: str) -> None:
    import anyio

    await store.put(response("resp_1", "in_progress"), [])
    other = RedisStore.from_url(redis_url, prefix=store.prefix)
    watch = redis.Redis.from_url(redis_url)
    patterns = watch.pubsub_numpat()
    try:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(store.wait_cancel, "resp_1")
                # Once the waiter's pattern subscription is in, the cancel reaches it as a
                # message (before, the flag it reads after subscribing would answer instead).
                while watch.pubsub_numpat() == patterns:
                    await anyio.sleep(0.01)
                await other.request_cancel("resp_1")
    finally:
        watch.close()
        await other.close()


@pytest.fixture
def replicas(redis_url: str) -> Iterator[tuple[str, str]]:
    with redis_replicas(redis_url) as urls:
        yield urls


def _poll(client: httpx2.Client, url: str, response_id: str, statuses: set[str]) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        body = client.get(f"{url}/v1/responses/{response_id}").json()
        if body.get("status") in statuses or time.monotonic() > deadline:
            return dict(body)
        time.sleep(0.05)


def test_cross_replica_retrieve_cancel_and_chain(replicas: tuple[str, str], redis_url: str) -> None:
    a, b = replicas
    log = redis.Redis.from_url(redis_url)
    with httpx2.Client(timeout=30) as client:
        # Created on A, running on A; retrieved and cancelled on B.
        created = client.post(f"{a}/v1/responses", json=LONG).json()
        rid = created["id"]
        running = _poll(client, b, rid, {"in_progress"})
        assert running["status"] == "in_progress"
        cancelled = client.post(f"{b}/v1/responses/{rid}/cancel").json()
        assert cancelled["status"] == "cancelled"
        # A heard it: its task stopped. A live follow on A ends only once it has (a running
        # task streams on to its terminal event): no terminal event, every logged event, far
        # short of the ~500 tokens of the scenario; and its late writes cannot undo the cancel.
        with client.stream("GET", f"{a}/v1/responses/{rid}", params={"stream": "true"}) as live:
            followed = [
                orjson.loads(line[6:])["type"]
                for line in live.iter_lines()
                if line.startswith("data: {")
            ]
        assert not {"response.completed", "response.incomplete", "response.failed"} & set(followed)
        assert log.llen(f"responses:events:{rid}") == len(followed) < 200
        on_a = client.get(f"{a}/v1/responses/{rid}").json()
        assert on_a["status"] == "cancelled"
        again = client.post(f"{a}/v1/responses/{rid}/cancel").json()
        assert again["status"] == "cancelled"  # idempotent on either replica

        # Chained across replicas: the turn on B sees A's input and output.
        first = client.post(
            f"{a}/v1/responses", json={"model": "mock", "input": "Hi there."}
        ).json()
        second = client.post(
            f"{b}/v1/responses",
            json={"model": "mock", "input": "And again.", "previous_response_id": first["id"]},
        ).json()
        assert second["status"] == "completed"
        assert second["previous_response_id"] == first["id"]
        items = client.get(f"{b}/v1/responses/{second['id']}/input_items?order=asc").json()["data"]
        ids = [item["id"] for item in items]
        assert first["output"][0]["id"] in ids  # A's output is in B's history
        assert client.get(f"{a}/v1/responses/{second['id']}").json() == second

        # Deleted on B: gone on A.
        assert client.delete(f"{b}/v1/responses/{first['id']}").json()["deleted"] is True
        assert client.get(f"{a}/v1/responses/{first['id']}").status_code == 404
    log.close()
