"""The real-traffic and peer classes of issue #32 item 6, each settled at the rule level
(docs/spec.md): what the evidence lets through passes, its nearest defect still fails."""

from __future__ import annotations

from typing import Any

from conformance.bodies.kinds import judge_body
from conformance.examples.build import response, usage

OR = ("core", "openresponses")


def _ids(body: dict[str, Any], profiles: tuple[str, ...] = OR) -> set[str]:
    return {v.check_id for v in judge_body(body, "response", profiles=profiles)}


def _done() -> dict[str, Any]:
    return response("completed", usage=usage(5, 2))


def test_openresponses_does_not_require_user() -> None:
    # §3.4: the compliance tool's own ResponseResource schema has no `user`
    body = _done()
    del body["user"]
    assert "response.openresponses.required_fields" not in _ids(body)
    del body["prompt_cache_key"]  # a field every version of [OR] requires: still required
    assert "response.openresponses.required_fields" in _ids(body)


def test_openresponses_still_types_user() -> None:
    body = {**_done(), "user": 5}
    assert "response.schema.type" in _ids(body)
