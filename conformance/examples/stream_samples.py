"""What the stream examples (the section modules' ``declare_examples``) build their samples
with: ``S`` (a stream of event objects), ``R`` (raw SSE bytes), the ``openresponses`` profile
pair, and small edits of an event list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .build import Event, find, insert, numbered
from .registry import Sample

__all__ = ["OR", "R", "S", "late_delta", "move", "replace_bytes", "swap"]

OR = ("core", "openresponses")


def S(build: Callable[[], Any], note: str = "", **opts: Any) -> Sample:
    return Sample("stream", build, note, **opts)


def R(build: Callable[[], Any], note: str = "", **opts: Any) -> Sample:
    return Sample("sse", build, note, **opts)


def replace_bytes(data: bytes, old: str, new: str, count: int = 1) -> bytes:
    return data.replace(old.encode(), new.encode(), count)


def move(events: list[Event], src: int, dst: int) -> list[Event]:
    events.insert(dst, events.pop(src))
    return numbered(events)


def swap(events: list[Event], a: int) -> list[Event]:
    events[a], events[a + 1] = events[a + 1], events[a]
    return numbered(events)


def late_delta(events: list[Event], family: str) -> list[Event]:
    """An empty ``family`` delta right after the family's ``.done`` (the text still adds up)."""
    late = dict(events[find(events, f"{family}.delta")], delta="")
    return insert(events, find(events, f"{family}.done") + 1, late)
