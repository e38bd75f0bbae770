"""A pytest plugin (``-p socket_leaks``, in pyproject's addopts): a socket a test leaks fails that
test, not whichever later test the garbage collector happens to free it in.

An unclosed socket is reported (``ResourceWarning: unclosed <socket.socket ...>``) when it is
freed. Freed by its reference count, that is inside the test that dropped it; left in a reference
cycle (a client and its pool, a traceback's frames), it is freed by the cyclic collector, at any
later allocation: ``filterwarnings = error`` then failed an unrelated test. So, after each test
that created a socket which is still open, this plugin runs ``gc.collect()`` and fails the test
if that collection reports an unclosed socket, naming where it was allocated when tracemalloc
is on (``PYTHONTRACEMALLOC=20``). A socket still referenced then (by a thread, a fixture) that
the collector frees later still fails the later test, but its message names the test that left
it open. Tests that close their sockets, or open none, pay nothing but an audit-hook call per
socket created; ``SOCKET_LEAKS_STATS=1`` prints how many collections ran and their time.
"""

from __future__ import annotations

import gc
import os
import sys
import time
import tracemalloc
import warnings
import weakref
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

# Sockets made since the last teardown (weak references; appended from any thread, so a list:
# a WeakSet's iteration fails when another thread adds to it).
_created: list[weakref.ref[Any]] = []
# Sockets a test left open that the collector did not free: the test's node ID by id(socket),
# so that the warning a later collection gives for one of them names where it came from.
_left_open: dict[int, tuple[weakref.ref[Any], str]] = {}
_hooked = False
_cost = [0, 0.0]  # collections run, seconds spent in them (SOCKET_LEAKS_STATS=1 prints them)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.__new__":
        _created.append(weakref.ref(args[0]))


def pytest_configure(config: pytest.Config) -> None:
    global _hooked
    if not _hooked:  # an audit hook cannot be removed: one for the process
        sys.addaudithook(_audit)
        _hooked = True


@pytest.hookimpl(trylast=True)  # after pytest's own hook (unraisableexception), to wrap it
def pytest_sessionstart(session: pytest.Session) -> None:
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        origin = _left_open.get(id(unraisable.object))
        if origin is not None:
            unraisable = SimpleNamespace(
                exc_type=unraisable.exc_type,
                exc_value=unraisable.exc_value,
                exc_traceback=unraisable.exc_traceback,
                object=unraisable.object,
                err_msg=f"{unraisable.err_msg or 'Exception ignored in'} (a socket that "
                f"{origin[1]} left open, freed later by the garbage collector)",
            )
        previous(unraisable)

    sys.unraisablehook = hook

    def restore() -> None:
        sys.unraisablehook = previous

    session.config.add_cleanup(restore)


def _open(sock: Any) -> bool:
    if sock is None:
        return False
    try:
        return bool(sock.fileno() != -1)
    except Exception:  # a half-made or foreign socket object: not ours to judge
        return False


def _any_open(refs: list[weakref.ref[Any]]) -> bool:
    # No socket may stay referenced from the caller's frame: a comprehension's `:=` would.
    return any(_open(ref()) for ref in refs)


def _where(source: object) -> str:
    trace = tracemalloc.get_object_traceback(source) if source is not None else None
    if trace is None:
        return "  (PYTHONTRACEMALLOC=20 names where it was allocated)"
    return "\n".join(trace.format())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    try:
        return (yield)
    finally:
        batch = _created[:]
        del _created[: len(batch)]  # others may have been appended meanwhile: kept
        if _any_open(batch):  # a fixture's server, a pooled connection, or a leak: collect
            started = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ResourceWarning)
                gc.collect()
            _cost[0] += 1
            _cost[1] += time.perf_counter() - started
            _remember_open(item.nodeid, batch)
            leaks = [
                w
                for w in caught
                if issubclass(w.category, ResourceWarning) and "socket" in str(w.message)
            ]
            if leaks:
                found = "\n".join(
                    f"{w.message}\n{_where(getattr(w, 'source', None))}" for w in leaks
                )
                pytest.fail(
                    f"{item.nodeid} left unclosed sockets to the garbage collector:\n{found}"
                )


def _remember_open(nodeid: str, batch: list[weakref.ref[Any]]) -> None:
    """Note which of ``batch`` survived the collection open, and forget closed or freed ones."""
    for key, (ref, _) in list(_left_open.items()):
        sock = ref()
        if sock is None or not _open(sock):
            del _left_open[key]
    for ref in batch:
        sock = ref()
        if sock is not None and _open(sock):
            _left_open[id(sock)] = (ref, nodeid)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if os.environ.get("SOCKET_LEAKS_STATS"):
        count, seconds = _cost
        terminalreporter.write_line(f"socket_leaks: {count} collections, {seconds:.2f} s in them")
        for ref, nodeid in _left_open.values():
            sock = ref()
            if sock is not None and _open(sock):
                terminalreporter.write_line(f"socket_leaks: still open from {nodeid}: {sock!r}")
