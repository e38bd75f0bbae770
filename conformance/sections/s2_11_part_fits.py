"""§2.11 Parts fit their item (docs/spec.md#s2-11): ``stream.part.type_fits_item``.

A message holds ``output_text`` and ``refusal`` parts; reasoning content is ``reasoning_text``,
never ``output_text`` ([KB04](known-bugs.md#kb04)). Two rules judge it: in a stream, the part a
``content_part.added`` opens in an item seen from its start (:func:`judge_part_added`); in a
Response seen whole, a streamed terminal or a non-stream body, each part of an item's
``content`` (:func:`judge_part`, called from ``ResponseChecker``). Each marks the check applied
where it meets parts: a ``content_part.added`` event, an item with a non-empty ``content`` (an
item type :data:`PART_FITS` does not name takes any part).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "PART_FITS",
    "PART_TYPE_FITS_ITEM",
    "declare_examples",
    "judge_part",
    "judge_part_added",
    "note_content",
    "note_part_added",
]

PART_TYPE_FITS_ITEM = register(
    "stream.part.type_fits_item",
    Level.MUST,
    "§2.11; KB04",
    "a part's type fits its item: `output_text`/`refusal` in a message, `reasoning_text` in reasoning",
)
PART_FITS = {
    "message": frozenset({"output_text", "refusal"}),
    "reasoning": frozenset({"reasoning_text"}),
}
"""The part types each item type may hold (an item type not named here takes any)."""

Report = Callable[..., None]
"""``report(check, expected, actual, path, message="")``: the caller's sink for one finding."""


class PartFitsState(Protocol):
    """What the stream rule reads of the stream validator."""

    @property
    def _report(self) -> _Report: ...


def note_part_added(coverage: _Coverage) -> None:
    """A `content_part.added` event, whatever it holds: its part is judged against its item
    (the validator calls this where it records coverage)."""
    coverage.applied.add(PART_TYPE_FITS_ITEM.id)


def judge_part_added(state: PartFitsState, itype: Any, ptype: Any, index: int) -> None:
    """The type ``ptype`` of a part `content_part.added` opens in an item of type ``itype``."""
    fits = PART_FITS.get(itype) if isinstance(itype, str) else None
    if fits is not None and (not isinstance(ptype, str) or ptype not in fits):
        state._report(
            PART_TYPE_FITS_ITEM,
            index,
            " or ".join(sorted(fits)),
            ptype,
            path="part.type",
            message=f"a {itype} item",
        )


def note_content(content: Any, applied: set[str] | None) -> None:
    """An item of a Response: its parts, where its ``content`` holds any, are judged."""
    if applied is not None and isinstance(content, list) and content:
        applied.add(PART_TYPE_FITS_ITEM.id)


def judge_part(fits: frozenset[str], pos: int, ci: int, part: Any, report: Report) -> bool:
    """Part ``ci`` of ``output[pos]``, an item whose parts are of the types ``fits``: True when
    it fits (an object, then), else reported."""
    ptype = part.get("type") if isinstance(part, dict) else None
    if isinstance(ptype, str) and ptype in fits:
        return True
    report(
        PART_TYPE_FITS_ITEM,
        " or ".join(sorted(fits)),
        ptype,
        f"output[{pos}].content[{ci}].type",
    )
    return False


def declare_examples() -> None:
    """The failing example and the passing near miss of the check (conformance.examples)."""
    from ..examples.build import retext, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        PART_TYPE_FITS_ITEM.id,
        S(lambda: retext(retext(text_stream(), "output_text", "reasoning_text"), '"annotations": [], ', ""),
          "a message whose part is `reasoning_text`"),
        S(text_stream),
        also={"stream.delta.type_fits_item", "stream.part.order.done_before_part_done"},
    )  # fmt: skip
