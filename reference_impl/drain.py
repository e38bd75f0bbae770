"""Graceful shutdown's last step: responses still generating when the drain bound expires end
with a terminal event (issue #39 item 7).

:func:`~reference_impl.service.runner.drive` registers the task that runs each response
(:func:`generating`); at the drain deadline the server calls :func:`expire`, which cancels those
tasks with :data:`DRAIN_EXPIRED` as the message. ``drive`` takes such a cancel back and fails the
response (``error`` + ``response.failed``, code ``server_shutting_down``) instead of cutting its
stream without a terminal event, as it does for any other cancel.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DRAIN_EXPIRED", "SHUTDOWN_CODE", "SHUTDOWN_MESSAGE", "expire", "expired", "generating"]

DRAIN_EXPIRED = "responses: drain bound expired"
SHUTDOWN_CODE = "server_shutting_down"
SHUTDOWN_MESSAGE = "The server is shutting down: the response was stopped before it finished."

# Per event loop: each server (a ServerThread in tests) stops only its own responses.
_generating: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[asyncio.Task[object]]] = (
    weakref.WeakKeyDictionary()
)


@contextmanager
def generating() -> Iterator[None]:
    """The current task generates a response until the block ends."""
    task = asyncio.current_task()
    if task is None:
        yield
        return
    tasks = _generating.setdefault(task.get_loop(), set())
    tasks.add(task)
    try:
        yield
    finally:
        tasks.discard(task)


def expired(error: asyncio.CancelledError) -> bool:
    """Whether ``error`` is the drain deadline's cancel (then take it back with ``uncancel``)."""
    return DRAIN_EXPIRED in error.args


def expire() -> int:
    """Stop every response still generating on the running loop; returns how many."""
    tasks = [t for t in _generating.get(asyncio.get_running_loop(), ()) if not t.done()]
    for task in tasks:
        task.cancel(DRAIN_EXPIRED)
    return len(tasks)
