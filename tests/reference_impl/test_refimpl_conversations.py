"""The Conversations API and `conversation` on create, on every store backend (memory, SQLite,
Redis), and a conversation created on one Redis replica used from another.

Shapes are the SDK's (`Conversation`, `ConversationDeletedResource`, `ConversationItemList`,
`ConversationItem`); errors OpenAI's."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import openai
import orjson
import pytest
from openai.types.conversations import (
    Conversation,
    ConversationDeletedResource,
    ConversationItemList,
)
from openai.types.responses import Response
from replicas import redis_replicas

from mock_server.app import MockSettings
from mock_server.engine import MockEngine
from mock_server.ids import DeterministicIds
from mock_server.testing import InProcessMock
from reference_impl.service.app import create_app
from reference_impl.stores.memory import MemoryStore
from reference_impl.stores.sqlite import SQLiteStore

pytestmark = pytest.mark.anyio


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def app(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[httpx2.AsyncClient, MockEngine]]:
    if request.param == "memory":
        store: Any = MemoryStore()
    elif request.param == "sqlite":
        store = SQLiteStore(tmp_path / "state.db")
    else:
        from reference_impl.stores.redis import RedisStore

        url = request.getfixturevalue("redis_server")
        store = RedisStore.from_url(url, prefix=f"c{time.monotonic_ns()}:")
    engine = MockEngine(seed=2)
    asgi = create_app(engine, store=store, ids=DeterministicIds(2), clock=lambda: 1_700_000_000)
    transport = httpx2.ASGITransport(asgi)
    async with httpx2.AsyncClient(transport=transport, base_url="http://t") as client:
        yield client, engine
    await store.close()


def error_of(response: httpx2.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    return dict(error)


async def test_create_retrieve_update_delete(app: tuple[httpx2.AsyncClient, MockEngine]) -> None:
    client, _ = app
    created = await client.post(
        "/v1/conversations", json={"items": [user("hi"), user("there")], "metadata": {"k": "v"}}
    )
    assert created.status_code == 200, created.text
    conversation = Conversation.model_validate(created.json())
    assert conversation.object == "conversation" and conversation.id.startswith("conv_")
    assert conversation.metadata == {"k": "v"} and conversation.created_at == 1_700_000_000
    path = f"/v1/conversations/{conversation.id}"
    assert (await client.get(path)).json() == created.json()
    updated = await client.post(path, json={"metadata": {"k": "w", "x": "y"}})
    assert updated.json()["metadata"] == {"k": "w", "x": "y"}
    assert (await client.get(path)).json()["metadata"] == {"k": "w", "x": "y"}
    deleted = await client.delete(path)
    ConversationDeletedResource.model_validate(deleted.json())
    assert deleted.json() == {
        "id": conversation.id,
        "object": "conversation.deleted",
        "deleted": True,
    }
    for response in (
        await client.get(path),
        await client.post(path, json={"metadata": {}}),
        await client.delete(path),
        await client.get(path + "/items"),
    ):
        error = error_of(response, 404)
        assert error["message"] == f"Conversation with id '{conversation.id}' not found."


async def test_items_list_page_add_retrieve_delete(
    app: tuple[httpx2.AsyncClient, MockEngine],
) -> None:
    client, _ = app
    conv = (
        await client.post("/v1/conversations", json={"items": [user(f"m{i}") for i in range(3)]})
    ).json()
    path = f"/v1/conversations/{conv['id']}/items"
    added = await client.post(path, json={"items": [user("m3"), user("m4")]})
    assert added.status_code == 200, added.text
    batch = ConversationItemList.model_validate(added.json())
    assert [i.content[0].text for i in batch.data] == ["m3", "m4"]  # type: ignore[union-attr]
    everything = (await client.get(path, params={"order": "asc", "limit": 100})).json()
    texts = [i["content"][0]["text"] for i in everything["data"]]
    assert texts == ["m0", "m1", "m2", "m3", "m4"] and not everything["has_more"]
    newest_first = (await client.get(path)).json()  # default order desc, limit 20
    assert [i["content"][0]["text"] for i in newest_first["data"]] == texts[::-1]
    page = ConversationItemList.model_validate(
        (await client.get(path, params={"order": "asc", "limit": 2})).json()
    )
    assert page.has_more and page.first_id == everything["data"][0]["id"]
    rest = (
        await client.get(path, params={"order": "asc", "limit": 2, "after": page.last_id})
    ).json()
    assert [i["content"][0]["text"] for i in rest["data"]] == ["m2", "m3"] and rest["has_more"]
    second = everything["data"][1]
    assert (await client.get(f"{path}/{second['id']}")).json() == second
    after_delete = await client.delete(f"{path}/{second['id']}")
    Conversation.model_validate(after_delete.json())
    assert after_delete.json()["id"] == conv["id"]
    remaining = (await client.get(path, params={"order": "asc"})).json()["data"]
    assert [i["content"][0]["text"] for i in remaining] == ["m0", "m2", "m3", "m4"]
    assert error_of(await client.get(f"{path}/{second['id']}"), 404)["message"] == (
        f"Item with id '{second['id']}' not found."
    )
    error_of(await client.delete(f"{path}/{second['id']}"), 404)
    assert error_of(await client.get(path, params={"limit": 0}), 400)["param"] == "limit"
    assert error_of(await client.get(path, params={"order": "up"}), 400)["param"] == "order"
    assert (
        error_of(await client.get(path, params={"after": "msg_nowhere"}), 400)["param"] == "after"
    )
    assert (
        error_of(await client.get(path, params={"include": "bogus"}), 400)["param"] == "include[0]"
    )
    ok = await client.get(path, params={"include": "message.input_image.image_url"})
    assert ok.status_code == 200
    assert error_of(await client.post(path, json={"items": []}), 400)["param"] == "items"
    assert (
        error_of(await client.post(path, json={"items": [user("x")] * 21}), 400)["param"] == "items"
    )
    bad = await client.post(path, json={"items": [{"type": "shell_call", "call_id": "c"}]})
    assert error_of(bad, 400)["param"] == "items[0].action"
    assert (
        error_of(await client.post(path, json={"items": [], "x": 1}), 400)["code"]
        == "unknown_parameter"
    )


@pytest.mark.parametrize("mode", ["json", "stream", "background"])
async def test_a_response_in_a_conversation_sees_it_and_joins_it(
    app: tuple[httpx2.AsyncClient, MockEngine], mode: str
) -> None:
    client, engine = app
    conv = (
        await client.post("/v1/conversations", json={"items": [user("My name is Ada.")]})
    ).json()
    body: dict[str, Any] = {
        "model": "mock-text",
        "input": "What is my name?",
        "conversation": conv["id"],
    }
    if mode == "stream":
        body["stream"] = True
    if mode == "background":
        body["background"] = True
    created = await client.post("/v1/responses", json=body)
    assert created.status_code == 200, created.text
    if mode == "background":
        response_id = created.json()["id"]
        for _ in range(200):
            final = (await client.get(f"/v1/responses/{response_id}")).json()
            if final["status"] == "completed":
                break
            await anyio.sleep(0.01)
    elif mode == "json":
        final = created.json()
    else:
        events = [
            orjson.loads(line[6:])
            for line in created.content.split(b"\n")
            if line.startswith(b"data: {")
        ]
        assert events[-1]["type"] == "response.completed"
        final = events[-1]["response"]
    Response.model_validate(final)
    assert final["conversation"] == {"id": conv["id"]}
    seen = [m.content for m in engine.requests[-1].messages if m.role == "user"]
    assert seen == ["My name is Ada.", "What is my name?"]
    items = (
        await client.get(f"/v1/conversations/{conv['id']}/items", params={"order": "asc"})
    ).json()["data"]
    assert [i["type"] for i in items] == [
        "message",
        "message",
        *[o["type"] for o in final["output"]],
    ]
    assert items[1]["content"][0]["text"] == "What is my name?"
    assert [i["id"] for i in items[2:]] == [o["id"] for o in final["output"]]
    # the object form, next turn: the whole history, the previous answer included
    again = await client.post(
        "/v1/responses",
        json={"model": "mock-text", "input": "And again?", "conversation": {"id": conv["id"]}},
    )
    assert again.status_code == 200, again.text
    turns = engine.requests[-1].messages
    assert [m.role for m in turns] == ["user", "user", "assistant", "user"]


async def test_conversation_errors(app: tuple[httpx2.AsyncClient, MockEngine]) -> None:
    client, _ = app
    conv = (await client.post("/v1/conversations", json={})).json()
    assert conv["metadata"] == {}
    first = (await client.post("/v1/responses", json={"model": "mock-text", "input": "x"})).json()
    both = await client.post(
        "/v1/responses",
        json={
            "model": "mock-text",
            "input": "x",
            "conversation": conv["id"],
            "previous_response_id": first["id"],
        },
    )
    assert error_of(both, 400) == {
        "message": "Mutually exclusive parameters. Ensure you are only providing one of: "
        "'previous_response_id' or 'conversation'.",
        "type": "invalid_request_error",
        "param": None,
        "code": "mutually_exclusive_parameters",
    }
    unknown = await client.post(
        "/v1/responses", json={"model": "mock-text", "input": "x", "conversation": "conv_nowhere"}
    )
    assert error_of(unknown, 404)["message"] == "Conversation with id 'conv_nowhere' not found."
    assert (
        error_of(
            await client.post(
                "/v1/responses", json={"model": "mock-text", "input": "x", "conversation": 3}
            ),
            400,
        )["param"]
        == "conversation"
    )
    assert (
        error_of(
            await client.post(
                "/v1/responses", json={"model": "mock-text", "input": "x", "conversation": {}}
            ),
            400,
        )["param"]
        == "conversation.id"
    )
    assert (
        error_of(await client.post("/v1/conversations", json={"metadata": {"k": 1}}), 400)["param"]
        == "metadata.k"
    )
    assert (
        error_of(await client.post("/v1/conversations", json={"item": []}), 400)["code"]
        == "unknown_parameter"
    )
    assert (
        error_of(await client.post(f"/v1/conversations/{conv['id']}", json={}), 400)["param"]
        == "metadata"
    )
    # nothing was appended by the refused requests
    assert (await client.get(f"/v1/conversations/{conv['id']}/items")).json()["data"] == []


def test_the_sdk_drives_conversations_end_to_end() -> None:
    mock = InProcessMock(MockSettings(frozen_time=1_700_000_000))
    try:
        client = mock.client()
        conv = client.conversations.create(items=[user("I like tea.")], metadata={"topic": "t"})
        first = client.responses.create(
            model="mock-text", input="What do I like?", conversation=conv.id
        )
        assert first.conversation is not None and first.conversation.id == conv.id
        client.conversations.items.create(conv.id, items=[user("Also coffee.")])
        listed = list(
            client.conversations.items.list(conv.id, order="asc", limit=1)
        )  # pages of one
        assert len(listed) == 3 + len(first.output)  # tea, the question, the answer, coffee
        assert (
            client.conversations.items.retrieve(listed[0].id, conversation_id=conv.id).id
            == listed[0].id
        )
        assert client.conversations.update(conv.id, metadata={"topic": "u"}).metadata == {
            "topic": "u"
        }
        assert client.conversations.delete(conv.id).deleted
        with pytest.raises(openai.NotFoundError):
            client.conversations.retrieve(conv.id)
    finally:
        mock.close()


@pytest.fixture
def replicas(redis_server: str) -> Iterator[tuple[str, str]]:
    with redis_replicas(redis_server, "--inter-token", "0") as urls:
        yield urls


def test_a_conversation_made_on_one_replica_is_used_from_another(replicas: tuple[str, str]) -> None:
    a, b = replicas
    with httpx2.Client(timeout=20) as http:
        conv = http.post(
            f"{a}/v1/conversations", json={"items": [user("The code word is plum.")]}
        ).json()
        turn = http.post(
            f"{b}/v1/responses",
            json={"model": "mock-text", "input": "The code word?", "conversation": conv["id"]},
        )
        assert turn.status_code == 200, turn.text
        assert turn.json()["conversation"] == {"id": conv["id"]}
        items = http.get(
            f"{a}/v1/conversations/{conv['id']}/items", params={"order": "asc"}
        ).json()["data"]
        assert [i["type"] for i in items[:2]] == ["message", "message"]
        assert items[0]["content"][0]["text"] == "The code word is plum."
        assert items[1]["content"][0]["text"] == "The code word?"
        assert [i["id"] for i in items[2:]] == [o["id"] for o in turn.json()["output"]]
        assert http.delete(f"{b}/v1/conversations/{conv['id']}").json()["deleted"] is True
        assert http.get(f"{a}/v1/conversations/{conv['id']}").status_code == 404


async def test_a_failed_turn_leaves_the_conversation_as_it_was(
    app: tuple[httpx2.AsyncClient, MockEngine],
) -> None:
    client, _ = app
    conv = (await client.post("/v1/conversations", json={"items": [user("hi")]})).json()
    failed = await client.post(
        "/v1/responses", json={"model": "mock-failure", "input": "x", "conversation": conv["id"]}
    )
    assert failed.status_code >= 400
    items = (await client.get(f"/v1/conversations/{conv['id']}/items")).json()["data"]
    assert [i["content"][0]["text"] for i in items] == ["hi"]
