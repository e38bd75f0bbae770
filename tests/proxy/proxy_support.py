"""Running ``responses-conformance proxy`` as a user does: a fresh interpreter, a free port, the
reports read back after SIGINT."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "tests" / "suite"
if str(SUITE) not in sys.path:  # broken_servers, suite_support
    sys.path.insert(0, str(SUITE))


@dataclass
class ProxyRun:
    base_url: str = ""
    code: int | None = None
    stdout: str = ""
    stderr: str = ""
    report_dir: Path | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def index(self) -> dict[str, Any]:
        assert self.report_dir is not None
        doc: dict[str, Any] = json.loads((self.report_dir / "index.json").read_text())
        return doc

    @property
    def target(self) -> dict[str, Any]:
        entry: dict[str, Any] = next(iter(self.index["targets"].values()))
        return entry

    def outcomes(self) -> dict[str, str]:
        return {cid: c["outcome"] for cid, c in self.target["checks"].items()}

    def failing(self) -> set[str]:
        return {cid for cid, o in self.outcomes().items() if o in ("fail", "xpass")}

    def exchange_lines(self) -> list[str]:
        return [ln for ln in self.stdout.splitlines() if ln.startswith(("PASS ", "FAIL ", "---- "))]


@contextmanager
def proxy(
    upstream: str, *args: str, report_dir: Path | None = None, stop: int = signal.SIGINT
) -> Iterator[ProxyRun]:
    """The proxy in front of ``upstream``; on exit it gets ``stop`` and its results are filled
    in (``code``, ``stdout``, ``stderr``)."""
    command = [sys.executable, "-m", "conformance.cli", "proxy", "--upstream", upstream,
               "--port", "0", *args]  # fmt: skip
    if report_dir is not None:
        command += ["--report-dir", str(report_dir)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("OPENAI_API_KEY", None)
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    run = ProxyRun(report_dir=report_dir)
    assert process.stdout is not None
    try:
        deadline = time.monotonic() + 60
        first = ""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 1.0)
            if ready:
                first = process.stdout.readline()
                break
            if process.poll() is not None:
                break
        assert first.startswith("proxy: http://"), (first, process.stderr and process.stderr.read())
        run.base_url = first.split()[1]
        run.lines.append(first)
        yield run
    finally:
        if process.poll() is None:
            process.send_signal(stop)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        run.code = process.returncode
        run.stdout = "".join(run.lines) + out
        run.stderr = err
