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
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DRAIN_EXPIRED", "SHUTDOWN_CODE", "SHUTDOWN_MESSAGE", "expire", "expired", "generating"]

DRAIN_EXPIRED = "responses: drain bound expired"
SHUTDOWN_CODE = "server_shutting_down"
SHUTDOWN_MESSAGE = "The server is shutting down: the response was stopped before it finished."

_generating: set[asyncio.Task[object]] = set()
_expired = False


@contextmanager
def generating() -> Iterator[None]:
    """The current task generates a response until the block ends."""
    task = asyncio.current_task()
    if task is None:
        yield
        return
    _generating.add(task)
    try:
        yield
    finally:
        _generating.discard(task)


def expired(error: asyncio.CancelledError) -> bool:
    """Whether ``error`` is the drain deadline's cancel (then take it back with ``uncancel``)."""
    return _expired and DRAIN_EXPIRED in error.args


def expire() -> int:
    """Stop every response still generating; returns how many."""
    global _expired
    _expired = True
    tasks = [task for task in _generating if not task.done()]
    for task in tasks:
        task.cancel(DRAIN_EXPIRED)
    return len(tasks)


def reset() -> None:
    """A new server in this process (tests) starts undrained."""
    global _expired
    _expired = False
    _generating.clear()
