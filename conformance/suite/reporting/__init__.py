"""Reports of a run, all from one JSON index (so that merged indexes render the same way):

- ``index.json`` — target → check → outcome, with evidence (:mod:`.index`);
- ``junit.xml`` — one test suite per target, a test case per check and per case (:mod:`.junit`);
- ``report.html`` — a matrix of checks × targets, with the evidence of every non-pass (:mod:`.html`).

Every text goes through the run's :class:`~conformance.suite.redact.Redactor` before it is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..redact import Redactor
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
    "write_reports",
]

INDEX, JUNIT, HTML = "index.json", "junit.xml", "report.html"


def write_reports(index: dict[str, Any], report_dir: str | Path, redactor: Redactor) -> list[Path]:
    """Write the three reports of ``index`` into ``report_dir``; returns their paths."""
    out = Path(report_dir)
    out.mkdir(parents=True, exist_ok=True)
    clean = redactor.value(index)
    files = {
        INDEX: json.dumps(clean, indent=2, ensure_ascii=False) + "\n",
        JUNIT: render_junit(clean),
        HTML: render_html(clean),
    }
    paths = []
    for name, text in files.items():
        path = out / name
        path.write_text(redactor.text(text), encoding="utf-8")
        paths.append(path)
    return paths
