"""No number in a stream makes the judge allocate or loop in proportion to it.

Every index field of every recording (``output_index``, ``content_index``, ``summary_index``,
``annotation_index``, ``partial_image_index``, ``command_index``, an annotation's
``start_index``/``end_index``, and ``sequence_number``) is set, one site at a time, to a huge or a
negative value, and the stream is judged from dicts, from SSE bytes (the typed path), and resumed
half-way. The bound is asserted by counted work — how much the validator holds
(``StreamValidator.footprint``) and how many violations it reports — not by the clock; an alarm
only stops a hang from stalling the run.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest
from mutations import load_recordings

from conformance import SSEStreamValidator, StreamValidator
from conformance import catalog as C
from conformance.validator.slots import MAX_INDEX_GAP

HUGE = (10**30, -1, -(10**30), 10**7)
Event = dict[str, Any]


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    # A guard, not a measurement: a hang fails here instead of stalling the suite.
    def stop(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("judging did not end: a loop in proportion to an index?")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(600)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _index_paths(event: Event) -> list[tuple[str, ...]]:
    paths: list[tuple[str, ...]] = [
        (key,)
        for key, value in event.items()
        if (key.endswith("_index") or key == "sequence_number") and type(value) is int
    ]
    annotation = event.get("annotation")
    if isinstance(annotation, dict):
        paths += [
            ("annotation", key)
            for key, value in annotation.items()
            if key.endswith("_index") and type(value) is int
        ]
    return paths


def _sites(events: list[Event]) -> list[tuple[int, tuple[str, ...]]]:
    """The first and the last event of each (type, index field) of a recording."""
    first: dict[tuple[str, tuple[str, ...]], int] = {}
    last: dict[tuple[str, tuple[str, ...]], int] = {}
    for position, event in enumerate(events):
        for path in _index_paths(event):
            first.setdefault((event["type"], path), position)
            last[(event["type"], path)] = position
    return sorted({(p, path) for (_, path), p in [*first.items(), *last.items()]})


def _set(events: list[Event], position: int, path: tuple[str, ...], value: int) -> list[Event]:
    mutated = json.loads(json.dumps(events[position]))
    target = mutated
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return [*events[:position], mutated, *events[position + 1 :]]


def _judge(events: list[Event], resume_after: int | None = None) -> StreamValidator:
    validator = StreamValidator(resume_after=resume_after)
    for event in events:
        validator.feed(event)
    validator.close()
    return validator


def _judge_sse(events: list[Event]) -> StreamValidator:
    # `json`, not orjson: orjson writes no integer beyond 64 bits.
    body = b"".join(
        b"event: " + e["type"].encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
        for e in events
    )
    judge = SSEStreamValidator()
    judge.feed(body)
    judge.close()
    return judge.validator


def _bounded(judged: StreamValidator, reference: StreamValidator, events: int) -> None:
    # One event adds at most one item and one part, or a bounded gap of placeholders.
    assert judged.footprint <= reference.footprint + MAX_INDEX_GAP + 1
    assert len(judged.violations) <= 4 * events + MAX_INDEX_GAP


def test_huge_and_negative_values_in_every_index_field_of_every_recording() -> None:
    judged = 0
    fields: set[tuple[str, ...]] = set()
    for recording in load_recordings():
        events = list(recording.events)
        reference = _judge(events)
        sse_reference = _judge_sse(events)
        for position, path in _sites(events):
            fields.add(path)
            for value in HUGE:
                mutant = _set(events, position, path, value)
                _bounded(_judge(mutant), reference, len(events))
                judged += 1
            for value in HUGE[:2]:
                mutant = _set(events, position, path, value)
                _bounded(_judge_sse(mutant), sse_reference, len(events))
                judged += 1
    # Every index field the recordings hold was reached.
    assert {
        ("output_index",),
        ("content_index",),
        ("summary_index",),
        ("annotation_index",),
        ("partial_image_index",),
        ("command_index",),
        ("sequence_number",),
        ("annotation", "start_index"),
    } <= fields
    assert judged > 1000


def test_huge_and_negative_indices_in_resumed_streams() -> None:
    # A resumed stream adopts items and parts it never saw open (SPEC §2.12): the padding of
    # what came before the resume point goes through the same guard.
    judged = 0
    for recording in load_recordings():
        events = list(recording.events)
        half = len(events) // 2
        if half < 2 or type(events[half - 1].get("sequence_number")) is not int:
            continue
        resume_after = events[half - 1]["sequence_number"]
        tail = events[half:]
        reference = _judge(tail, resume_after)
        for position, path in _sites(tail):
            for value in HUGE[:2]:
                mutant = _set(tail, position, path, value)
                _bounded(_judge(mutant, resume_after), reference, len(tail))
                judged += 1
    assert judged > 200


@pytest.mark.parametrize("index", [10**7, 10**30, MAX_INDEX_GAP + 1])
def test_a_summary_index_far_ahead_is_reported_not_padded(index: int) -> None:
    # The hang this guards against: `summary_index: 10**7` took 20 s (10**6: 4 s).
    recording = next(
        r
        for r in load_recordings()
        if any(e["type"] == "response.reasoning_summary_part.added" for e in r.events)
    )
    events = list(recording.events)
    position = next(
        i for i, e in enumerate(events) if e["type"] == "response.reasoning_summary_part.added"
    )
    reference = _judge(events)
    judged = _judge(_set(events, position, ("summary_index",), index))
    assert C.SUMMARY_INDEX.id in {v.check_id for v in judged.violations}
    assert judged.footprint <= reference.footprint


def test_a_gap_within_the_guard_is_still_tracked() -> None:
    # The guard refuses only what it must: a content part a few indices ahead is padded and
    # tracked, so that the events naming it are judged against it.
    recording = next(
        r
        for r in load_recordings()
        if any(e["type"] == "response.content_part.added" for e in r.events)
    )
    events = list(recording.events)
    position = next(i for i, e in enumerate(events) if e["type"] == "response.content_part.added")
    reference = _judge(events)
    judged = _judge(_set(events, position, ("content_index",), 3))
    assert judged.footprint == reference.footprint + 3
    assert C.PART_INDEX_CONTIGUOUS.id in {v.check_id for v in judged.violations}
