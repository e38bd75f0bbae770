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
import html
import json
from importlib import metadata
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from cassettes.redaction import Redactor

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


_CSS = (
    "body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}"
    ".pass{background:#c8f0c8}.fail{background:#f6c2c2}.unavailable,.not_judged{background:#eee}"
    "pre{white-space:pre-wrap;background:#f6f6f6;padding:6px;font-size:12px}"
)


def render_html(index: dict[str, Any]) -> str:
    esc = html.escape
    names = list(index["targets"])
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for tname, target in index["targets"].items():
        for cname, client in target.get("clients", {}).items():
            if client["status"] != "ran":
                rows.setdefault((cname, "(install)"), {})[tname] = "unavailable"
            for fname, flow in client["flows"].items():
                rows.setdefault((cname, fname), {})[tname] = flow["outcome"]
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    body = []
    for (cname, fname), cells in rows.items():
        tds = "".join(
            f'<td class="{esc(cells.get(n, ""))}">{esc(cells.get(n, "-"))}</td>' for n in names
        )
        body.append(f"<tr><td>{esc(cname)}</td><td>{esc(fname)}</td>{tds}</tr>")
    details = []
    for tname, target in index["targets"].items():
        if target["status"] != "ran":
            details.append(f"<h3>{esc(tname)}: {esc(target['status'])}</h3>"
                           f"<p>{esc(str(target['reason']))}</p>")  # fmt: skip
            continue
        for cname, client in target["clients"].items():
            if client["status"] != "ran":
                details.append(f"<h3>{esc(tname)} / {esc(cname)}: unavailable</h3>"
                               f"<p>{esc(str(client['reason']))}</p>")  # fmt: skip
            for fname, flow in client["flows"].items():
                if flow["outcome"] == "pass":
                    continue
                evidence = json.dumps(flow.get("evidence", {}), indent=2, ensure_ascii=False)
                details.append(
                    f"<h3>{esc(tname)} / {esc(cname)} / {esc(fname)}: fail</h3>"
                    f"<p>{esc(str(flow.get('reason')))}</p><pre>{esc(evidence)}</pre>"
                )
    versions = "".join(
        f"<li>{esc(t)} / {esc(c)}: {esc(cl['version'])} ({esc(cl['source'])}) — harness "
        f"{esc(cl['harness'])}, profile {esc(str(cl['profile']))}</li>"
        for t, target in index["targets"].items()
        for c, cl in target.get("clients", {}).items()
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>responses-conformance clients"
        f"</title><style>{_CSS}</style></head><body><h1>Real clients</h1>"
        f"<table><tr><th>client</th><th>flow</th>{head}</tr>{''.join(body)}</table>"
        f"<ul>{versions}</ul>{_agreement_html(index)}{''.join(details)}</body></html>\n"
    )


def _agreement_html(index: dict[str, Any]) -> str:
    """The agreement table (``clients --with-profiles``): per target and client, the
    ``client:X`` profile's verdict beside the harness's."""
    esc = html.escape
    rows = []
    for tname, target in index["targets"].items():
        table = target.get("agreement")
        if table is None:
            continue
        for cname, row in table["clients"].items():
            agrees = {True: "yes", False: "NO", None: "-"}[row["agrees"]]
            cls = {True: "pass", False: "fail", None: "not_judged"}[row["agrees"]]
            failing = ", ".join(row["profile_failing"])
            rows.append(
                f"<tr><td>{esc(tname)}</td><td>{esc(cname)}</td>"
                f'<td class="{esc(row["profile"])}">{esc(row["profile"])}</td>'
                f'<td class="{esc(row["harness"])}">{esc(row["harness"])}</td>'
                f'<td class="{cls}">{agrees}</td><td>{esc(failing)}</td></tr>'
            )
    if not rows:
        return ""
    return (
        "<h2>Profile verdict × harness verdict</h2><table><tr><th>target</th><th>client</th>"
        "<th>client:X profile</th><th>harness</th><th>agree</th><th>profile's failing checks"
        f"</th></tr>{''.join(rows)}</table>"
    )


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
