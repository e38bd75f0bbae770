"""§2.7 Identity (docs/spec.md#s2-7): ``stream.item.item_id_matches``,
``stream.item.done_matches_added``, ``stream.item.id_unique``, ``stream.item.call_identity_stable``.

Every inner event's ``item_id`` is the id of the item open at its ``output_index``.
``output_item.done`` carries the ``id`` and ``type`` of its ``output_item.added`` (only those two
are compared: [REC] changes ``encrypted_content`` between them). Item ids are unique in a
response ([REC]). An item a resumed stream adopted (§2.12) is known only from its done event.

A call's ``output_item.done`` carries the ``call_id`` and ``name`` its ``output_item.added`` gave
it (§7.9: clients key the call by them from ``added`` on), but for a client-executed
``tool_search_call``, whose ``call_id`` OpenAI re-issues in its ``.done``
(:data:`IDENTITY_REISSUED`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from ..catalog.render import short
from .s2_1_sequence import _Report

__all__ = [
    "IDENTITY_REISSUED",
    "ITEM_CALL_IDENTITY",
    "ITEM_DONE_MATCHES_ADDED",
    "ITEM_ID_MATCHES",
    "ITEM_ID_UNIQUE",
    "IdentityState",
    "declare_examples",
    "judge_call_identity",
    "judge_done_matches_added",
    "judge_id_unique",
    "judge_item_id",
    "note_item_added",
    "note_item_done",
    "note_item_named",
]

ITEM_ID_UNIQUE = register(
    "stream.item.id_unique",
    Level.MUST,
    "§2.7 [REC]",
    "item ids are unique within a response",
)
ITEM_DONE_MATCHES_ADDED = register(
    "stream.item.done_matches_added",
    Level.MUST,
    "§2.7",
    "`output_item.done` carries the same item `id` and `type` as its `output_item.added`",
)
ITEM_ID_MATCHES = register(
    "stream.item.item_id_matches",
    Level.MUST,
    "§2.7",
    "every inner event's `item_id` equals the id of the item open at its `output_index`",
)
ITEM_CALL_IDENTITY = register(
    "stream.item.call_identity_stable",
    Level.MUST,
    "§2.7, §7.9 [SDK]",
    "`output_item.done` carries the `call_id` and `name` its `output_item.added` gave the item "
    "(clients key the call by them from `added` on)",
)

# Items whose `call_id` OpenAI changes from `output_item.added` to `.done` ([REC]
# `openai-client-tool-search.1`, `azure-client-tool-search.1.part1`: docs/spec.md §7.9).
IDENTITY_REISSUED = frozenset({"tool_search_call"})


class _Coverage(Protocol):
    applied: set[str]
    items_added: int  # `output_item.added` events judged before this one


class _Item(Protocol):
    id: Any
    type: Any
    identity: tuple[Any, Any]  # `call_id`, `name` as `output_item.added` gave them


class IdentityState(Protocol):
    """What the rules read and write of the stream validator."""

    @property
    def _item_ids(self) -> set[Any]: ...  # the ids of the items added so far (hashable)

    @property
    def _report(self) -> _Report: ...


def note_item_added(coverage: _Coverage) -> None:
    """An `output_item.added` event, whatever it holds: from the second one on, its id is judged
    against the items' before it (the validator calls this where it records coverage)."""
    if coverage.items_added:
        coverage.applied.add(ITEM_ID_UNIQUE.id)


def note_item_done(coverage: _Coverage) -> None:
    """An `output_item.done` event, whatever it holds: it is judged against its added item."""
    coverage.applied.add(ITEM_DONE_MATCHES_ADDED.id)


def note_item_named(coverage: _Coverage, etype: str) -> None:
    """An event that names an item by its ``output_index``: an inner event (any but the item's
    `output_item.done`) is judged for its ``item_id`` (one without, as a shell command's events,
    has nothing to contradict)."""
    if etype != "response.output_item.done":
        coverage.applied.add(ITEM_ID_MATCHES.id)


def judge_id_unique(state: IdentityState, key: Any, iid: Any, index: int) -> None:
    """An added item's id (``key``: the id, hashable) against the ids of the items before it."""
    ids = state._item_ids
    if key in ids:
        state._report(
            ITEM_ID_UNIQUE,
            index,
            "a new item id",
            iid,
            path="item.id",
            message="another item of this response has this id",
        )
    ids.add(key)


def judge_item_id(state: IdentityState, item: _Item, oi: int, item_id: Any, index: int) -> None:
    """An inner event's ``item_id``, differing from the id of item ``oi`` (the caller compares:
    this is on every event's path)."""
    state._report(
        ITEM_ID_MATCHES,
        index,
        item.id,
        item_id,
        path="item_id",
        message=f"output_index {oi} is item {item.id!r}",
    )


def judge_done_matches_added(
    state: IdentityState, item: _Item, done_item: Mapping[str, Any], index: int
) -> None:
    """An `output_item.done` item's ``id`` and ``type`` against its `output_item.added`'s."""
    if done_item.get("id") != item.id:
        state._report(ITEM_DONE_MATCHES_ADDED, index, item.id, done_item.get("id"), path="item.id")
    if done_item.get("type") != item.type:
        state._report(
            ITEM_DONE_MATCHES_ADDED,
            index,
            item.type,
            done_item.get("type"),
            path="item.type",
        )


def judge_call_identity(
    state: IdentityState,
    coverage: _Coverage | None,
    item: _Item,
    done_item: Mapping[str, Any],
    index: int,
) -> None:
    """The `call_id` and `name` that `output_item.added` gave a call (``item``), kept by its
    `output_item.done` item (``done_item``); marked applied where the added item gave one."""
    if isinstance(item.type, str) and item.type in IDENTITY_REISSUED:
        return  # OpenAI re-issues its `call_id` in `.done`, the one to answer (§7.9)
    for key, first in zip(("call_id", "name"), item.identity, strict=True):
        if not (isinstance(first, str) and first):
            continue
        if coverage is not None:
            coverage.applied.add(ITEM_CALL_IDENTITY.id)
        if done_item.get(key) != first:
            state._report(
                ITEM_CALL_IDENTITY,
                index,
                short(first),
                short(done_item.get(key)),
                path=f"item.{key}",
                message=f"`output_item.added` gave the {item.type} this `{key}`",
            )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import Event, at, call_stream, reasoning_stream, retext, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    def done_id() -> list[Event]:
        events = retext(text_stream(), '"id": "msg_example"', '"id": "msg_other"')
        events[2]["item"]["id"] = "msg_example"  # only the added item keeps the first id
        return events

    def call_renamed(key: str, value: str) -> list[Event]:
        events = call_stream()
        at(events, "response.output_item.done", f"item.{key}", value)
        return at(events, "response.completed", f"response.output.0.{key}", value)

    example(
        ITEM_ID_UNIQUE.id,
        S(lambda: retext(reasoning_stream(), "msg_example", "rs_example"),
          "the message reuses the reasoning item's id"),
        S(reasoning_stream),
    )  # fmt: skip
    example(
        ITEM_DONE_MATCHES_ADDED.id,
        S(done_id, "the item is closed (and completed) under another id"),
        S(text_stream),
    )
    example(
        ITEM_ID_MATCHES.id,
        S(lambda: at(text_stream(), "response.output_text.delta", "item_id", "msg_other")),
        S(text_stream),
    )
    example(
        ITEM_CALL_IDENTITY.id,
        S(lambda: call_renamed("call_id", "call_other"), "`output_item.done` renames the call"),
        S(call_stream),
    )
