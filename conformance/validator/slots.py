"""The one guarded tracker of the indices a stream sends.

Every index the validator follows comes from the stream, so it may be anything: ``10**30``, a
negative number, a jump past what was seen. A list that pads its gaps would allocate (and a loop
that fills them would run) in proportion to such a number — ``summary_index: 10**7`` once took
20 s. So the numbered slots of an item — its content parts (``content_index``), its reasoning
summary parts (``summary_index``), the annotations of a text part (``annotation_index``) — are
:class:`Slots`, whose only way to grow by an index is :meth:`Slots.put`: a negative index, or one
more than :data:`MAX_INDEX_GAP` past the slots seen, is refused (the caller has reported it) and
changes nothing. Output items are kept by ``output_index`` in a dict, never padded, and each
event adds at most one; ``command_index`` keys a dict of value streams the same way;
``partial_image_index`` and ``sequence_number`` are compared, never allocated by. So the work
and memory of judging a stream are linear in its bytes, whatever numbers it holds
(tests/conformance/validator/test_index_fuzz.py puts huge and negative values in every index field of every
recording).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["MAX_INDEX_GAP", "Slots"]

# How far past the slots seen an index may point and still be tracked (its gap padded with
# placeholders). Real items have a handful of parts; a larger jump is reported, not allocated.
MAX_INDEX_GAP = 1024

T = TypeVar("T")


class Slots(list[T]):
    """Slots numbered 0, 1, … by an index from the stream; read like a list (``len``, ``[-1]``,
    iteration: the fast path reads them at list speed), grown only by :meth:`put` (or by one
    :meth:`append`, the next index)."""

    __slots__ = ()

    def fits(self, index: int) -> bool:
        """Whether :meth:`put` would track ``index``."""
        return 0 <= index <= len(self) + MAX_INDEX_GAP

    def put(self, index: int, slot: T, fill: Callable[[], T]) -> bool:
        """Set the slot ``index`` to ``slot``, padding a gap before it with ``fill()`` (at most
        :data:`MAX_INDEX_GAP` of them); False, changing nothing, when the index does not
        :meth:`fit <fits>`."""
        if not 0 <= index <= len(self) + MAX_INDEX_GAP:
            return False
        if index < len(self):
            self[index] = slot
            return True
        self.extend(fill() for _ in range(index - len(self)))
        self.append(slot)
        return True
