"""Edits of a decoded event stream (a list of event dicts, changed in place), for the tests that
hold a client accumulator's rule (conformance/sections/s9_openai_*.py) to the client: each edit
makes one shape the client may or may not take; and :func:`exercised`, the checks a stream puts
to the test, for the section modules' tests."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from conformance.validator import StreamValidator

__all__ = [
    "Events",
    "added_twice",
    "drop",
    "exercised",
    "first",
    "renumbered",
    "set_field",
    "unfinished",
]

Events = list[dict[str, Any]]


def first(events: Events, kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)


def drop(kind: str, field: str) -> Callable[[Events], None]:
    """The first ``kind`` event without ``field``."""

    def edit(events: Events) -> None:
        first(events, kind).pop(field)

    return edit


def set_field(kind: str, field: str, value: Any) -> Callable[[Events], None]:
    """The first ``kind`` event with ``field`` set to ``value``."""

    def edit(events: Events) -> None:
        first(events, kind)[field] = value

    return edit


def unfinished(events: Events) -> None:
    """The last item never done, and absent from the final output."""
    done = [e for e in events if e["type"] == "response.output_item.done"][-1]
    events.remove(done)
    terminal = events[-1]["response"]
    terminal["output"] = [i for i in terminal["output"] if i["id"] != done["item"]["id"]]


def added_twice(events: Events) -> None:
    """The first added item added again, under another id, right after."""
    added = first(events, "response.output_item.added")
    twin = copy.deepcopy(added)
    twin["item"]["id"] = "msg_twin"
    events.insert(events.index(added) + 1, twin)


def renumbered(events: Events) -> None:
    """Every output_index of a one-item stream as 5 (a wire index, not a position)."""
    for e in events:
        if "output_index" in e:
            e["output_index"] = 5


def exercised(events: Events) -> set[str]:
    """The stream checks the validator says ``events`` exercised."""
    validator = StreamValidator(coverage=True)
    for event in events:
        validator.feed(event)
    validator.close()
    return validator.exercised
