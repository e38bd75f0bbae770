"""Replicas sharing one store never hand out the same id: two mock processes with the
same seed, given the same request, built the same response id, and the second overwrote the first's
stored response. A ``replica_id`` enters every id; without one the ids are what they always were."""

from __future__ import annotations

from pathlib import Path

from mock_server.app import MockSettings
from mock_server.ids import DeterministicIds
from mock_server.testing import InProcessMock

BODY = {"model": "mock", "input": "hi"}


def _ids(factory: DeterministicIds) -> list[str]:
    new_id = factory.scope(BODY)
    return [new_id("resp"), new_id("msg"), new_id("call")]


def test_replica_ids_enter_every_id_and_nothing_else_changes() -> None:
    plain, again = _ids(DeterministicIds(1)), _ids(DeterministicIds(1, None))
    a, a_again, b = (_ids(DeterministicIds(1, r)) for r in ("a", "a", "b"))
    assert plain == again  # the default: the ids a single mock always gave (snapshots)
    assert a == a_again  # a pure function of request, seed and replica id
    assert not set(a) & set(b) and not set(a) & set(plain)


def test_two_replicas_on_one_sqlite_store_keep_both_responses(tmp_path: Path) -> None:
    store = f"sqlite:{tmp_path / 'shared.db'}"
    first = InProcessMock(MockSettings(seed=7, store=store, replica_id="r1"))
    second = InProcessMock(MockSettings(seed=7, store=store, replica_id="r2"))
    one = first.client().responses.create(model="mock", input="same request")
    two = second.client().responses.create(model="mock", input="same request")
    assert one.id != two.id
    # Each replica reads the other's response back: nothing was overwritten.
    assert second.client().responses.retrieve(one.id).id == one.id
    assert first.client().responses.retrieve(two.id).id == two.id
    first.close()
    second.close()
