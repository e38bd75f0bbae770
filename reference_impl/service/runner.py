"""The async shell around the assembler: drive an engine, run background responses.

:func:`drive` pulls chunks from ``engine.generate(request)`` and pushes the assembler's events in
batches (one batch per chunk) to a callback. Whatever ends the run — the terminal event, an engine
error, the callback failing (client disconnect) or a task cancel — the engine's iterator is closed
with ``aclose()`` so the backend stops generating.

:class:`BackgroundRunner` runs ``background: true`` responses as asyncio tasks: it logs every event
to the store (for ``starting_after`` resume, SPEC §2.12), wakes followers of the live stream, and
cancels (SPEC §4; status ``cancelled``, the stream ends without a terminal event, SPEC §2.13).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import anyio

from .. import drain
from ..assembler.stream import Event, ResponseAssembler
from ..engine import Chunk, Engine, EngineError, GenerationRequest, ReadyChunks
from ..errors import SERVER_ERROR_MESSAGE
from ..failures import failures
from ..stores.base import ResponseStore

__all__ = ["TERMINAL_EVENTS", "TERMINAL_STATUSES", "BackgroundRunner", "drive"]

log = logging.getLogger(__name__)

TERMINAL_EVENTS = frozenset({"response.completed", "response.incomplete", "response.failed"})
TERMINAL_STATUSES = frozenset({"completed", "incomplete", "failed", "cancelled"})


Emit = Callable[[list[Event]], Awaitable[None]]
_FOLLOW_POLL = 0.05  # seconds between reads of a log another process writes (shared stores)
_FOLLOW_IDLE = 30.0  # seconds without a new event before such a follower gives up
_NO_FINAL_CHUNK = "The engine ended its stream without a final chunk."


async def drive(
    engine: Engine,
    request: GenerationRequest,
    asm: ResponseAssembler,
    emit: Emit | None = None,
    *,
    finished: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Run ``engine`` for ``request`` through ``asm``: each batch of events, from
    ``response.in_progress`` to the terminal event, is awaited in ``emit``; ``finished`` is awaited
    once the response is finished, before the batch with the terminal event is emitted.

    Pushing batches (instead of yielding them) keeps a stream's per-event path short: the
    engine's iterator, the assembler, ``emit``. An exception out of ``emit`` or ``finished``
    (the client went away) propagates; only the engine's own errors become a failed response.
    A response still generating when a shutdown's drain bound expires fails with code
    ``server_shutting_down`` (:mod:`reference_impl.drain`).
    """
    with drain.generating():
        await _drive(engine, request, asm, emit, finished)


async def _drive(
    engine: Engine,
    request: GenerationRequest,
    asm: ResponseAssembler,
    emit: Emit | None,
    finished: Callable[[], Awaitable[None]] | None,
) -> None:
    stream: AsyncIterator[Chunk] | None = None
    ready: Iterator[Chunk] | None = None  # engine.ReadyChunks: no await per chunk
    try:
        events = asm.begin()
        if events and emit is not None:
            await emit(events)
        while True:
            try:
                if stream is None:
                    stream = engine.generate(request)
                    next_chunk = stream.__anext__
                    if isinstance(stream, ReadyChunks):
                        ready = stream.chunks
                chunk = next(ready, None) if ready is not None else await next_chunk()
                events = asm.feed(chunk) if chunk is not None else asm.fail(_NO_FINAL_CHUNK)
            except StopAsyncIteration:
                events = asm.fail(_NO_FINAL_CHUNK)
            except EngineError as exc:
                events = asm.fail(exc.message, exc.code)
            except asyncio.CancelledError as cancel:
                if not drain.expired(cancel):
                    raise
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()
                events = asm.fail(drain.SHUTDOWN_MESSAGE, drain.SHUTDOWN_CODE)
            except Exception:
                failures.exception(log, "engine failed while generating %s", asm.response_id)
                events = asm.fail(SERVER_ERROR_MESSAGE)
            done = asm.finished
            if done and finished is not None:
                await finished()
            if events and emit is not None:
                await emit(events)
            if done:
                return
    finally:
        if ready is not None:
            # ReadyChunks: closing its plain iterator needs no await, so no shielded scope
            # (an anyio cancel scope is a measurable part of a short stream's fixed cost).
            close = getattr(ready, "close", None)
            if close is not None:
                close()
        else:
            aclose = getattr(stream, "aclose", None) if stream is not None else None
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


class BackgroundRunner:
    """Background responses of one app: their tasks and the wake-ups of their live followers."""

    def __init__(self, store: ResponseStore) -> None:
        self._store = store
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._wakeups: dict[str, asyncio.Event] = {}

    def running(self, response_id: str) -> bool:
        return response_id in self._tasks

    def start(
        self,
        engine: Engine,
        request: GenerationRequest,
        asm: ResponseAssembler,
        finished: Callable[[], Awaitable[None]] | None = None,
    ) -> asyncio.Task[None]:
        """Run the response in a task; ``finished`` as in :func:`drive`."""
        response_id = asm.response_id
        self._wakeups[response_id] = asyncio.Event()
        task = asyncio.create_task(
            self._run(engine, request, asm, finished), name=f"background {response_id}"
        )
        self._tasks[response_id] = task
        task.add_done_callback(lambda _t: self._finished(response_id))
        wait_cancel = getattr(self._store, "wait_cancel", None)
        if wait_cancel is not None:
            # A store shared by replicas (Redis) tells this replica about a cancel that another
            # replica received, so the task stops here and generation is aborted
            # (tests/reference_impl/test_refimpl_redis.py).
            watcher = asyncio.create_task(self._watch_cancel(wait_cancel, response_id, task))
            task.add_done_callback(lambda _t: watcher.cancel())
        return task

    @staticmethod
    async def _watch_cancel(
        wait_cancel: Callable[[str], Awaitable[None]], response_id: str, task: asyncio.Task[None]
    ) -> None:
        await wait_cancel(response_id)
        task.cancel()

    def _finished(self, response_id: str) -> None:
        self._tasks.pop(response_id, None)
        self._wake(response_id)
        self._wakeups.pop(response_id, None)

    def _wake(self, response_id: str) -> None:
        event = self._wakeups.get(response_id)
        if event is not None:
            event.set()
            self._wakeups[response_id] = asyncio.Event()

    async def _run(
        self,
        engine: Engine,
        request: GenerationRequest,
        asm: ResponseAssembler,
        finished: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        response_id = asm.response_id

        async def log_batch(batch: list[Event]) -> None:
            await self._store.append_events(response_id, batch)
            if any(e["type"] in _STATUS_EVENTS for e in batch):
                await self._store.put(asm.response)
            self._wake(response_id)

        try:
            await drive(engine, request, asm, log_batch, finished=finished)
        except asyncio.CancelledError:
            with anyio.CancelScope(shield=True):
                await self._store.put(asm.cancel())
            raise
        except Exception:
            failures.exception(log, "background response %s failed", response_id)
            with anyio.CancelScope(shield=True):
                events = asm.fail(SERVER_ERROR_MESSAGE)
                await self._store.append_events(response_id, events)
                await self._store.put(asm.response)

    async def cancel(self, response_id: str) -> None:
        """Stop the response's task (if it runs here) and wait until it stored ``cancelled``."""
        task = self._tasks.get(response_id)
        if task is None:
            return
        task.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait([task])

    async def follow(self, response_id: str, after: int) -> AsyncIterator[Event]:
        """Logged events with ``sequence_number > after``, then live ones until the terminal
        event, or until the task stops (cancel: no terminal event, SPEC §2.13)."""
        last = after
        quiet_since = time.monotonic()
        while True:
            wakeup = self._wakeups.get(response_id)
            running = self.running(response_id)
            for event in await self._store.events_after(response_id, last):
                yield event
                last = int(event["sequence_number"])
                quiet_since = time.monotonic()
                if event["type"] in TERMINAL_EVENTS:
                    return
            if not running or wakeup is None:
                if not await self._running_elsewhere(response_id, quiet_since):
                    # A run logs its events before it stores its status: what it logged between
                    # the read above and the status it just ended with is read once more.
                    for event in await self._store.events_after(response_id, last):
                        yield event
                        if event["type"] in TERMINAL_EVENTS:
                            return
                    return
                await anyio.sleep(_FOLLOW_POLL)
                continue
            await wakeup.wait()

    async def _running_elsewhere(self, response_id: str, quiet_since: float) -> bool:
        """Whether another process on a shared store (``claim_replica``: SQLite, Redis) runs the
        response, so its stored log is polled: still queued or in progress, and a new event came
        within ``_FOLLOW_IDLE`` seconds (a process that died mid-run leaves it in progress)."""
        if getattr(self._store, "claim_replica", None) is None:
            return False
        if time.monotonic() - quiet_since > _FOLLOW_IDLE:
            return False
        stored = await self._store.get(response_id)
        return stored is not None and stored.get("status") in ("queued", "in_progress")

    async def aclose(self) -> None:
        """Cancel every running task (app shutdown)."""
        for task in list(self._tasks.values()):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks.values()))


_STATUS_EVENTS = frozenset({"response.in_progress"} | TERMINAL_EVENTS)
