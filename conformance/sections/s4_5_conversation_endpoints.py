"""§4.5 Conversations (docs/spec.md#s4-5) across requests: ``live.conversation.*``.

The conversation endpoints ([OAPI] ``/v1/conversations``) and ``conversation`` on create, as a
live run sees them: a conversation is created with its metadata and items, retrieved as created
and updated; a response created in it echoes ``conversation: {id}`` and sees its earlier turns;
a turn appends its input, then its output, to the conversation's items, which page with
``limit``, ``order`` and ``after``; DELETE answers ``deleted: true`` and the conversation is gone;
``conversation`` with ``previous_response_id`` is a 400, an unknown conversation id a 404. Each
check's rule is the case below that evaluates it (:mod:`.cases`), run against a target that
declares ``conversations``; every body the cases get is judged by the state-object checks too
(``conversation.*``, ``item_list.*``: :mod:`.s4_5_conversations`). Each failing example is a
misbehaving server (tests/suite/broken_state_servers.py), its near miss the embedded mock.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, register
from ..suite import answers as A
from .case_support import repeats_the_code_word
from .cases import case

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "CONVERSATION_CRUD",
    "CONVERSATION_DELETE",
    "CONVERSATION_ECHO",
    "CONVERSATION_HISTORY",
    "CONVERSATION_ITEMS_APPENDED",
    "CONVERSATION_ITEMS_PAGING",
    "CONVERSATION_UNKNOWN",
    "CONVERSATION_WITH_PREVIOUS",
    "declare_examples",
]

CONVERSATIONS = ("conversations",)

CONVERSATION_CRUD = register(
    "live.conversation.crud",
    Level.MUST,
    "§4.5 [OAPI] ConversationResource",
    "a conversation is created with its metadata and items, retrieved as created, and its "
    "metadata updated",
    profile="conversations",
)
CONVERSATION_ECHO = register(
    "live.conversation.echo",
    Level.MUST,
    "§4.5 [OAPI] Response [REC] pydantic-ai cassettes",
    "a response created with `conversation` echoes `conversation: {id}`",
    profile="conversations",
)
CONVERSATION_HISTORY = register(
    "live.conversation.history",
    Level.MUST,
    "§4.5 [OAPI] ConversationParam",
    "a response created with `conversation` sees the conversation's earlier turns (it recalls a "
    "code word an earlier turn gave)",
    profile="conversations",
)
CONVERSATION_ITEMS_APPENDED = register(
    "live.conversation.items_appended",
    Level.MUST,
    "§4.5 [OAPI] ConversationParam",
    "after a turn, the conversation's items are its earlier items, then the turn's input, then "
    "its output, in order",
    profile="conversations",
)
CONVERSATION_ITEMS_PAGING = register(
    "live.conversation.items_paging",
    Level.MUST,
    "§4.5 [OAPI] ConversationItemList",
    "conversation items page with `limit`, `order` and `after`, and `has_more` says whether more "
    "follow",
    profile="conversations",
)
CONVERSATION_DELETE = register(
    "live.conversation.delete",
    Level.MUST,
    "§4.5 [OAPI] DeletedConversationResource",
    "DELETE answers `{id, object: conversation.deleted, deleted: true}`; the conversation is then "
    "gone (404)",
    profile="conversations",
)
CONVERSATION_WITH_PREVIOUS = register(
    "live.conversation.with_previous_response",
    Level.MUST,
    "§4.5 [OAPI] CreateResponse",
    "`conversation` with `previous_response_id` is a 400 `invalid_request_error`",
    profile="conversations",
)
CONVERSATION_UNKNOWN = register(
    "live.conversation.unknown",
    Level.MUST,
    "§4.5, §4.4",
    "an unknown conversation id is a 404 in OpenAI's error shape, on retrieve and on create",
    profile="conversations",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    for check, server, note in (
        (CONVERSATION_CRUD, "update_ignored",
         "a server whose `POST /conversations/{id}` answers 200 and keeps the old metadata"),
        (CONVERSATION_ECHO, "conversation_not_echoed",
         "a server whose Responses say `conversation: null` although one was given"),
        (CONVERSATION_HISTORY, "conversation_ignored",
         "a server that silently ignores `conversation` on create (echoing it all the same)"),
        (CONVERSATION_ITEMS_APPENDED, "items_reversed",
         "a server that lists a conversation's items in the wrong order"),
        (CONVERSATION_ITEMS_PAGING, "paging_ignored",
         "a server that ignores `limit` and `after` on conversation items"),
        (CONVERSATION_DELETE, "conversation_delete_keeps_it",
         "a server whose DELETE answers `deleted: true` and deletes nothing"),
        (CONVERSATION_WITH_PREVIOUS, "previous_response_dropped",
         "a server that accepts `conversation` with `previous_response_id`, dropping the id"),
        (CONVERSATION_UNKNOWN, "unknown_conversation_500",
         "a server that answers 500 for an unknown conversation id"),
    ):  # fmt: skip
        live(check.id, server, note)


_UNKNOWN = "conv_conformance0000000000000000000000000unknown"


def _create(probe: Probe, **body: Any) -> dict[str, Any]:
    ex = probe.send("POST", "/conversations", json_body=body)
    probe.require(
        CONVERSATION_CRUD, ex.status == 200 and ex.json.get("object") == "conversation"
        and isinstance(ex.json.get("id"), str), ex,
        expected="HTTP 200 with a conversation object",
        actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    return ex.json


def _items(probe: Probe, cid: str, check: Any, **params: str) -> dict[str, Any]:
    ex = probe.send("GET", f"/conversations/{cid}/items", params=params)
    probe.require(
        check, ex.status == 200 and ex.json.get("object") == "list", ex,
        expected="HTTP 200 with an item list", actual=f"HTTP {ex.status}",
    )  # fmt: skip
    return ex.json


def _texts(page: dict[str, Any]) -> list[tuple[str, str]]:
    """(type or role, text) of each item of a page, for comparing orders."""
    out = []
    data = page.get("data")
    for item in data if isinstance(data, list) else ():
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        parts: list[Any] = content if isinstance(content, list) else []
        text = "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and "text" in p)
        out.append((str(item.get("role") or item.get("type")), text))
    return out


def _turn(probe: Probe, cid: str, text: str, **extra: Any) -> dict[str, Any]:
    response = probe.create(probe.body(input=text, conversation=cid, **extra))
    conversation = response.get("conversation")
    got = conversation.get("id") if isinstance(conversation, dict) else conversation
    probe.check(
        CONVERSATION_ECHO, got == cid, probe.last,
        expected=f"conversation: {{id: {cid!r}}}", actual=repr(conversation),
    )  # fmt: skip
    return response


@case("conversations", CONVERSATION_CRUD, profiles=CONVERSATIONS)
def test_conversation_crud(probe: Probe) -> None:
    item = {"type": "message", "role": "user", "content": "Hello from the conformance suite."}
    created = _create(probe, metadata={"suite": "conformance"}, items=[item])
    cid = created["id"]
    probe.check(
        CONVERSATION_CRUD, created.get("metadata") == {"suite": "conformance"}, probe.last,
        expected="metadata as sent", actual=repr(created.get("metadata")),
    )  # fmt: skip
    got = probe.send("GET", f"/conversations/{cid}")
    probe.check(
        CONVERSATION_CRUD, got.status == 200 and got.json == created, got,
        expected="the created conversation", actual=f"HTTP {got.status} {got.body!r}"[:300],
    )  # fmt: skip
    updated = probe.send("POST", f"/conversations/{cid}", json_body={"metadata": {"k": "v"}})
    probe.check(
        CONVERSATION_CRUD,
        updated.status == 200 and updated.json.get("metadata") == {"k": "v"}
        and updated.json.get("id") == cid, updated,
        expected="HTTP 200, metadata replaced by {'k': 'v'}",
        actual=f"HTTP {updated.status} {updated.body!r}"[:300],
    )  # fmt: skip
    page = _items(probe, cid, CONVERSATION_CRUD, order="asc")
    probe.check(
        CONVERSATION_CRUD, _texts(page) == [("user", item["content"])], probe.last,
        expected="the initial item", actual=_texts(page),
    )  # fmt: skip


@case(
    "conversations", CONVERSATION_HISTORY, CONVERSATION_ECHO, CONVERSATION_CRUD,
    profiles=CONVERSATIONS, attempts=3, needs_instructions=True,
)  # fmt: skip
def test_conversation_history_recall(probe: Probe) -> None:
    word = f"{random.choice(('HERON', 'SAFFRON', 'NEBULA', 'QUINCE'))}-{random.randint(100, 999)}"
    cid = _create(probe)["id"]
    _turn(probe, cid, f"Remember this code word: {word}. Reply only with OK.")
    _turn(probe, cid, "Reply only with the name of one colour.")
    third = _turn(
        probe, cid,
        "What was the code word I asked you to remember? Reply with the code word only.",
    )  # fmt: skip
    text = A.output_text(third)
    repeats_the_code_word(
        probe, CONVERSATION_HISTORY, word, text, probe.last, "from two turns back"
    )


@case(
    "conversations", CONVERSATION_ITEMS_APPENDED, CONVERSATION_ECHO, CONVERSATION_CRUD,
    profiles=CONVERSATIONS,
)  # fmt: skip
def test_conversation_items_appended_in_order(probe: Probe) -> None:
    seed = {"type": "message", "role": "user", "content": "Seed item one."}
    cid = _create(probe, items=[seed])["id"]
    first = _turn(probe, cid, "Reply only with OK.")
    second = _turn(probe, cid, "Reply only with YES.")
    page = _items(probe, cid, CONVERSATION_ITEMS_APPENDED, order="asc", limit="100")
    data = [i for i in page.get("data") or () if isinstance(i, dict)]
    want = [
        ("user", "Seed item one."),
        ("user", "Reply only with OK."),
        *[("out", str(i.get("id"))) for i in A.items_of(first)],
        ("user", "Reply only with YES."),
        *[("out", str(i.get("id"))) for i in A.items_of(second)],
    ]
    got: list[tuple[str, str]] = []
    for item, (kind, _) in zip(data, want, strict=False):
        if kind == "out":
            got.append(("out", str(item.get("id"))))
        else:
            got.append(_texts({"data": [item]})[0])
    got += [("extra", str(i.get("type"))) for i in data[len(want) :]]
    probe.check(
        CONVERSATION_ITEMS_APPENDED, got == want, probe.last,
        expected=f"{want} (the output items by their ids)", actual=got,
    )  # fmt: skip


@case("conversations", CONVERSATION_ITEMS_PAGING, CONVERSATION_CRUD, profiles=CONVERSATIONS)
def test_conversation_items_paging(probe: Probe) -> None:
    texts = [f"Paging item {n}." for n in range(1, 6)]
    items = [{"type": "message", "role": "user", "content": t} for t in texts]
    cid = _create(probe, items=items)["id"]
    check = CONVERSATION_ITEMS_PAGING
    page = _items(probe, cid, check, order="asc", limit="2")
    probe.check(
        check, [t for _, t in _texts(page)] == texts[:2] and page.get("has_more") is True,
        probe.last, expected=f"order=asc&limit=2: {texts[:2]}, has_more: true",
        actual=f"{[t for _, t in _texts(page)]}, has_more: {page.get('has_more')!r}",
    )  # fmt: skip
    last = page.get("last_id")
    if isinstance(last, str):
        rest = _items(probe, cid, check, order="asc", limit="10", after=last)
        probe.check(
            check, [t for _, t in _texts(rest)] == texts[2:] and rest.get("has_more") is False,
            probe.last, expected=f"after=<last_id>: {texts[2:]}, has_more: false",
            actual=f"{[t for _, t in _texts(rest)]}, has_more: {rest.get('has_more')!r}",
        )  # fmt: skip
    desc = _items(probe, cid, check, order="desc", limit="10")
    probe.check(
        check, [t for _, t in _texts(desc)] == texts[::-1], probe.last,
        expected=f"order=desc: {texts[::-1]}", actual=[t for _, t in _texts(desc)],
    )  # fmt: skip


@case("conversations", CONVERSATION_DELETE, CONVERSATION_CRUD, profiles=CONVERSATIONS)
def test_conversation_delete(probe: Probe) -> None:
    cid = _create(probe)["id"]
    ex = probe.send("DELETE", f"/conversations/{cid}")
    want = {"id": cid, "object": "conversation.deleted", "deleted": True}
    probe.require(
        CONVERSATION_DELETE, ex.status == 200 and {k: ex.json.get(k) for k in want} == want,
        ex, expected=f"HTTP 200 {want}", actual=f"HTTP {ex.status} {ex.body or ex.text!r}"[:300],
    )  # fmt: skip
    after = probe.send("GET", f"/conversations/{cid}")
    probe.check(
        CONVERSATION_DELETE, after.status == 404, after,
        expected="GET after delete → HTTP 404", actual=f"HTTP {after.status}",
    )  # fmt: skip


@case("conversations", CONVERSATION_WITH_PREVIOUS, CONVERSATION_CRUD, profiles=CONVERSATIONS)
def test_conversation_with_previous_response_id(probe: Probe) -> None:
    cid = _create(probe)["id"]
    previous = probe.create(probe.body(input="Reply only with OK."))
    body = probe.body(
        input="Reply only with OK.", conversation=cid, previous_response_id=previous.get("id")
    )
    ex = probe.send("POST", "/responses", json_body=body)
    error = ex.json.get("error")
    kind = error.get("type") if isinstance(error, dict) else None
    probe.check(
        CONVERSATION_WITH_PREVIOUS, ex.status == 400 and kind == "invalid_request_error", ex,
        expected="HTTP 400 invalid_request_error", actual=f"HTTP {ex.status}, type {kind!r}",
    )  # fmt: skip


@case("conversations", CONVERSATION_UNKNOWN, profiles=CONVERSATIONS)
def test_conversation_unknown(probe: Probe) -> None:
    got = probe.send("GET", f"/conversations/{_UNKNOWN}")
    probe.check(
        CONVERSATION_UNKNOWN, got.status == 404 and isinstance(got.json.get("error"), dict),
        got, expected="HTTP 404 with an error body", actual=f"HTTP {got.status}",
    )  # fmt: skip
    ex = probe.send("POST", "/responses", json_body=probe.body(input="Hi.", conversation=_UNKNOWN))
    probe.check(
        CONVERSATION_UNKNOWN, ex.status == 404 and isinstance(ex.json.get("error"), dict), ex,
        expected="HTTP 404 with an error body", actual=f"HTTP {ex.status}",
    )  # fmt: skip
