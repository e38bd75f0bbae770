"""CPU seconds of a process and all its descendants, sampled over time from /proc (psutil)."""

from __future__ import annotations

import bisect
import threading
import time

import psutil


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
            root = psutil.Process(self.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return
        for proc in procs:
            try:
                with proc.oneshot():
                    key = (proc.pid, proc.create_time())
                    t = proc.cpu_times()
                    self._seen[key] = t.user + t.system
            except psutil.Error:
                continue
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
