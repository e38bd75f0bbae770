"""The Response object is judged once per stream: an interim lifecycle event (`created`,
`queued`, `in_progress`) whose `response` is the value an earlier one passed with is not put
through the schema again on the fast path — and gives the verdicts the reference path
(`fast=False`, every event judged in full) gives, whatever differs in type only."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from mutations import load_recordings

from conformance import catalog as C
from conformance.validator import StreamValidator


class _Str(str):
    pass


def _verdicts(events: list[dict[str, Any]], *, fast: bool) -> list[tuple[Any, ...]]:
    validator = StreamValidator(fast=fast)
    for event in events:
        validator.feed(copy.deepcopy(event))
    validator.close()
    return [(v.check_id, v.event_index, v.path, v.expected, v.actual) for v in validator.violations]


def _text_recording() -> list[dict[str, Any]]:
    recording = next(r for r in load_recordings() if r.name.startswith("azure-text"))
    events = copy.deepcopy(recording.events)
    assert [e["type"] for e in events[:2]] == ["response.created", "response.in_progress"]
    return events


def test_in_progress_equal_to_created_is_not_judged_again(monkeypatch: pytest.MonkeyPatch) -> None:
    events = _text_recording()
    events[1]["response"] = copy.deepcopy(events[0]["response"])
    seen: list[str] = []
    validator = StreamValidator()
    predicates = dict(validator._predicates)
    for etype in ("response.created", "response.in_progress"):
        inner = predicates[etype]
        predicates[etype] = lambda e, inner=inner: seen.append(e["type"]) or inner(e)
    validator._predicates = predicates
    for event in events:
        validator.feed(event)
    assert not validator.close() and not validator.violations
    assert seen == ["response.created"]


# A change of type only (equal under `==`, or written alike by a JSON writer), or of the envelope.
_CHANGES = [
    ("top_logprobs", False),  # 0 in the recording: == False
    ("top_logprobs", 0.0),
    ("temperature", True),  # 1 in the recording
    ("temperature", 1.0),
    ("temperature", math.nan),
    ("user", math.nan),  # null in the recording: NaN is written `null`
    ("model", "MODEL"),
    ("tools", ()),  # [] in the recording: a tuple is written `[]`
    ("metadata", None),
]


@pytest.mark.parametrize(("field", "value"), _CHANGES, ids=[f"{f}={v!r}" for f, v in _CHANGES])
def test_in_progress_differing_in_type_only_is_judged_as_the_reference_judges_it(
    field: str, value: Any
) -> None:
    events = _text_recording()
    response = events[1]["response"] = copy.deepcopy(events[0]["response"])
    assert field in response
    response[field] = value
    assert _verdicts(events, fast=True) == _verdicts(events, fast=False)


def test_str_subclass_and_envelope_changes_are_judged_in_full() -> None:
    events = _text_recording()
    events[1]["response"] = copy.deepcopy(events[0]["response"])
    events[1]["response"]["model"] = _Str(events[1]["response"]["model"])
    assert _verdicts(events, fast=True) == _verdicts(events, fast=False)
    events = _text_recording()
    events[1]["response"] = copy.deepcopy(events[0]["response"])
    events[1]["sequence_number"] = True
    fast = _verdicts(events, fast=True)
    assert fast == _verdicts(events, fast=False)
    assert any(v[0] == C.EVENT_SCHEMA_TYPE.id and v[1] == 1 for v in fast)
