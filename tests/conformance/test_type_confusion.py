"""The judge never crashes on wrongly typed values: it reports them.

A server can put anything anywhere — an object where an id belongs, a list as an output index, a
number as an item type. The mutation engine edits values within their type; this test puts values
of the *wrong* JSON type at random places of every recording (and of every recorded body) and
requires the judge to finish every stream with a verdict, never an exception. It found lookups of
unhashable values in sets and dicts (item ids, part types, event types) that raised TypeError.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from mutations import load_recordings

from conformance import SSEStreamValidator
from conformance.objects import validate_error_body, validate_response_body
from conformance.validator import PROFILES, StreamValidator

BODIES = Path(__file__).resolve().parents[1] / "data" / "openai-recorded"
# One of each JSON type, nested ones too, and integers beyond 64 bits.
WRONG: tuple[Any, ...] = ({}, [], None, True, 1.5, "x", -1, 10**30, {"a": [1]}, [{}])
MUTANTS_PER_SEED = 700


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*path, key)
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield (*path, i)
            yield from _paths(child, (*path, i))


def _confuse(value: Any, rng: random.Random, edits: int) -> Any:
    value = copy.deepcopy(value)
    for _ in range(edits):
        paths = list(_paths(value))
        if not paths:
            break
        path = rng.choice(paths)
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = copy.deepcopy(rng.choice(WRONG))
    return value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_streams_with_wrongly_typed_values_get_a_verdict(seed: int) -> None:
    rng = random.Random(seed)
    recordings = load_recordings()
    flagged = 0
    for _ in range(MUTANTS_PER_SEED):
        events = list(rng.choice(recordings).events)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(events))
            events[i] = _confuse(events[i], rng, 1)
        validator = StreamValidator(profiles=PROFILES)
        for event in events:
            validator.feed(event)
        validator.close()
        # The same mutant as SSE bytes, through the framing layer and its own fast loop.
        body = b"".join(
            b"event: "
            + str(e.get("type")).encode()
            + b"\ndata: "
            + json.dumps(e).encode()
            + b"\n\n"
            for e in events
            if isinstance(e, dict)
        )
        sse = SSEStreamValidator(profiles=PROFILES)
        sse.feed(body)
        sse.close()
        flagged += bool(validator.violations)
    # Most wrong types break the schema; the run must have judged, not just survived.
    assert flagged > MUTANTS_PER_SEED // 2


@pytest.mark.parametrize("seed", [0, 1])
def test_bodies_with_wrongly_typed_values_get_a_verdict(seed: int) -> None:
    rng = random.Random(seed)
    responses = [orjson.loads(p.read_bytes()) for p in sorted((BODIES / "bodies").glob("*.json"))]
    errors = [orjson.loads(p.read_bytes()) for p in sorted((BODIES / "errors").glob("*.json"))]
    assert responses and errors
    for _ in range(400):
        validate_response_body(_confuse(rng.choice(responses), rng, rng.randint(1, 3)))
        validate_error_body(_confuse(rng.choice(errors), rng, rng.randint(1, 2)))
