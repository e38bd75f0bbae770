"""Output items (SPEC §2.4–§2.6): `output_item.added` once per contiguous `output_index`, opened
empty, with a fresh id; every inner event names an open item of a type it fits; `output_item.done`
once, matching the added item and holding what was streamed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import catalog as C
from ..catalog.render import short
from .lifecycle import LifecycleRules
from .model import MISSING, Item
from .tables import ID_PREFIX, LIFECYCLE_INTERIM, fits_for

__all__ = ["ItemRules"]


# Items whose `call_id` OpenAI changes from `output_item.added` to `.done` ([REC]
# `openai-client-tool-search.1`, `azure-client-tool-search.1.part1`: docs/spec.md §7.9).
IDENTITY_REISSUED = frozenset({"tool_search_call"})

# SPEC §2.6: an item opens `in_progress`; one that opens `incomplete` was cut before it began
# (Azure's content filter: docs/spec.md §7.4) and stays so.
_OPENING_STATUSES = ("in_progress", "incomplete")


class ItemRules(LifecycleRules):
    """``_item_for`` (the open item an inner event names) and the handlers of the item events."""

    __slots__ = ()

    def _item_for(
        self, event: Mapping[str, Any], index: int, *, allow_done: bool = False
    ) -> Item | None:
        """The open item an inner event names, reporting every way the naming is wrong."""
        etype: str = event["type"]
        oi = event.get("output_index")
        if type(oi) is not int:
            return None  # the schema check reports a missing or mistyped output_index
        self._require_started(etype, index)
        item = self._items.get(oi)
        if item is None:
            if (
                self.resume_after is not None
                and oi >= 0
                and (self._next_output_index is None or oi < self._next_output_index)
            ):
                # Opened before the resume point (SPEC §2.12): adopt it without its history.
                item = Item(oi, event.get("item_id"), None, known=False)
                self._items[oi] = item
            else:
                self._report(
                    C.ITEM_ADDED_BEFORE_USE,
                    index,
                    f"`output_item.added` for output_index {oi} first",
                    etype,
                    path="output_index",
                )
                return None
        if item.done and not allow_done:
            self._report(
                C.ITEM_DONE_ONCE,
                index,
                f"no event for the finished item {oi}",
                etype,
                path="output_index",
            )
            return None
        item_id = event.get("item_id", MISSING)
        if item_id is not MISSING and item.known and item_id != item.id:
            self._report(
                C.ITEM_ID_MATCHES,
                index,
                item.id,
                item_id,
                path="item_id",
                message=f"output_index {oi} is item {item.id!r}",
            )
        if oi < self._last_added and not item.interleave_reported and item.known:
            item.interleave_reported = True
            self._report(
                C.ITEM_INTERLEAVE,
                index,
                f"events of item {oi} before item {self._last_added} was added",
                etype,
                path="output_index",
            )
        if item.known and item.type is not None:
            types = fits_for(etype)
            if types is not None and (not isinstance(item.type, str) or item.type not in types):
                self._report(
                    C.DELTA_TYPE_FITS_ITEM,
                    index,
                    f"an item of type {' or '.join(sorted(types))}",
                    item.type,
                    message=f"`{etype}` names output_index {oi}",
                )
                return None
        return item

    def _on_item_added(self, event: Mapping[str, Any], index: int) -> None:
        self._require_started("response.output_item.added", index)
        oi = event.get("output_index")
        item = event.get("item")
        if type(oi) is not int or not isinstance(item, dict):
            return
        iid, itype = item.get("id"), item.get("type")
        if oi < 0:
            self._report(
                C.OUTPUT_INDEX_CONTIGUOUS, index, "an output_index ≥ 0", oi, path="output_index"
            )
            return
        if oi in self._items:
            self._report(
                C.ITEM_ADDED_ONCE,
                index,
                f"a new output_index (next: {self._next_output_index})",
                oi,
                path="output_index",
                message=f"output_index {oi} was already added as item {self._items[oi].id!r}",
            )
            return
        expected_oi = self._next_output_index
        if expected_oi is not None and oi != expected_oi:
            self._report(C.OUTPUT_INDEX_CONTIGUOUS, index, expected_oi, oi, path="output_index")
        self._next_output_index = oi + 1 if expected_oi is None else max(expected_oi, oi + 1)
        if iid is not None:
            key = iid if type(iid) is str else hashable(iid)
            if key in self._item_ids:
                self._report(
                    C.ITEM_ID_UNIQUE,
                    index,
                    "a new item id",
                    iid,
                    path="item.id",
                    message="another item of this response has this id",
                )
            self._item_ids.add(key)
            prefixes = ID_PREFIX.get(itype) if isinstance(itype, str) else None
            if prefixes and isinstance(iid, str) and not iid.startswith(prefixes):
                self._report(
                    C.ITEM_ID_PREFIX, index, " or ".join(prefixes) + "…", iid, path="item.id"
                )
        if self._incomplete_item is not None:
            self._report(
                C.ITEM_INCOMPLETE_LAST,
                index,
                "no item after an incomplete one",
                itype,
                message=f"item {self._incomplete_item} ended `incomplete`",
            )
        self._last_added = max(self._last_added, oi)
        self._items[oi] = Item(
            oi,
            iid,
            itype,
            opened_incomplete=item.get("status") == "incomplete",
            identity=(item.get("call_id"), item.get("name")),
        )
        self._check_added_state(item, index)

    def _check_added_state(self, item: Mapping[str, Any], index: int) -> None:
        """SPEC §2.6: an item opens empty, so accumulating clients do not double its content."""
        itype = item.get("type")
        problems: list[tuple[str, Any, Any]] = []
        if itype == "message":
            if item.get("content") not in ([], None):
                problems.append(("item.content", "[]", short(item.get("content"))))
            if item.get("status") not in _OPENING_STATUSES:
                problems.append(("item.status", "in_progress", item.get("status")))
        elif itype == "reasoning":
            if item.get("summary") not in ([], None):
                problems.append(("item.summary", "[]", short(item.get("summary"))))
            if item.get("content") not in ([], None):
                problems.append(("item.content", "[] or absent", short(item.get("content"))))
        elif itype == "function_call":
            if item.get("arguments") != "":
                problems.append(("item.arguments", '""', short(item.get("arguments"))))
            for key in ("call_id", "name"):
                if not item.get(key):
                    problems.append((f"item.{key}", "a non-empty string", item.get(key)))
            if item.get("status") not in _OPENING_STATUSES:
                problems.append(("item.status", "in_progress", item.get("status")))
        for path, expected, actual in problems:
            self._report(C.ITEM_ADDED_STATE, index, expected, actual, path=path)

    def _on_item_done(self, event: Mapping[str, Any], index: int) -> None:
        oi = event.get("output_index")
        done_item = event.get("item")
        if type(oi) is not int:
            return
        existing = self._items.get(oi)
        if existing is not None and existing.done:
            self._report(
                C.ITEM_DONE_ONCE,
                index,
                "one `output_item.done` per item",
                f"a second `output_item.done` for output_index {oi}",
                path="output_index",
            )
            return
        item = self._item_for(event, index)
        if item is None or not isinstance(done_item, dict):
            return
        item.done = True
        item.done_item = done_item
        if not item.known:
            item.id, item.type = done_item.get("id"), done_item.get("type")
            return
        if done_item.get("id") != item.id:
            self._report(
                C.ITEM_DONE_MATCHES_ADDED, index, item.id, done_item.get("id"), path="item.id"
            )
        if done_item.get("type") != item.type:
            self._report(
                C.ITEM_DONE_MATCHES_ADDED,
                index,
                item.type,
                done_item.get("type"),
                path="item.type",
            )
        if item.identity[0] or item.identity[1]:  # a call: messages and reasoning have none
            self._check_identity(item, done_item, index)
        for ci, part in enumerate(item.parts):
            if not part.closed:
                self._report(
                    C.PART_CLOSED,
                    index,
                    f"`content_part.done` for content_index {ci}",
                    "`output_item.done` while the part is open",
                    path=f"item.content[{ci}]",
                )
        for si, part in enumerate(item.summaries):
            if not part.closed:
                self._report(
                    C.SUMMARY_CLOSED_BEFORE_ITEM,
                    index,
                    f"`reasoning_summary_part.done` for summary_index {si}",
                    "`output_item.done` while the summary part is open",
                    path=f"item.summary[{si}]",
                )
        for (family, sub), (deltas, done) in item.values.items():
            if done[0] is None:
                self._report(
                    C.ARGS_ORDER,
                    index,
                    f"`{family}.done` before `output_item.done`",
                    f"{len(deltas)} delta(s) and no `.done`",
                    message=f"index {sub}" if sub else "",
                )
        self._check_item_content(item, done_item, index)
        if item.opened_incomplete and done_item.get("status") != "incomplete":
            # `incomplete` is terminal ([OR] items are state machines): an item that opened so,
            # cut off before it began, cannot finish otherwise.
            self._report(
                C.ITEM_ADDED_STATE,
                index,
                "incomplete",
                short(done_item.get("status")),
                path="item.status",
                message="the item opened `incomplete`, a terminal status",
            )
        if done_item.get("status") == "incomplete":
            self._incomplete_item = oi

    def _check_identity(self, item: Item, done_item: Mapping[str, Any], index: int) -> None:
        """The `call_id` and `name` that `output_item.added` gave a call, kept by its `.done`."""
        for key, first in zip(("call_id", "name"), item.identity, strict=True):
            # Clients key a call by what `added` gave it (docs/spec.md §7.9); OpenAI re-issues the
            # `call_id` of a client-executed tool search in its `.done`, the one to answer.
            if (
                isinstance(first, str)
                and first
                and done_item.get(key) != first
                and not (isinstance(item.type, str) and item.type in IDENTITY_REISSUED)
            ):
                self._report(
                    C.ITEM_CALL_IDENTITY,
                    index,
                    short(first),
                    short(done_item.get(key)),
                    path=f"item.{key}",
                    message=f"`output_item.added` gave the {item.type} this `{key}`",
                )

    def _on_other(self, event: Mapping[str, Any], etype: str, index: int) -> None:
        """Hosted-tool progress, annotations and unknown events: they must name an open item."""
        if "output_index" in event:
            self._item_for(event, index)
        elif etype.startswith("response.") and etype not in LIFECYCLE_INTERIM:
            self._require_started(etype, index)


def hashable(value: Any) -> Any:
    """A value usable as a set member: itself, or its repr when it is a list or an object (a
    malformed id must be judged, not crash the judge)."""
    return repr(value) if isinstance(value, (dict, list)) else value
