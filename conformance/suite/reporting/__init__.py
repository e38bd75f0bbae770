"""Reports of a run, all from one JSON index (so that merged indexes render the same way):

- ``index.json`` — target → check → outcome, with evidence (:mod:`.index`);
- ``junit.xml`` — one test suite per target, a test case per check and per case (:mod:`.junit`);
- ``report.html`` — a matrix of checks × targets, with the evidence of every non-pass (:mod:`.html`).

Every text goes through the run's :class:`~cassettes.redaction.Redactor` before it is written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cassettes.redaction import Redactor

from .html import render_html
from .index import NotAnIndex, build_index, exit_code, load_index, merge_indexes
from .junit import render_junit

__all__ = [
    "NotAnIndex",
    "build_index",
    "exit_code",
    "load_index",
    "merge_indexes",
    "render_html",
    "render_junit",
    "report_dir_problem",
    "write_reports",
]

INDEX, JUNIT, HTML = "index.json", "junit.xml", "report.html"


def report_dir_problem(report_dir: str | Path) -> str | None:
    """Why reports cannot be written into ``report_dir`` (one line), or None: asked before a run,
    so that an unwritable folder is said at once, not as a traceback after the whole run. Nothing
    is created."""
    probe = Path(report_dir)
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        return f"cannot write {report_dir}: {probe} is not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"cannot write {report_dir}: {probe} is not writable"
    return None


def write_reports(index: dict[str, Any], report_dir: str | Path, redactor: Redactor) -> list[Path]:
    """Write the three reports of ``index`` into ``report_dir``; returns their paths.

    All three are rendered (and encoded) before the folder is made or a file written, so that a
    report that cannot be rendered leaves no half-written report folder. A lone surrogate (a
    ``\\udXXX`` escape in a JSON string) is written as that escape, not a crash.
    """
    clean = redactor.value(index)
    texts = {
        INDEX: json.dumps(clean, indent=2, ensure_ascii=False) + "\n",
        JUNIT: render_junit(clean),
        HTML: render_html(clean),
    }
    data = {
        name: redactor.text(text).encode("utf-8", "backslashreplace")
        for name, text in texts.items()
    }
    out = Path(report_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, blob in data.items():
        path = out / name
        path.write_bytes(blob)
        paths.append(path)
    return paths
