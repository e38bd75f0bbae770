"""Run peers' Responses compliance suites against the mock and keep what they say (``tox -e
peer-suites``; docs/peer-suites.md).

One peer today: llm-comply (PyPI, pinned by the tox env), whose ``open-responses`` format is a
Python port of Open Responses' compliance tests (13 tests). It runs against ``responses-mock``,
started here as a separate process through its console entry point, on loopback. Its JSON report
and console output are written to ``--report-dir``; the summary line is printed.

Exit codes: 0 the peers ran and every test passed or was skipped for a reason they state, 1 a
peer's test failed, 2 the run broke (the mock did not start, a peer is not installed).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.perf.localhost import free_port as _free_port
from benchmarks.perf.servers import wait_http

# llm-comply skips its reasoning test unless the model name looks like a reasoning model's
# (o1, o3, o4, gpt-5, deepseek-r); the mock serves any model name.
MODEL = "gpt-5"


def _mock_command(port: int) -> list[str]:
    entry = shutil.which("responses-mock", path=str(Path(sys.executable).parent))
    if entry is None:
        return [
            sys.executable,
            "-c",
            "from mock_server.cli import main; main()",
            "--port",
            str(port),
        ]
    return [entry, "--port", str(port)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--report-dir", type=Path, default=Path("reports/peer-suites"))
    args = parser.parse_args(argv)
    comply = shutil.which("llm-comply", path=str(Path(sys.executable).parent))
    if comply is None:
        print("peer-suites: llm-comply is not installed (tox -e peer-suites installs it)")
        return 2
    args.report_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}/v1"
    mock = subprocess.Popen(
        _mock_command(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        if not wait_http(f"{url}/models", time.monotonic() + 30, every=0.1, timeout=1):
            print(f"peer-suites: the mock did not answer on {url} within 30 s")
            return 2
        base = [comply, "-u", url, "-k", "unused", "-m", MODEL]
        console = subprocess.run(base, capture_output=True, text=True, timeout=600)
        (args.report_dir / "llm-comply.txt").write_text(console.stdout + console.stderr)
        report = subprocess.run([*base, "--json"], capture_output=True, text=True, timeout=600)
        (args.report_dir / "llm-comply.json").write_text(report.stdout)
        try:
            summary = json.loads(report.stdout)["summary"]
        except (ValueError, KeyError, TypeError):
            print(f"peer-suites: llm-comply gave no JSON report (exit {report.returncode})")
            return 2
    finally:
        mock.terminate()
        mock.wait(timeout=10)
    print(
        f"llm-comply (open-responses) against responses-mock: {summary['passed']}/"
        f"{summary['total']} passed, {summary['failed']} failed, {summary['skipped']} skipped; "
        f"report: {args.report_dir / 'llm-comply.json'}"
    )
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
