"""The connection-local cache of WebSocket mode (reference_impl.service.ws_state), without a
socket: what a lane keeps, what evicts it, and the bytes it reports for the memory bound."""

from __future__ import annotations

from typing import Any

import orjson

from reference_impl.service.ws_state import ConnectionCache


def _response(rid: str, status: str = "completed", parent: str | None = None) -> dict[str, Any]:
    return {"id": rid, "status": status, "previous_response_id": parent, "output": []}


ITEMS = [{"type": "message", "role": "user", "content": "hi"}]


def test_each_lane_keeps_its_most_recent_response() -> None:
    cache = ConnectionCache()
    cache.ended(None, _response("r1"), ITEMS)
    cache.ended("b", _response("r2"), ITEMS)
    cache.ended(None, _response("r3"), ITEMS)
    assert cache.lookup("r1") is None
    assert cache.lookup("r2") == (_response("r2"), ITEMS)
    assert cache.lookup("r3") is not None
    assert len(cache) == 2


def test_a_failed_continuation_evicts_only_a_same_lane_parent() -> None:
    cache = ConnectionCache()
    cache.ended("a", _response("r1"), ITEMS)
    cache.refused("b", "r1")  # a fork from another lane: the source lane keeps it
    assert cache.lookup("r1") is not None
    cache.ended("a", _response("r2", "failed", parent="r1"), ITEMS)
    assert cache.lookup("r1") is None


def test_a_failed_response_that_continued_nothing_leaves_the_lane_as_it_was() -> None:
    cache = ConnectionCache()
    cache.ended("a", _response("r1"), ITEMS)
    cache.ended("a", _response("r2", "failed"), ITEMS)
    assert cache.lookup("r1") is not None
    cache.ended("a", _response("r3", "incomplete"), ITEMS)  # incomplete can be continued
    assert cache.lookup("r3") is not None


def test_nbytes_counts_what_is_kept() -> None:
    cache = ConnectionCache()
    assert cache.nbytes() == 0
    response = _response("r1")
    cache.ended(None, response, ITEMS)
    assert cache.nbytes() == len(orjson.dumps(response)) + len(orjson.dumps(ITEMS))
    cache.refused(None, "r1")
    assert cache.nbytes() == 0


def test_entries_are_copies() -> None:
    cache = ConnectionCache()
    response = _response("r1")
    items = [dict(ITEMS[0])]
    cache.ended(None, response, items)
    response["status"] = "failed"
    items[0]["content"] = "changed"
    assert cache.lookup("r1") == (_response("r1"), ITEMS)
