"""The harness's reports, all from one JSON index (as the suite's, :mod:`conformance.suite.reporting`):

- ``index.json`` — ``targets → name → clients → client → flows → flow → outcome`` with evidence
  (format :data:`FORMAT`); each client has ``harness`` (its flows' verdict) and ``profile`` (the
  ``client:X`` profile's verdict, ``null`` until set beside it); with ``--with-profiles`` each
  target has ``agreement`` too (:func:`.agreement.fill`: the counts, and per client both
  verdicts with the profile's failing checks);
- ``junit.xml`` — a test suite per target and client, a test case per flow; a failed flow's
  message is the client's own error, its text the evidence;
- ``report.html`` — a matrix of client flows × targets, the agreement table when there is one,
  the evidence of every failure below it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from cassettes.redaction import Redactor

from ..suite.reporting.html import autoescaping_environment
from .results import HarnessResult

__all__ = ["FORMAT", "build_index", "set_profile_verdict", "write_reports"]

FORMAT = "responses-conformance.clients/1"


def _version() -> str:
    try:
        return metadata.version("responses-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_index(results: list[HarnessResult]) -> dict[str, Any]:
    targets: dict[str, Any] = {}
    for result in results:
        targets[result.target.name] = {
            "target": {"base_url": result.target.shown_url(), "model": result.target.model},
            "status": result.status,
            "reason": result.reason,
            "exit_code": result.exit_code(),
            "duration_s": round(result.duration, 3),
            "summary": result.counts(),
            "clients": {c.name: c.as_dict() for c in result.clients},
        }
    return {
        "format": FORMAT,
        "generated_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "tool": {"name": "responses-conformance clients", "version": _version()},
        "targets": targets,
    }


def set_profile_verdict(index: dict[str, Any], target: str, client: str, verdict: str) -> None:
    """Set the ``client:X`` profile's verdict (``pass`` / ``fail``, from ``run --profile
    client:X`` on the same target) beside the harness's, and whether the two agree: a
    disagreement is a missing or a wrong check of the profile (or a flow that tests too little).
    :class:`KeyError` when the index has no such target or client."""
    if verdict not in ("pass", "fail"):
        raise ValueError(f"a profile verdict is pass or fail, not {verdict!r}")
    entry = index["targets"][target]["clients"][client]
    entry["profile"] = verdict
    entry["agrees"] = entry["harness"] == verdict if entry["status"] == "ran" else None


def render_junit(index: dict[str, Any]) -> str:
    root = ET.Element("testsuites", name="responses-conformance clients")
    for tname, target in index["targets"].items():
        if target["status"] != "ran":
            suite = ET.SubElement(root, "testsuite", name=tname, tests="1", errors="1")
            case = ET.SubElement(suite, "testcase", name="target", classname=tname)
            ET.SubElement(case, "error", message=str(target["reason"]))
            continue
        for cname, client in target["clients"].items():
            flows = client["flows"]
            suite = ET.SubElement(
                root, "testsuite", name=f"{tname}.{cname}", tests=str(max(len(flows), 1)),
                failures=str(sum(f["outcome"] != "pass" for f in flows.values())),
                errors="1" if client["status"] != "ran" else "0",
            )  # fmt: skip
            if client["status"] != "ran":
                case = ET.SubElement(suite, "testcase", name="install", classname=cname)
                ET.SubElement(case, "error", message=str(client["reason"]))
                continue
            for fname, flow in flows.items():
                case = ET.SubElement(
                    suite, "testcase", name=fname, classname=f"{tname}.{cname}",
                    time=f"{flow['duration_s']:.3f}",
                )  # fmt: skip
                if flow["outcome"] != "pass":
                    failure = ET.SubElement(case, "failure", message=str(flow.get("reason")))
                    failure.text = json.dumps(flow.get("evidence", {}), indent=2)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


_ENV = autoescaping_environment("conformance.clients")


@dataclass(slots=True)
class _Version:
    target: str
    client: str
    version: str
    source: str
    harness: str
    profile: str


@dataclass(slots=True)
class _Agreement:
    target: str
    client: str
    profile: str
    harness: str
    cls: str
    agrees: str
    failing: str


@dataclass(slots=True)
class _Detail:
    title: str
    reason: str
    evidence: str | None = None


def render_html(index: dict[str, Any]) -> str:
    """report.html (templates/report.html.j2, autoescaped: every value is text)."""
    names = list(index["targets"])
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for tname, target in index["targets"].items():
        for cname, client in target.get("clients", {}).items():
            if client["status"] != "ran":
                rows.setdefault((cname, "(install)"), {})[tname] = "unavailable"
            for fname, flow in client["flows"].items():
                rows.setdefault((cname, fname), {})[tname] = flow["outcome"]
    details = []
    for tname, target in index["targets"].items():
        if target["status"] != "ran":
            details.append(_Detail(f"{tname}: {target['status']}", str(target["reason"])))
            continue
        for cname, client in target["clients"].items():
            if client["status"] != "ran":
                details.append(_Detail(f"{tname} / {cname}: unavailable", str(client["reason"])))
            for fname, flow in client["flows"].items():
                if flow["outcome"] == "pass":
                    continue
                evidence = json.dumps(flow.get("evidence", {}), indent=2, ensure_ascii=False)
                details.append(
                    _Detail(f"{tname} / {cname} / {fname}: fail", str(flow.get("reason")), evidence)
                )
    versions = [
        _Version(t, c, cl["version"], cl["source"], cl["harness"], str(cl["profile"]))
        for t, target in index["targets"].items()
        for c, cl in target.get("clients", {}).items()
    ]
    return _ENV.get_template("report.html.j2").render(
        names=names,
        rows=[(c, f, [cells.get(n) for n in names]) for (c, f), cells in rows.items()],
        versions=versions,
        agreement=_agreement(index),
        details=details,
    )


def _agreement(index: dict[str, Any]) -> list[_Agreement]:
    """The agreement table (``clients --with-profiles``): per target and client, the
    ``client:X`` profile's verdict beside the harness's."""
    rows = []
    for tname, target in index["targets"].items():
        table = target.get("agreement")
        if table is None:
            continue
        for cname, row in table["clients"].items():
            rows.append(
                _Agreement(
                    target=tname,
                    client=cname,
                    profile=row["profile"],
                    harness=row["harness"],
                    cls={True: "pass", False: "fail", None: "not_judged"}[row["agrees"]],
                    agrees={True: "yes", False: "NO", None: "-"}[row["agrees"]],
                    failing=", ".join(row["profile_failing"]),
                )
            )
    return rows


def write_reports(index: dict[str, Any], report_dir: str | Path, redactor: Redactor) -> list[Path]:
    clean = redactor.value(index)
    texts = {
        "index.json": json.dumps(clean, indent=2, ensure_ascii=False) + "\n",
        "junit.xml": render_junit(clean),
        "report.html": render_html(clean),
    }
    out = Path(report_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in texts.items():
        path = out / name
        path.write_bytes(redactor.text(text).encode("utf-8", "backslashreplace"))
        paths.append(path)
    return paths
