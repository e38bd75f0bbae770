"""What the state-object examples (``compaction.*``, ``conversation.*``, ``item_list.*``: their
section modules, conformance.sections.s4_5_conversations and s4_6_compaction) build their samples
with: ``S`` (a state body), the bodies of ``/responses/compact``, the Conversations API and the
item lists, and small edits of them."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from .build import set_in
from .registry import Sample

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
