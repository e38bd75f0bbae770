"""The judge never crashes on wrongly typed values: it reports them.

A server can put anything anywhere — an object where an id belongs, a list as an output index, a
number as an item type. The mutation engine edits values within their type; this test puts values
of the *wrong* JSON type at random places of every recording (and of every recorded body) and
requires the judge to finish every stream with a verdict, never an exception. It found lookups of
unhashable values in sets and dicts (item ids, part types, event types) that raised TypeError.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import orjson
import pytest
from mutations import load_recordings
from wrong_types import confuse

from conformance import SSEStreamValidator
from conformance import catalog as C
from conformance.bodies.objects import validate_error_body, validate_response_body
from conformance.validator import PROFILES, StreamValidator

BODIES = Path(__file__).resolve().parents[2] / "data" / "openai-recorded"
MUTANTS_PER_SEED = 700


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_streams_with_wrongly_typed_values_get_a_verdict(seed: int) -> None:
    rng = random.Random(seed)
    recordings = load_recordings()
    flagged = 0
    for _ in range(MUTANTS_PER_SEED):
        events = list(rng.choice(recordings).events)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(events))
            events[i] = confuse(events[i], rng, 1)
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
        validate_response_body(confuse(rng.choice(responses), rng, rng.randint(1, 3)))
        validate_error_body(confuse(rng.choice(errors), rng, rng.randint(1, 2)))


def test_a_huge_index_is_reported_not_allocated() -> None:
    # A part index of 10**30 once made the judge pad the item with 10**30 placeholder parts.
    recording = next(r for r in load_recordings() if r.name.startswith("azure-text"))
    events = [dict(e) for e in recording.events]
    added = next(i for i, e in enumerate(events) if e["type"] == "response.content_part.added")
    events[added]["content_index"] = 10**30
    validator = StreamValidator()
    for event in events:
        validator.feed(event)
    validator.close()
    assert C.PART_INDEX_CONTIGUOUS.id in {v.check_id for v in validator.violations}
    # The same in a resumed stream, whose items may be named before their start was seen.
    delta = next(e for e in events[added:] if e["type"] == "response.output_text.delta")
    resumed = StreamValidator(resume_after=delta["sequence_number"] - 1)
    resumed.feed({**delta, "content_index": 10**30})
    assert C.PART_INDEX_CONTIGUOUS.id in {v.check_id for v in resumed.violations}
