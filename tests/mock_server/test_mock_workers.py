"""``responses-mock --workers N`` (docs/state.md): N processes on one port share stored responses
and fault-attempt counts through the SQLite or Redis store, so a fault plan gives the same attempts
with one worker or two; without a shared store it is a one-line usage error."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from child_memory import listening_child

from mock_server.ids import DeterministicIds

PLAN = ["--fault", "429@1,2", "--fault", "503@4"]
BODIES = [{"model": "mock", "input": f"q{n}"} for n in range(3)]
ORDER = [0, 0, 0, 1, 0, 1, 2, 1, 0, 2, 1, 2, 2]  # which body each request sends


def _fresh(base: str) -> httpx2.Client:
    # No keep-alive: every request is a new connection, which the kernel gives to any worker.
    # Generous timeouts: a loaded 2-core machine (this suite, other jobs) is slow, not wrong.
    return httpx2.Client(
        base_url=base, limits=httpx2.Limits(max_keepalive_connections=0), timeout=60
    )


@contextmanager
def _mock(store: str, workers: int) -> Iterator[str]:
    argv = ["responses-mock", "--port", "0", "--seed", "5", "--store", store,
            "--workers", str(workers), *PLAN]  # fmt: skip
    with listening_child(argv, timeout=60) as child:
        yield child.url


def _statuses(base: str) -> list[int]:
    with _fresh(base) as client:
        return [client.post("/v1/responses", json=BODIES[i]).status_code for i in ORDER]


def _expected() -> list[int]:
    seen = [0] * len(BODIES)
    out = []
    for i in ORDER:
        seen[i] += 1
        out.append(429 if seen[i] in (1, 2) else 503 if seen[i] == 4 else 200)
    return out


@contextmanager
def _redis() -> Iterator[str]:
    pytest.importorskip("redis")
    from benchmarks.perf.store_retention import redis_server

    with redis_server() as url:
        if url is None:
            pytest.skip("redis-server is not installed")
        yield url


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_a_fault_plan_gives_the_same_attempts_with_one_and_two_workers(
    backend: str, tmp_path: Path
) -> None:
    results = {}
    for workers in (1, 2):
        if backend == "sqlite":
            with _mock(f"sqlite:{tmp_path / f'w{workers}.db'}", workers) as base:
                results[workers] = _statuses(base)
        else:
            with _redis() as url, _mock(url, workers) as base:
                results[workers] = _statuses(base)
    assert results[1] == results[2] == _expected()


def _attribute(response_id: str, body: dict[str, str], n: int) -> str | None:
    """Which worker (replica None or "2") made ``response_id`` as one of its first ``n``."""
    for replica in (None, "2"):
        ids = DeterministicIds(5, replica)
        for _ in range(n):
            new_id = ids.scope(body)
            if response_id in {new_id("resp") for _ in range(8)}:  # input item ids come first
                return replica or "1"
    return None


def test_two_workers_share_their_responses_and_both_serve(tmp_path: Path) -> None:
    made: list[tuple[str, int]] = []
    lock = threading.Lock()
    with _mock(f"sqlite:{tmp_path / 'shared.db'}", 2) as base:

        def create(k: int) -> None:
            with _fresh(base) as client:
                body = {"model": "mock", "input": f"c{k}"}
                answer = client.post("/v1/responses", json=body, headers={"x-mock-fault": "none"})
                assert answer.status_code == 200
                with lock:
                    made.append((answer.json()["id"], k))

        threads = [threading.Thread(target=create, args=(k,)) for k in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert len(made) == 16
        with _fresh(base) as client:  # each read is a new connection: any worker answers it
            for response_id, _ in made:
                answer = client.get(
                    f"/v1/responses/{response_id}", headers={"x-mock-fault": "none"}
                )
                assert answer.status_code == 200
    # Every id is a deterministic id of one of the two workers (replica ids, never randomness);
    # the first worker on the fresh file keeps a single mock's ids.
    workers = {_attribute(rid, {"model": "mock", "input": f"c{k}"}, 16) for rid, k in made}
    # SO_REUSEPORT: the kernel spreads the 16 connections over both workers' sockets.
    assert workers == {"1", "2"}


def test_workers_without_a_shared_store_is_a_usage_error() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mock_server.cli", "--workers", "2"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2
    message = run.stderr.strip().splitlines()[-1]
    assert (
        "--workers 2 needs a store the workers share" in message and "Traceback" not in run.stderr
    )


def test_background_runs_are_followed_and_cancelled_from_any_worker(tmp_path: Path) -> None:
    argv = ["responses-mock", "--port", "0", "--store", f"sqlite:{tmp_path / 'bg.db'}",
            "--workers", "2", "--inter-token", "0.02"]  # fmt: skip
    body = {"model": "mock", "input": "go", "background": True, "store": True}
    with listening_child(argv, timeout=60) as child, _fresh(child.url) as client:
        done = client.post("/v1/responses", json=body).json()
        for _ in range(6):  # new connections: followers on either worker, the run on one
            with client.stream("GET", f"/v1/responses/{done['id']}?stream=true") as stream:
                text = "".join(stream.iter_text())
            assert "response.completed" in text
        long = client.post(
            "/v1/responses", json={**body, "input": "again"},
            headers={"x-mock-scenario": "long-text"},
        ).json()  # fmt: skip
        cancelled = client.post(f"/v1/responses/{long['id']}/cancel").json()
        assert cancelled["status"] == "cancelled"
        for _ in range(6):
            # Every worker reads it cancelled, and the run's late writes do not undo it.
            assert client.get(f"/v1/responses/{long['id']}").json()["status"] == "cancelled"
