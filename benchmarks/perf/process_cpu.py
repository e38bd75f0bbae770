"""CPU seconds (user + system) of a process, or of a process and all its descendants: read once,
or sampled over time from /proc (psutil).

Every perf benchmark that charges CPU to a server or a tool reads it here, so "the CPU of a
process tree" means the same thing in every table: each live process of the tree counted once,
keyed by (pid, create time) so that a reused pid is another process.
"""

from __future__ import annotations

import bisect
import ctypes
import ctypes.util
import sys
import threading
import time

import psutil

__all__ = [
    "TreeCPU",
    "cpu_at",
    "process_cpu",
    "process_cpu_seconds",
    "tree_cpu",
    "tree_cpu_by_process",
]


def process_cpu(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of ``pid`` so far (its own, not its children's)."""
    times = psutil.Process(pid).cpu_times()
    return float(times.user), float(times.system)


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (all its threads, not its children's), to the
    nanosecond where the system has a CPU clock per process (Linux: ``clock_getcpuclockid``);
    else from :func:`process_cpu`, whose /proc counters move in clock ticks (10 ms): a server's
    share of a short measured window can read 0 there."""
    if _LIBC is not None:
        clock, now = ctypes.c_int(), _Timespec()
        if (
            _LIBC.clock_getcpuclockid(pid, ctypes.byref(clock)) == 0
            and _LIBC.clock_gettime(clock, ctypes.byref(now)) == 0
        ):
            return float(now.tv_sec + now.tv_nsec / 1e9)
    return sum(process_cpu(pid))


def tree_cpu_by_process(pid: int) -> dict[tuple[int, float], float]:
    """User + system CPU seconds of ``pid`` and of each descendant alive now, keyed by (pid,
    create time). ``psutil.NoSuchProcess`` if ``pid`` itself is gone; a descendant that exits
    while it is read is left out."""
    root = psutil.Process(pid)
    seen: dict[tuple[int, float], float] = {}
    for proc in [root, *root.children(recursive=True)]:
        try:
            with proc.oneshot():
                times = proc.cpu_times()
                seen[(proc.pid, proc.create_time())] = times.user + times.system
        except psutil.Error:
            continue
    return seen


def tree_cpu(pid: int) -> float:
    """User + system CPU seconds so far of ``pid`` and all its descendants alive now;
    ``psutil.NoSuchProcess`` if ``pid`` itself is gone."""
    return sum(tree_cpu_by_process(pid).values())


class TreeCPU:
    """Samples ``pid``'s process tree every ``interval`` s: (wall time, CPU seconds so far).

    A descendant's CPU is remembered from its last sample, so processes that exit mid-run still
    count (up to one interval of their last work; the reaped total from ``wait4`` bounds that).
    """

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid = pid
        self.interval = interval
        self.series: list[tuple[float, float]] = []
        self._seen: dict[tuple[int, float], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-cpu", daemon=True)

    def start(self) -> TreeCPU:
        self._thread.start()
        return self

    def _sample(self) -> None:
        try:
            self._seen.update(tree_cpu_by_process(self.pid))
        except psutil.Error:
            return
        self.series.append((time.time(), sum(self._seen.values())))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def at(self, when: float) -> float:
        """CPU seconds used by ``when``, linear between the samples either side."""
        return cpu_at(self.series, when)


def cpu_at(series: list[tuple[float, float]], when: float) -> float:
    if not series:
        return 0.0
    times = [t for t, _ in series]
    i = bisect.bisect_left(times, when)
    if i == 0:
        return series[0][1]
    if i >= len(series):
        return series[-1][1]
    (t0, c0), (t1, c1) = series[i - 1], series[i]
    return c0 + (c1 - c0) * ((when - t0) / (t1 - t0) if t1 > t0 else 0.0)
