"""§1.7 Hosted tool calls (docs/spec.md#s1-7): ``stream.hosted.progress_order``,
``stream.hosted.failed_status``, ``stream.image.partial_image_index``; and the stream
validator's per-tool rules (:class:`ToolRules`), which hand finished text parts to §1.5's
``stream.annotation.offsets``.

The stream validator already checks that a tool's events name an open item of the right type,
that nothing follows the item's ``output_item.done``, that argument / code / input deltas join to
their ``.done`` value and to the finished item, and that annotation indices run 0, 1, ….
These rules add what only a tool's own sequence tells (sans-I/O, fed by the validator):

- ``stream.hosted.progress_order``: each hosted call's progress events run forward —
  ``in_progress`` → ``searching`` / ``interpreting`` / ``generating`` / ``partial_image`` →
  ``completed`` / ``failed`` — with no other progress event after the one that ends it. Stages
  may be missing (Azure's web search sends no ``web_search_call.completed``, [REC]
  azure-web-search-preview-tool.1) and repeated (``mcp_call.in_progress`` twice around the
  argument deltas, [REC] openai-mcp-tool-approval.4).
- ``stream.hosted.failed_status``: a ``*.failed`` event and the finished item's ``status`` agree —
  ``.failed`` means ``status: failed``, ``.completed`` means not ``failed``; an ``mcp_list_tools``
  item, which has no status ([OAPI] ``MCPListTools``), says it failed by its ``error``.
- ``stream.image.partial_image_index``: an image generation call's partial images carry
  ``partial_image_index`` 0, 1, 2, … in order.

Each rule marks its check applied where it evaluates it: a progress event (or a code / arguments
event) of an open hosted call, the ``output_item.done`` of a call whose progress ended, a
``partial_image`` of a running image generation call.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..catalog.registry import Level, register
from .s1_5_annotations import judge_offsets
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "HOSTED_FAILED_STATUS",
    "HOSTED_PROGRESS_ORDER",
    "IMAGE_PARTIAL_INDEX",
    "PROGRESS",
    "ToolRules",
    "declare_examples",
    "wanted",
]

HOSTED_PROGRESS_ORDER = register(
    "stream.hosted.progress_order",
    Level.MUST,
    "§1.7, §2.8 [OAPI] ResponseWebSearchCall*/FileSearchCall*/CodeInterpreterCall*/ImageGenCall*/"
    "MCPCall*/MCPListTools* events; [REC] openai-*-tool streams",
    "a hosted tool call's progress events run forward (in_progress → searching / interpreting / "
    "generating / partial_image → completed or failed), none after the one that ends it; stages "
    "may be missing or repeated",
)
HOSTED_FAILED_STATUS = register(
    "stream.hosted.failed_status",
    Level.MUST,
    "§1.7 [OAPI] ResponseMCPCallFailedEvent, ResponseMCPListToolsFailedEvent, MCPToolCall.status, "
    "MCPListTools.error",
    "a `*.failed` progress event is followed by the item's `status: failed`; a `*.completed` one "
    "by a status other than `failed` (an `mcp_list_tools` item, which has no status: by an "
    "`error`, and by none)",
)
IMAGE_PARTIAL_INDEX = register(
    "stream.image.partial_image_index",
    Level.MUST,
    "§1.7 [OAPI] ResponseImageGenCallPartialImageEvent.partial_image_index; [REC] "
    "openai-image-generation-tool.1",
    "an image generation call's `partial_image` events carry `partial_image_index` 0, 1, 2, … in "
    "order",
)

# Progress event suffix → its rank, per hosted item type ([OAPI] Response*Event; [REC] streams).
# Events of equal rank may come in any order and repeat; a lower rank after a higher one is out
# of order. The last rank of each type ends the call.
PROGRESS: dict[str, dict[str, int]] = {
    "web_search_call": {"in_progress": 0, "searching": 1, "completed": 2},
    "file_search_call": {"in_progress": 0, "searching": 1, "completed": 2},
    "code_interpreter_call": {"in_progress": 0, "interpreting": 1, "completed": 2},
    "image_generation_call": {
        "in_progress": 0,
        "generating": 1,
        "partial_image": 2,
        "completed": 3,
    },
    "mcp_call": {"in_progress": 0, "completed": 1, "failed": 1},
    "mcp_list_tools": {"in_progress": 0, "completed": 1, "failed": 1},
}
# The streamed value families that belong to a call's working stage: not after its end.
_WORKING: dict[str, str] = {
    "response.code_interpreter_call_code": "code_interpreter_call",
    "response.mcp_call_arguments": "mcp_call",
}
_EVENT_PREFIX = {f"response.{kind}.": kind for kind in PROGRESS}


@dataclass(slots=True)
class _Call:
    kind: str
    rank: int = -1
    last: str = ""
    ended_by: str = ""  # "completed" / "failed" once the ending event came
    partial_images: int = 0
    # done events of streamed values (code, arguments) seen after the end
    extras: list[str] = field(default_factory=list)


class ToolRules:
    """One per stream; the validator calls :meth:`feed` for each event after its own checks."""

    __slots__ = ("_calls", "_coverage", "_report")

    def __init__(self, report: _Report, coverage: _Coverage | None = None) -> None:
        self._report = report
        self._coverage = coverage
        self._calls: dict[str, _Call] = {}

    @staticmethod
    def wants(etype: str) -> bool:
        """Whether :meth:`feed` needs events of this type (the rest need not be passed)."""
        return (
            etype.startswith(("response.output_item.", "response.content_part.done"))
            or any(etype.startswith(p) for p in _EVENT_PREFIX)
            or etype.rsplit(".", 1)[0] in _WORKING
        )

    def passes_delta(self, etype: str, item_id: Any) -> bool:
        """Whether :meth:`feed` would find nothing wrong with a ``.delta`` of this type naming
        ``item_id``, as things stand: what the fast path asks before it routes such deltas past
        :meth:`feed` (it asks again after every event the full path judges, the only ones that
        change the answer). A call's streamed value after its ``.completed`` / ``.failed``
        breaks the order of its progress (``stream.hosted.progress_order``)."""
        if not wanted(etype):
            return True
        kind = _WORKING.get(etype.rpartition(".")[0])
        if kind is None:
            return False  # judged by `feed` on the full path
        call = self._named(item_id, kind)
        return call is None or not call.ended_by

    def feed(self, event: Mapping[str, Any], etype: str, index: int) -> None:
        if etype == "response.output_item.added":
            item = event.get("item")
            kind = item.get("type") if (type(item) is dict or isinstance(item, Mapping)) else None
            if isinstance(kind, str) and kind in PROGRESS:
                item_id = item.get("id")  # type: ignore[union-attr]
                if isinstance(item_id, str):
                    self._calls[item_id] = _Call(kind)
            return
        if etype == "response.output_item.done":
            self._on_done(event, index)
            return
        if etype == "response.content_part.done":
            part = event.get("part")
            if type(part) is dict or isinstance(part, Mapping):
                judge_offsets(self._report, self._coverage, part, index, "part")
            return
        family, _, stage = etype.rpartition(".")
        kind = _WORKING.get(family)
        if kind is not None:
            call = self._call(event, kind)
            if call is not None and self._coverage is not None:
                self._coverage.applied.add(HOSTED_PROGRESS_ORDER.id)
            if call is not None and call.ended_by:
                self._report(
                    HOSTED_PROGRESS_ORDER, index,
                    f"`{family}.*` before `response.{kind}.{call.ended_by}`",
                    f"`{etype}` after it",
                )  # fmt: skip
            return
        kind = _EVENT_PREFIX.get(family + ".")
        if kind is None:
            return
        call = self._call(event, kind)
        if call is None:
            return  # the validator reports an event naming no open item of this type
        ranks = PROGRESS[kind]
        rank = ranks.get(stage)
        if rank is None:
            return
        if self._coverage is not None:
            self._coverage.applied.add(HOSTED_PROGRESS_ORDER.id)
        if call.ended_by:
            if stage != call.ended_by:  # the ending event repeated is a repeated stage
                self._report(
                    HOSTED_PROGRESS_ORDER, index,
                    f"no progress event after `response.{kind}.{call.ended_by}`", f"`{etype}`",
                )  # fmt: skip
            return
        if rank < call.rank:
            self._report(
                HOSTED_PROGRESS_ORDER, index,
                f"`{etype}` before `response.{kind}.{call.last}`",
                f"`{etype}` after it", message=" → ".join(ranks),
            )  # fmt: skip
        call.rank = max(call.rank, rank)
        call.last = stage
        if stage in ("completed", "failed"):
            call.ended_by = stage
        if stage == "partial_image":
            if self._coverage is not None:
                self._coverage.applied.add(IMAGE_PARTIAL_INDEX.id)
            got = event.get("partial_image_index")
            if got != call.partial_images:
                self._report(
                    IMAGE_PARTIAL_INDEX, index,
                    f"partial_image_index {call.partial_images}", f"{got!r}",
                    path="partial_image_index",
                )  # fmt: skip
            call.partial_images += 1

    def _call(self, event: Mapping[str, Any], kind: str) -> _Call | None:
        return self._named(event.get("item_id"), kind)

    def _named(self, item_id: Any, kind: str) -> _Call | None:
        """The open call of this kind with this item id, if any."""
        call = self._calls.get(item_id) if isinstance(item_id, str) else None
        return call if call is not None and call.kind == kind else None

    def _on_done(self, event: Mapping[str, Any], index: int) -> None:
        item = event.get("item")
        if type(item) is not dict and not isinstance(item, Mapping):
            return
        if item.get("type") == "message":
            content = item.get("content")
            for ci, part in enumerate(content if isinstance(content, list) else ()):
                if type(part) is dict or isinstance(part, Mapping):
                    judge_offsets(self._report, self._coverage, part, index, f"item.content[{ci}]")
            return
        item_id = item.get("id")
        call = self._calls.pop(item_id, None) if isinstance(item_id, str) else None
        if call is None or not call.ended_by:
            return
        if self._coverage is not None:
            self._coverage.applied.add(HOSTED_FAILED_STATUS.id)
        if item.get("type") == "mcp_list_tools":  # [OAPI] MCPListTools: no status, an `error`
            self._listing(item, call.ended_by, index)
            return
        status = item.get("status")
        if call.ended_by == "failed" and status != "failed":
            self._report(
                HOSTED_FAILED_STATUS, index,
                f"status `failed` (after `response.{call.kind}.failed`)", f"status {status!r}",
                path="item.status",
            )  # fmt: skip
        elif call.ended_by == "completed" and status == "failed":
            self._report(
                HOSTED_FAILED_STATUS, index,
                f"a status other than `failed` (after `response.{call.kind}.completed`)",
                "status 'failed'", path="item.status",
            )  # fmt: skip

    def _listing(self, item: Mapping[str, Any], ended_by: str, index: int) -> None:
        """An ``mcp_list_tools`` item has no ``status``: its ``error`` says it failed."""
        error = item.get("error")
        if ended_by == "failed" and not (isinstance(error, str) and error):
            self._report(
                HOSTED_FAILED_STATUS, index,
                "an `error` (after `response.mcp_list_tools.failed`)", f"error {error!r}",
                path="item.error",
            )  # fmt: skip
        elif ended_by == "completed" and error not in (None, ""):
            self._report(
                HOSTED_FAILED_STATUS, index,
                "no `error` (after `response.mcp_list_tools.completed`)", f"error {error!r}",
                path="item.error",
            )  # fmt: skip


# `ToolRules.wants`, cached per event type: the validator asks it for every event it judges in
# full, and the fast path for every route it makes.
wanted = functools.cache(ToolRules.wants)


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples):
    minimal hosted-tool calls shaped like the recordings (:mod:`conformance.examples.offline_tools`)."""
    from ..examples.build import Event, find, numbered
    from ..examples.offline_tools import image_stream, mcp_stream, web_search_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    def swap_first_stages() -> list[Event]:
        events = web_search_stream()
        i = find(events, "response.web_search_call.in_progress")
        events[i], events[i + 1] = events[i + 1], events[i]
        return numbered(events)

    example(
        HOSTED_PROGRESS_ORDER.id,
        S(swap_first_stages, "web_search_call.searching before its .in_progress"),
        S(lambda: web_search_stream(("in_progress", "searching")),
          "no `.completed` (Azure's web search omits it): a missing stage is no disorder"),
    )  # fmt: skip
    example(
        HOSTED_FAILED_STATUS.id,
        S(
            lambda: mcp_stream("failed", "completed"),
            "`mcp_call.failed`, then the item `completed`",
        ),
        S(lambda: mcp_stream("failed", "failed"), "`mcp_call.failed` and the item `failed`"),
    )
    example(
        IMAGE_PARTIAL_INDEX.id,
        S(lambda: image_stream((1, 2)), "partial images numbered from 1"),
        S(lambda: image_stream((0, 1, 2)), "partial images 0, 1, 2"),
    )
