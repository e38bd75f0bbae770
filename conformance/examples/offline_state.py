"""Examples of the state-object checks (``conversation.*``, ``item_list.*``): the bodies of the
Conversations API and the item lists; and the builders of the bodies of ``/responses/compact``,
whose checks' examples are their section module's (conformance.sections.s4_6_compaction)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .build import set_in
from .registry import Sample, example

Body = dict[str, Any]


def S(build: Callable[[], Body], note: str = "") -> Sample:
    return Sample("state", build, note)


def _user(text: str, item_id: str = "msg_1") -> Body:
    return {
        "type": "message",
        "id": item_id,
        "status": "completed",
        "role": "user",
        "content": [{"type": "input_text", "text": text}],
    }


def _file_search(key: str = "k") -> Body:
    return {
        "type": "file_search_call",
        "id": "fs_1",
        "status": "completed",
        "queries": ["launch checklist"],
        "results": [
            {"file_id": "file_1", "filename": "a.txt", "score": 0.5, "text": "x",
             "attributes": {key: "v"}}
        ],
    }  # fmt: skip


def compaction() -> Body:
    """A `/responses/compact` result: the retained user turn, then the compaction item."""
    return {
        "id": "resp_example",
        "object": "response.compaction",
        "created_at": 1_700_000_000,
        "output": [
            _user("Remember the code word PLUM."),
            {"type": "compaction", "id": "cmp_example", "encrypted_content": "gAAAAB-opaque"},
        ],
        "usage": {
            "input_tokens": 12,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 17,
        },
    }


def conversation() -> Body:
    return {"id": "conv_example", "object": "conversation", "created_at": 1_700_000_000,
            "metadata": {}}  # fmt: skip


def deleted() -> Body:
    return {"id": "conv_example", "object": "conversation.deleted", "deleted": True}


def item_list() -> Body:
    return {
        "object": "list",
        "data": [_user("hi", "msg_1"), _user("again", "msg_2")],
        "first_id": "msg_1",
        "last_id": "msg_2",
        "has_more": False,
    }


def edit(base: Callable[[], Body], path: str, value: Any) -> Callable[[], Body]:
    def build() -> Body:
        body = base()
        set_in(body, path, value)
        return body

    return build


def drop(base: Callable[[], Body], key: str) -> Callable[[], Body]:
    def build() -> Body:
        body = base()
        del body[key]
        return body

    return build


def with_item(base: Callable[[], Body], field: str, item: Body, at: int) -> Callable[[], Body]:
    def build() -> Body:
        body = base()
        body[field].insert(at, copy.deepcopy(item))
        return body

    return build


# compaction.* (docs/spec.md §4.6): conformance/sections/s4_6_compaction.py, beside their rule
# (built from compaction() here).

# --- conversation.* ----------------------------------------------------------------------------
example("conversation.schema.required", S(drop(conversation, "created_at")), S(conversation))
example(
    "conversation.schema.type",
    S(edit(conversation, "created_at", "2025-01-01")),
    S(edit(conversation, "created_at", 1)),
)
example(
    "conversation.metadata",
    S(edit(conversation, "metadata", {f"k{i}": "v" for i in range(17)}), "17 pairs"),
    S(edit(conversation, "metadata", {f"k{i}": "v" * 512 for i in range(16)})),
)
example(
    "conversation.id_prefix",
    S(edit(conversation, "id", "thread_example")),
    S(conversation),
)
example("conversation.deleted.true", S(edit(deleted, "deleted", False)), S(deleted))

# --- item_list.* -------------------------------------------------------------------------------
example("item_list.schema.required", S(drop(item_list, "has_more")), S(item_list))
example("item_list.schema.type", S(edit(item_list, "has_more", "no")), S(item_list))
example(
    "item_list.schema.value",
    S(
        lambda: {**item_list(), "data": [_file_search("k" * 65)], "first_id": "fs_1",
                 "last_id": "fs_1"},
        "an attribute key of 65 chars",
    ),
    S(lambda: {**item_list(), "data": [_file_search()], "first_id": "fs_1", "last_id": "fs_1"}),
)  # fmt: skip
example(
    "item_list.schema.enum",
    S(edit(item_list, "data.0.status", "archived")),
    S(edit(item_list, "data.0.status", "incomplete")),
)
example(
    "item_list.bounds",
    S(edit(item_list, "last_id", "msg_1")),
    S(edit(item_list, "has_more", True)),
)
example(
    "item_list.id_unique",
    S(lambda: {**item_list(), "data": [_user("hi", "msg_1"), _user("again", "msg_1")],
               "last_id": "msg_1"}),
    S(item_list),
)  # fmt: skip
