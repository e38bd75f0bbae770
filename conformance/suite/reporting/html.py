"""The HTML report: one self-contained page (no scripts, no external assets) from a JSON index.

Autobahn-style: a summary per target, then the matrix of checks (rows, grouped by their first two
ID segments) × targets (columns), each cell an outcome that links to its evidence below.
"""

from __future__ import annotations

import re
from html import escape
from itertools import groupby
from pathlib import Path
from typing import Any

from ...catalog.docs import doc_file
from .junit import attempt_lines

__all__ = ["render_html"]

_LABEL = {
    "pass": "PASS", "fail": "FAIL", "warn": "WARN", "info": "INFO", "skip": "SKIP",
    "not_exercised": "NOT EXERCISED", "xfail": "XFAIL", "xpass": "XPASS", "na": "—",
}  # fmt: skip
_LEGEND = {
    "pass": "evaluated on something it applies to, no violation",
    "fail": "violated (MUST, or SHOULD under --strict)",
    "warn": "SHOULD violated (not failing without --strict)",
    "info": "informational finding",
    "not_exercised": "profile declared, but nothing in the run gave the rule work",
    "skip": "not evaluated: profile not declared",
    "xfail": "violated, listed as an expected failure",
    "xpass": "listed as an expected failure but passed (fails the run)",
}

_CSS = """
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; }
.meta { color: #59636e; margin-bottom: 16px; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d1d9e0; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.matrix td.cell { text-align: center; font-weight: 600; font-size: 12px; width: 110px; }
.matrix td.id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.matrix tr.group td { background: #eef1f4; font-weight: 600; font-size: 12px; }
.lvl { font-size: 11px; color: #59636e; }
a { color: inherit; text-decoration: none; } a:hover { text-decoration: underline; }
a.spec { text-decoration: underline dotted; }
.pass { background: #d4edda; color: #1e5e2f; } .fail { background: #f8c9cc; color: #8a1020; }
.warn { background: #fff0c2; color: #7a5200; } .info { background: #dcecfb; color: #1d4f86; }
.skip { background: #f0f1f3; color: #6e7781; }
.not_exercised { background: #fbfbfb; color: #8c959f; border-style: dashed; } .xfail { background: #e6dcf7; color: #4b2a85; }
.xpass { background: #ffd8b5; color: #8a3b00; } .na { background: #fafafa; color: #aaa; }
.verdict-ok { color: #1e5e2f; font-weight: 700; } .verdict-bad { color: #8a1020; font-weight: 700; }
.evidence { border: 1px solid #d1d9e0; border-radius: 6px; margin: 8px 0; padding: 8px 12px; }
.evidence h3 { font-size: 14px; margin: 0 0 4px; }
pre { background: #f6f8fa; padding: 6px 8px; overflow-x: auto; white-space: pre-wrap;
      word-break: break-all; font-size: 12px; margin: 4px 0; }
.legend span { display: inline-block; padding: 2px 8px; margin: 0 6px 4px 0; border-radius: 4px; font-size: 12px; }
.chips td.ids { line-height: 1.9; }
.chip { display: inline-block; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 11px;
        padding: 0 5px; margin: 0 3px 0 0; border-radius: 3px; white-space: nowrap; }
details.quiet { margin: 8px 0; } details.quiet summary { cursor: pointer; color: #59636e; }
details.quiet table td { font-size: 12px; padding: 2px 6px; }
"""


def _spec_file(doc: str) -> Path | None:
    """The file an anchor names, where this install has it: only the two documents a clause
    cites (docs/spec.md, docs/known-bugs.md; conformance.catalog.registry.clause_anchors), from the
    wheel's packaged copy or the checkout (conformance.catalog.docs). An index is input: an anchor
    naming anything else (README.md, ../../etc/passwd, /etc/passwd) gets no link."""
    return doc_file(doc)


def _spec_link(meta: dict[str, Any]) -> str:
    """The check's clause, linked to its anchor in docs/spec.md."""
    clause, anchor = str(meta.get("clause", "")), str(meta.get("anchor", ""))
    if not anchor:
        return escape(clause)
    doc, _, fragment = anchor.partition("#")
    path = _spec_file(doc)
    if path is None:
        return f"{escape(clause)} ({escape(anchor)})"
    href = f"{path.as_uri()}#{fragment}"
    return f'<a class="spec" href="{escape(href)}" title="{escape(anchor)}">{escape(clause)}</a>'


def _spec_href(meta: dict[str, Any], text: str) -> str:
    """``text`` (already escaped) linked to the check's anchor in docs/spec.md, where it is."""
    doc, _, fragment = str(meta.get("anchor", "")).partition("#")
    path = _spec_file(doc)
    if path is None:
        return text
    return f'<a href="{escape(path.as_uri())}#{escape(fragment)}">{text}</a>'


_EMPTY_BODY = re.compile(r"^(HTTP \d{3})(?::\s*(?:''|\"\"|b'')?|\s+(?:''|\"\"|b''))$")


def _label(outcome: object, *, upper: bool = True) -> str:
    """An outcome's label, as HTML: a known one's name, an unknown one escaped."""
    text = str(outcome)
    known = _LABEL.get(text)
    return known if known is not None else escape(text.upper() if upper else text)


def _seconds(value: object) -> str:
    """A duration as ``1.5 s`` (a value that is no number, escaped as it is)."""
    if isinstance(value, int | float):
        return f"{value:.1f} s"
    return escape(str(value))


def _said(text: object) -> str:
    """Evidence text as a person reads it: ``HTTP 200 ''`` (an empty body shown as a Python
    literal) becomes ``HTTP 200 with an empty body``, so it cannot read as "expected HTTP 200,
    got HTTP 200"."""
    value = str(text)
    match = _EMPTY_BODY.match(value.strip())
    return f"{match[1]} with an empty body" if match else value


def _cases(entry: dict[str, Any]) -> list[str]:
    """The cases that produced an entry's evidence, in order, each once."""
    seen: list[str] = []
    for ev in entry.get("evidence") or []:
        case = ev.get("case")
        if case and case not in seen:
            seen.append(str(case))
    return seen


def _anchor(target: str, check_id: str) -> str:
    return "d-" + "".join(c if c.isalnum() else "-" for c in f"{target}-{check_id}")


def _summary(index: dict[str, Any]) -> list[str]:
    rows = [
        "<table><tr><th>target</th><th>base URL</th><th>model</th><th>profiles</th>"
        "<th>verdict</th><th>exercised</th><th>pass</th><th>MUST fail</th><th>SHOULD fail</th>"
        "<th>not exercised</th><th>skip</th>"
        "<th>xfail</th><th>xpass</th><th>cases</th><th>time</th></tr>"
    ]
    for name, t in index.get("targets", {}).items():
        info, summary = t.get("target", {}), t.get("summary", {})
        code = t.get("exit_code", 2)
        unjudged = [c for c in t.get("cases", []) if c.get("not_judged")]
        if t.get("status") != "ran":
            verdict = f'<span class="verdict-bad">{escape(t.get("status", "?"))}</span>: '
            verdict += escape(str(t.get("reason", "")))
        elif unjudged:
            verdict = (
                f'<span class="verdict-bad">COULD NOT JUDGE</span> {len(unjudged)} case(s): '
                + escape(str(unjudged[0]["not_judged"]))
            )
        elif code == 0:
            verdict = '<span class="verdict-ok">PASSED</span>'
        else:
            verdict = '<span class="verdict-bad">FAILED</span>'
        # failing checks by level (a SHOULD fails as `warn`, or as `fail` under --strict)
        failed = [c.get("level") for c in t.get("checks", {}).values()
                  if c.get("outcome") in ("fail", "warn")]  # fmt: skip
        by_level = {"must": failed.count("MUST"), "should": failed.count("SHOULD")}
        counts = "".join(
            f"<td>{escape(str(by_level[k] if k in by_level else summary.get(k, 0)))}</td>"
            for k in (
                "exercised",
                "pass",
                "must",
                "should",
                "not_exercised",
                "skip",
                "xfail",
                "xpass",
            )
        )
        rows.append(
            f"<tr><td><b>{escape(name)}</b></td><td>{escape(str(info.get('base_url', '')))}</td>"
            f"<td>{escape(str(info.get('model', '')))}</td>"
            f"<td>{escape(', '.join(info.get('profiles', [])))}</td><td>{verdict}</td>{counts}"
            f"<td>{len(t.get('cases', []))}</td><td>{_seconds(t.get('duration_s', 0))}</td></tr>"
        )
    rows.append("</table>")
    return rows


def _matrix(index: dict[str, Any]) -> list[str]:
    targets = index.get("targets", {})
    names = list(targets)
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = [f'<table class="matrix"><tr><th>check</th><th>level</th>{head}</tr>']
    catalog = index.get("checks", {})

    def group(check_id: str) -> str:
        return ".".join(check_id.split(".")[:2])

    for grp, ids in groupby(sorted(catalog), key=group):
        rows.append(f'<tr class="group"><td colspan="{len(names) + 2}">{escape(grp)}</td></tr>')
        for check_id in ids:
            meta = catalog[check_id]
            cells = []
            for name in names:
                entry = targets[name].get("checks", {}).get(check_id)
                outcome = entry.get("outcome", "na") if entry else "na"
                label = _label(outcome)
                if entry and (entry.get("evidence") or entry.get("reason")):
                    label = f'<a href="#{_anchor(name, check_id)}">{label}</a>'
                cells.append(f'<td class="cell {escape(outcome)}">{label}</td>')
            title = escape(
                f"{meta.get('requirement', '')} ({meta.get('clause', '')}: {meta.get('anchor', '')})"
            )
            rows.append(
                f'<tr><td class="id" title="{title}">{_spec_href(meta, escape(check_id))}</td>'
                f'<td class="lvl">{escape(meta.get("level", ""))}</td>{"".join(cells)}</tr>'
            )
    rows.append("</table>")
    return rows


def _failing(index: dict[str, Any]) -> list[str]:
    """Every failing (or expected-failing) outcome first, one row each, linked to its evidence."""
    rows: list[str] = []
    catalog = index.get("checks", {})
    for name, target in index.get("targets", {}).items():
        for check_id, entry in target.get("checks", {}).items():
            outcome = entry.get("outcome")
            if outcome not in ("fail", "xpass", "warn", "xfail"):
                continue
            first = (entry.get("evidence") or [{}])[0]
            if first:
                actual = (
                    f"expected {_said(first.get('expected'))} · got {_said(first.get('actual'))}"
                )
            else:
                actual = str(entry.get("reason", ""))
            actual = actual if len(actual) <= 140 else actual[:139] + "…"
            cases = _cases(entry)
            case = escape(cases[0]) if cases else "—"
            if len(cases) > 1:
                case += f' <span class="lvl">+{len(cases) - 1} more</span>'
            rows.append(
                f'<tr><td>{escape(name)}</td><td class="cell {escape(outcome)}">'
                f'<a href="#{_anchor(name, check_id)}">{_label(outcome)}</a></td>'
                f'<td class="id">{escape(check_id)}</td>'
                f'<td class="lvl">{escape(catalog.get(check_id, {}).get("level", ""))}</td>'
                f'<td class="id">{case}</td><td>{escape(actual)}</td></tr>'
            )
    if not rows:
        return ["<h2>Findings</h2>", "<p>No check failed on any target.</p>"]
    head = (
        '<table class="matrix"><tr><th>target</th><th>outcome</th><th>check</th><th>level</th>'
        "<th>failing case</th><th>first evidence</th></tr>"
    )
    return ["<h2>Findings</h2>", head, *rows, "</table>"]


def _evidence(ev: dict[str, Any]) -> list[str]:
    out = [
        f"<p><b>case</b> {escape(str(ev.get('case')))} (attempt {escape(str(ev.get('attempt')))})"
    ]
    where = []
    if ev.get("event_index") is not None:
        where.append(f"event #{ev['event_index']}")
    if ev.get("path"):
        where.append(f"at {ev['path']}")
    out.append((" — " + ", ".join(escape(w) for w in where)) if where else "")
    out.append("</p>")
    out.append(f"<div><b>expected</b> <code>{escape(_said(ev.get('expected')))}</code></div>")
    out.append(f"<div><b>got</b> <code>{escape(_said(ev.get('actual')))}</code></div>")
    if ev.get("message"):
        out.append(f"<div><b>note</b> {escape(str(ev['message']))}</div>")
    request = ev.get("request")
    if request:
        out.append(
            f"<div><b>request</b> {escape(str(request.get('method')))} "
            f"{escape(str(request.get('path')))}</div>"
        )
        if request.get("body"):
            out.append(_folded("request body", str(request["body"])))
    response = ev.get("response")
    if response:
        line = f"HTTP {response.get('status')} {response.get('content_type', '')}"
        if response.get("events") is not None:
            line += f", {response['events']} events"
        if response.get("error"):
            line += f", {response['error']}"
        out.append(f"<div><b>response</b> {escape(line)}</div>")
        if response.get("body"):
            out.append(_folded("response body", str(response["body"])))
    for event in ev.get("events", []):
        out.append(_folded(f"event #{event.get('index')}", str(event.get("event"))))
    return out


def _folded(label: str, text: str) -> str:
    """Raw bytes behind a one-line summary: the page stays a page; a click shows them."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    preview = first if len(first) <= 100 else first[:99] + "…"
    return (
        f'<details class="quiet"><summary><b>{escape(label)}</b> ({len(text)} chars) '
        f"<code>{escape(preview)}</code></summary><pre>{escape(text)}</pre></details>"
    )


def _details(index: dict[str, Any]) -> list[str]:
    """Evidence per target: a box per check with evidence or a reason; the checks that were
    skipped or not exercised in one collapsed table (a heading only where something follows)."""
    out: list[str] = []
    catalog = index.get("checks", {})
    for name, target in index.get("targets", {}).items():
        entries = [
            (cid, e) for cid, e in target.get("checks", {}).items()
            if e.get("evidence")
            or (e.get("reason") and e.get("outcome") not in ("skip", "not_exercised"))
        ]  # fmt: skip
        quiet = [
            (cid, e) for cid, e in target.get("checks", {}).items()
            if e.get("outcome") in ("not_exercised", "skip") and not e.get("evidence")
        ]  # fmt: skip
        if not entries and not quiet:
            continue
        out.append(f"<h2>Details: {escape(name)}</h2>")
        for cid, entry in entries:
            meta = catalog.get(cid, {})
            outcome = entry.get("outcome", "")
            out.append(f'<div class="evidence" id="{_anchor(name, cid)}">')
            out.append(
                f'<h3><span class="{escape(outcome)}">&nbsp;{_label(outcome, upper=False)}&nbsp;</span> '
                f"{escape(cid)} <span class='lvl'>{escape(meta.get('level', ''))} · "
                f"{_spec_link(meta)}</span></h3>"
            )
            out.append(f"<div>{escape(meta.get('requirement', ''))}</div>")
            if entry.get("reason"):
                out.append(f"<div><i>{escape(str(entry['reason']))}</i></div>")
            evidence = entry.get("evidence", [])
            for ev in evidence[:1]:
                out += _evidence(ev)
            if len(evidence) > 1:
                out.append(
                    f'<details class="quiet"><summary>{len(evidence) - 1} more '
                    f"example(s): {escape(', '.join(_cases({'evidence': evidence[1:]})))}"
                    "</summary>"
                )
                for ev in evidence[1:]:
                    out += _evidence(ev)
                out.append("</details>")
            if entry.get("evidence_omitted"):
                out.append(f"<p>(+{escape(str(entry['evidence_omitted']))} more violations)</p>")
            out.append("</div>")
        if quiet:
            out.append(
                f'<details class="quiet"><summary>{len(quiet)} checks skipped or not exercised '
                "(why, per check)</summary><table>"
            )
            for cid, entry in quiet:
                meta = catalog.get(cid, {})
                outcome = entry.get("outcome", "")
                out.append(
                    f'<tr id="{_anchor(name, cid)}"><td class="cell {escape(outcome)}">'
                    f'{_label(outcome, upper=False)}</td><td class="id">{escape(cid)}</td>'
                    f'<td class="lvl">{escape(meta.get("level", ""))} · {_spec_link(meta)}</td>'
                    f"<td>{escape(str(entry.get('reason', '')))}</td></tr>"
                )
            out.append("</table></details>")
    return out


_ORDER = ("fail", "xpass", "warn", "xfail", "info", "pass", "not_exercised", "skip")


def _by_outcome(index: dict[str, Any]) -> list[str]:
    """One target: its checks as chips, a row per outcome (the matrix of a single column would
    be a page of a row per check)."""
    ((name, target),) = index["targets"].items()
    catalog = index.get("checks", {})
    checks = target.get("checks", {})
    groups: dict[str, list[str]] = {}
    for cid in sorted(catalog):
        entry = checks.get(cid)
        groups.setdefault(entry.get("outcome", "na") if entry else "na", []).append(cid)
    rows = ['<table class="chips">']
    for outcome in (*_ORDER, *(o for o in groups if o not in _ORDER)):
        ids = groups.get(outcome)
        if not ids:
            continue
        chips = []
        for cid in ids:
            meta = catalog[cid]
            entry = checks.get(cid) or {}
            text = escape(cid)
            if entry.get("evidence") or entry.get("reason"):
                text = f'<a href="#{_anchor(name, cid)}">{text}</a>'
            title = escape(f"{meta.get('level', '')}: {meta.get('requirement', '')}")
            chips.append(f'<span class="chip {escape(outcome)}" title="{title}">{text}</span>')
        label = _label(outcome)
        rows.append(
            f'<tr><td class="cell {escape(outcome)}">{label}<br>{len(ids)}</td>'
            f'<td class="ids">{" ".join(chips)}</td></tr>'
        )
    rows.append("</table>")
    return rows


def _attempts(index: dict[str, Any]) -> list[str]:
    """The cases that took several attempts or runs, or could not be judged: each attempt's
    result (a retry is for the model's content; what an attempt found stays a finding)."""
    rows = []
    for name, t in index.get("targets", {}).items():
        for case in t.get("cases", []):
            lines = attempt_lines(case)
            if case.get("not_judged"):
                lines.insert(0, f"could not judge: {case['not_judged']}")
            if lines:
                rows.append(
                    f"<tr><td>{escape(name)}</td><td>{escape(str(case.get('id')))}</td>"
                    f"<td>{escape(str(case.get('outcome')))}</td>"
                    f"<td>{'<br>'.join(escape(line) for line in lines)}</td></tr>"
                )
    if not rows:
        return []
    return [
        "<h2>Attempts</h2>",
        "<table><tr><th>target</th><th>case</th><th>outcome</th><th>attempts</th></tr>",
        *rows,
        "</table>",
    ]


def render_html(index: dict[str, Any]) -> str:
    legend = "".join(
        f'<span class="{k}">{_LABEL[k]}</span>{escape(v)} &nbsp; ' for k, v in _LEGEND.items()
    )
    strict = " · --strict" if index.get("strict") else ""
    tool = index.get("tool", {})
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Responses API conformance</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Responses API conformance</h1>",
        f'<div class="meta">{escape(str(index.get("generated_at", "")))} · '
        f"{escape(str(tool.get('name', '')))} {escape(str(tool.get('version', '')))}{strict} · "
        f"{len(index.get('checks', {}))} checks × {len(index.get('targets', {}))} targets</div>",
        *_summary(index),
        f'<p class="legend">{legend}</p>',
        *_failing(index),
        *(
            ["<h2>Matrix: every check by outcome</h2>", *_by_outcome(index)]
            if len(index.get("targets", {})) == 1
            else ["<h2>Matrix</h2>", *_matrix(index)]
        ),
        *_details(index),
        *_attempts(index),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
