"""The comparison behind live.store.retrieve_equals: a field only the retrieve carries (OpenAI's
`billing`) is no difference; a field it drops or changes is (docs/spec.md §4.1 decision)."""

from __future__ import annotations

from conformance.sections.case_support import differing_fields

CREATED = {"id": "resp_1", "status": "completed", "output": [{"type": "message"}], "usage": {"total_tokens": 3}}  # fmt: skip


def test_a_field_only_the_retrieve_has_is_no_difference() -> None:
    retrieved = {**CREATED, "billing": {"payer": "developer"}}
    assert differing_fields(CREATED, retrieved, extra_in_b=True) == []
    assert differing_fields(CREATED, retrieved) == ["billing"]  # symmetric elsewhere


def test_a_dropped_or_changed_field_is_a_difference() -> None:
    dropped = {k: v for k, v in CREATED.items() if k != "usage"}
    changed = {**CREATED, "status": "incomplete"}
    assert differing_fields(CREATED, dropped, extra_in_b=True) == ["usage"]
    assert differing_fields(CREATED, changed, extra_in_b=True) == ["status"]
