"""The JSON index: ``targets → name → checks → check ID → outcome`` with evidence; the source of
the other reports, and what ``responses-conformance report`` merges across runs."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from cassettes.reader import TooLarge, read_at_most

from ...catalog.registry import REGISTRY
from ...errors import ConformanceError
from ..results import TargetResult
from .shape import shape_errors

__all__ = [
    "FORMAT",
    "MAX_INDEX_BYTES",
    "NotAnIndex",
    "build_index",
    "exit_code",
    "load_index",
    "merge_indexes",
]

FORMAT = "responses-conformance.index/1"

MAX_INDEX_BYTES = 512 * 1024 * 1024
"""The largest index :func:`load_index` reads: the file limit of ``check`` (conformance.offline.recorded)."""


class NotAnIndex(ConformanceError, ValueError):
    """A file is not a JSON index of this format."""


def _version() -> str:
    try:
        return metadata.version("responses-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def _now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def build_index(results: Iterable[TargetResult], *, strict: bool) -> dict[str, Any]:
    targets: dict[str, Any] = {}
    for result in results:
        outcomes = result.outcomes()
        targets[result.target.name] = {
            "target": result.target.as_dict(),
            "status": result.status,
            "reason": result.reason,
            "exit_code": result.exit_code(),
            "strict": result.strict,
            "duration_s": round(result.duration, 3),
            "summary": result.summary(outcomes),
            "checks": {cid: o.as_dict() for cid, o in outcomes.items()},
            "cases": [c.as_dict() for c in result.cases],
        }
    return {
        "format": FORMAT,
        "generated_at": _now(),
        "tool": {"name": "responses-conformance", "version": _version()},
        "strict": strict,
        "checks": {cid: REGISTRY[cid].as_dict() for cid in sorted(REGISTRY)},
        "targets": targets,
    }


def load_index(path: str | Path) -> dict[str, Any]:
    """The index in ``path``; ``-`` reads it from standard input. At most
    :data:`MAX_INDEX_BYTES` are read: a larger input (``/dev/zero``, a pipe that does not end) is
    refused, not read into memory."""
    limit = MAX_INDEX_BYTES
    source, path = path, "(stdin)" if str(path) == "-" else path  # `path`: how messages name it
    try:
        data = read_at_most(source, limit)
    except TooLarge as exc:
        raise NotAnIndex(f"{path}: {exc} for an index") from None
    except OSError as exc:
        raise NotAnIndex(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise NotAnIndex(f"{path} is not JSON: {exc}") from None
    except RecursionError:
        raise NotAnIndex(f"{path} is not JSON this reader can take: nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise NotAnIndex(f"{path} is not a {FORMAT} file (from `responses-conformance run`)")
    # The right format, but a shape the reports cannot render (a hand edit, a broken producer):
    # refused here in one line, not a traceback or a made-up verdict later (reporting/shape.py).
    problems = shape_errors(doc)
    if problems:
        raise NotAnIndex(f"{path} is not a well-formed index: {problems[0]}")
    return doc


def merge_indexes(docs: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One index with every target of ``docs``; a name seen twice gets a ``#2`` suffix."""
    checks: dict[str, Any] = {}
    targets: dict[str, Any] = {}
    strict = False
    for doc in docs:
        checks.update(doc.get("checks", {}))
        strict = strict or bool(doc.get("strict"))
        for name, entry in doc.get("targets", {}).items():
            unique, n = name, 1
            while unique in targets:
                n += 1
                unique = f"{name}#{n}"
            targets[unique] = entry
    return {
        "format": FORMAT,
        "generated_at": _now(),
        "tool": {"name": "responses-conformance", "version": _version()},
        "strict": strict,
        "checks": dict(sorted(checks.items())),
        "targets": targets,
    }


def exit_code(doc: dict[str, Any]) -> int:
    """The run's exit code from an index: the worst of its targets'."""
    codes = [int(t.get("exit_code", 2)) for t in doc.get("targets", {}).values()]
    return max(codes, default=2)
