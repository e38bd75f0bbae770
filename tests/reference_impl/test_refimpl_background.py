"""Background responses over loopback: queued → in_progress → terminal, cancel, stream resume."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx2
import openai
import pytest
from refimpl_support import ScriptedEngine, ServeFn, WaitFor, check_stream, parse_sse, sdk_client

from reference_impl.engine import Final, TextDelta
from reference_impl.server import ServerThread


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.005)


def held_script(gate: threading.Event) -> list[Any]:
    return [TextDelta("first "), WaitFor(gate), TextDelta("second"), Final("stop", 4, 2)]


@pytest.fixture
def gate() -> threading.Event:
    return threading.Event()


def test_background_runs_to_completion_and_cancel_is_then_idempotent(
    client: openai.OpenAI, engine: ScriptedEngine, gate: threading.Event
) -> None:
    engine.push(held_script(gate))
    created = client.responses.create(model="m", input="x", background=True)
    assert created.status == "queued" and created.background is True
    wait_until(lambda: client.responses.retrieve(created.id).status == "in_progress")
    gate.set()
    wait_until(lambda: client.responses.retrieve(created.id).status == "completed")
    final = client.responses.retrieve(created.id)
    assert final.output_text == "first second"
    # Cancelling a finished background response returns it unchanged (SPEC §4; KB20).
    assert client.responses.cancel(created.id).to_dict() == final.to_dict()


def test_cancel_stops_generation_and_is_idempotent(
    client: openai.OpenAI, engine: ScriptedEngine, gate: threading.Event
) -> None:
    engine.push(held_script(gate))
    created = client.responses.create(model="m", input="x", background=True)
    wait_until(lambda: client.responses.retrieve(created.id).status == "in_progress")
    cancelled = client.responses.cancel(created.id)
    assert cancelled.status == "cancelled"
    assert engine.closed == 1  # the engine's iterator was closed
    again = client.responses.cancel(created.id)
    assert again.to_dict() == cancelled.to_dict()
    assert client.responses.retrieve(created.id).status == "cancelled"


def test_delete_of_a_running_background_response(
    client: openai.OpenAI, engine: ScriptedEngine, gate: threading.Event
) -> None:
    engine.push(held_script(gate))
    created = client.responses.create(model="m", input="x", background=True)
    wait_until(lambda: client.responses.retrieve(created.id).status == "in_progress")
    client.responses.delete(created.id)
    assert engine.closed == 1
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(created.id)


def test_background_stream_resumes_after_n_and_follows_live_events(
    server: ServerThread, engine: ScriptedEngine, gate: threading.Event
) -> None:
    engine.push(held_script(gate))
    url = server.base_url + "/v1/responses"
    with httpx2.Client(timeout=10) as http:
        # The first client reads up to the first delta, then goes away; the response goes on.
        seen: list[dict[str, Any]] = []
        body = {"model": "m", "input": "x", "background": True, "stream": True}
        with http.stream("POST", url, json=body) as first:
            buffer = b""
            for chunk in first.iter_bytes():
                buffer += chunk
                seen, _, _ = parse_sse(buffer.rsplit(b"\n\n", 1)[0] + b"\n\n")
                if any(e["type"] == "response.output_text.delta" for e in seen):
                    break
        assert [e["type"] for e in seen[:3]] == [
            "response.created",
            "response.queued",
            "response.in_progress",
        ]
        assert seen[0]["response"]["status"] == "queued"
        response_id = seen[0]["response"]["id"]
        n = seen[2]["sequence_number"]  # resume after response.in_progress

        resume = f"{url}/{response_id}?stream=true&starting_after={n}"
        with http.stream("GET", resume) as resumed:
            chunks = resumed.iter_bytes()
            buffer = next(chunks)
            while b"output_text.delta" not in buffer:
                buffer += next(chunks)
            gate.set()  # the rest of the response is generated while we follow it
            for chunk in chunks:
                buffer += chunk
        events, _, done = parse_sse(buffer)
        assert done
        assert events[0]["sequence_number"] == n + 1  # SPEC §2.12
        assert all(e["type"] != "response.created" for e in events)
        check_stream(events, first_seq=n + 1)
        assert events[-1]["type"] == "response.completed"
        assert [e["sequence_number"] for e in events] == list(range(n + 1, n + 1 + len(events)))

        # A full replay (no starting_after) starts at response.created.
        replay, _, done = parse_sse(http.get(f"{url}/{response_id}?stream=true").content)
        check_stream(replay)
        assert done and replay[-1] == events[-1]


def test_sdk_retrieve_stream_with_starting_after(
    client: openai.OpenAI, engine: ScriptedEngine
) -> None:
    engine.push([TextDelta("hello"), Final("stop", 1, 1)])
    created = client.responses.create(model="m", input="x", background=True)
    wait_until(lambda: client.responses.retrieve(created.id).status == "completed")
    stream = client.responses.retrieve(created.id, stream=True, starting_after=3)
    numbers = [event.sequence_number for event in stream]
    assert numbers[0] == 4 and numbers == list(range(4, 4 + len(numbers)))


def test_cancel_ends_a_followed_stream_without_terminal_event(
    server: ServerThread, engine: ScriptedEngine, gate: threading.Event
) -> None:
    engine.push(held_script(gate))
    with sdk_client(server) as client, httpx2.Client(timeout=10) as http:
        created = client.responses.create(model="m", input="x", background=True)
        wait_until(lambda: client.responses.retrieve(created.id).status == "in_progress")
        result: dict[str, bytes] = {}

        def follow() -> None:
            result["body"] = http.get(
                f"{server.base_url}/v1/responses/{created.id}?stream=true"
            ).content

        follower = threading.Thread(target=follow)
        follower.start()
        client.responses.cancel(created.id)
        follower.join(10)
        events, _, done = parse_sse(result["body"])
        # SPEC §2.13: the stream may end without a terminal event; the object says cancelled.
        assert not done and events[-1]["type"] != "response.completed"
        assert client.responses.retrieve(created.id).status == "cancelled"


def test_resume_errors(client: openai.OpenAI, server: ServerThread) -> None:
    foreground = client.responses.create(model="m", input="x")
    url = f"{server.base_url}/v1/responses/{foreground.id}?stream=true"
    response = httpx2.get(url)
    assert response.status_code == 400 and response.json()["error"]["param"] == "stream"
    background = client.responses.create(model="m", input="x", background=True)
    bad = httpx2.get(f"{server.base_url}/v1/responses/{background.id}?stream=true&starting_after=x")
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "starting_after"


def test_background_requires_store(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model="m", input="x", background=True, store=False)


def test_shutdown_cancels_running_background_tasks(
    serve: ServeFn, engine: ScriptedEngine, gate: threading.Event
) -> None:
    server = serve(engine)
    engine.push(held_script(gate))
    with sdk_client(server) as client:
        created = client.responses.create(model="m", input="x", background=True)
        wait_until(lambda: client.responses.retrieve(created.id).status == "in_progress")
    server.stop()
    assert engine.closed == 1


def test_a_follower_on_another_replica_reads_the_end_logged_as_the_run_finished() -> None:
    """A follower of a run on another replica (a shared store) reads the log, then the status. The
    run logs its last events and then stores its terminal status: when both land between the
    follower's two reads, the follower sees `completed` with the terminal event not yet read, and
    must read the log once more rather than end the stream without it (seen once, under load,
    in test_mock_workers' background case: a followed stream ended after a delta)."""
    import asyncio

    from reference_impl.service.runner import BackgroundRunner

    delta = {"type": "response.output_text.delta", "sequence_number": 3, "delta": "hi"}
    done = {"type": "response.completed", "sequence_number": 4, "response": {}}

    class SharedStore:
        """The other replica's run finishes between the follower's read of the log and its read
        of the status."""

        def __init__(self) -> None:
            self.log = [delta]
            self.status = "in_progress"

        def claim_replica(self) -> None: ...

        async def events_after(self, response_id: str, after: int) -> list[dict[str, Any]]:
            found = [e for e in self.log if e["sequence_number"] > after]
            if self.status == "in_progress":
                self.log.append(done)  # the run's last batch, then its status
                self.status = "completed"
            return found

        async def get(self, response_id: str) -> dict[str, Any]:
            return {"id": response_id, "status": self.status}

    async def follow() -> list[str]:
        runner = BackgroundRunner(SharedStore())  # type: ignore[arg-type]
        return [e["type"] async for e in runner.follow("resp_1", 2)]

    assert asyncio.run(follow()) == ["response.output_text.delta", "response.completed"]
