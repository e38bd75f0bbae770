"""Two reference replicas sharing one Redis (``redis_replica.py`` as child processes), for the
cross-replica tests; each prints ``listening on URL`` when it is ready."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPLICA = Path(__file__).resolve().parent / "redis_replica.py"


@contextmanager
def redis_replicas(redis_url: str, *args: str) -> Iterator[tuple[str, str]]:
    """Start two replicas on ``redis_url`` (extra ``args`` for each); yield their base URLs."""
    procs: list[subprocess.Popen[str]] = []
    urls: list[str] = []
    try:
        for _ in range(2):
            proc = subprocess.Popen(
                [sys.executable, str(REPLICA), "--redis", redis_url, *args],
                stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            procs.append(proc)
            assert proc.stdout is not None
            line = proc.stdout.readline()
            assert line.startswith("listening on "), line
            urls.append(line.split()[-1])
        yield urls[0], urls[1]
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()
