"""The validator's fast path for delta events judges exactly as the full path does.

`StreamValidator.feed` hands most deltas to a fast handler that either proves the event breaks no
rule or leaves everything untouched for the full path. Any difference in verdicts between the two
would be a hole only the fast path has, so every mutant of every recording is judged both ways.
"""

from __future__ import annotations

from typing import Any

from mutations import generate, load_recordings

from conformance.validator import StreamValidator


def _verdicts(events: list[dict[str, Any]], *, fast: bool) -> list[tuple[Any, ...]]:
    validator = StreamValidator()
    if not fast:
        validator._fast = {}  # shared by every stream: replace it, never clear it
    for event in events:
        validator.feed(event)
    validator.close()
    return [(v.check_id, v.event_index, v.path, v.expected, v.actual) for v in validator.violations]


def test_fast_path_is_taken() -> None:
    # Guard against the fast path silently never running (then this file would prove nothing).
    recording = next(r for r in load_recordings() if r.name.startswith("azure-text"))
    validator = StreamValidator()
    hits: list[str] = []
    fast = validator._fast_delta

    def counting(event: dict[str, Any], etype: Any) -> bool:
        ok = fast(event, etype)
        if ok:
            hits.append(event["type"])
        return ok

    validator._fast_delta = counting  # type: ignore[method-assign]
    for event in recording.events:
        validator.feed(event)
    assert not validator.close() and not validator.violations
    deltas = sum(e["type"] == "response.output_text.delta" for e in recording.events)
    assert hits.count("response.output_text.delta") == deltas > 0


def test_fast_and_full_paths_agree_on_every_mutant() -> None:
    recordings = load_recordings()
    compared = 0
    for recording in recordings:
        events = list(recording.events)
        assert _verdicts(events, fast=True) == _verdicts(events, fast=False)
    for mutant in generate(recordings):
        fast, full = _verdicts(mutant.events, fast=True), _verdicts(mutant.events, fast=False)
        assert fast == full, mutant.name
        compared += 1
    assert compared > 2000
