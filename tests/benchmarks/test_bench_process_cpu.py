"""benchmarks/perf/process_cpu.py: a server's CPU over a short window is read to the nanosecond
where the system can (a /proc counter moves in 10 ms ticks: a short level of the mock's capacity
sweep read 0.0 CPU seconds there and failed in CI)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from benchmarks.perf.process_cpu import process_cpu, process_cpu_seconds

_BURN = "import sys, time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\nsys.stdin.read()"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a CPU clock per process: Linux")
def test_a_few_milliseconds_of_another_process_are_seen() -> None:
    child = subprocess.Popen([sys.executable, "-c", _BURN], stdin=subprocess.PIPE)
    try:
        time.sleep(0.1)
        readings = []
        for _ in range(3):
            readings.append(process_cpu_seconds(child.pid))
            time.sleep(0.013)
        # the readings are not whole clock ticks (10 ms): to the nanosecond, a whole tick is a
        # 1-in-10^7 chance, three of them never; a tick counter gives nothing else
        assert any(abs(r * 100 - round(r * 100)) > 1e-4 for r in readings), readings
        time.sleep(0.4)
        # and the total agrees with the kernel's tick counters to within a few ticks
        assert abs(process_cpu_seconds(child.pid) - sum(process_cpu(child.pid))) < 0.05
    finally:
        child.communicate(b"")
