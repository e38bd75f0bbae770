"""The HTML report: one self-contained page (no scripts, no external assets) from a JSON index.

Autobahn-style: a summary per target, then the matrix of checks (rows, grouped by their first two
ID segments) × targets (columns), each cell an outcome that links to its evidence below; a check's
clause links to its text, which the page carries at its end (:mod:`.clauses`), so a report opened
without the repository or the install that wrote it still shows what each check cites.

The markup is a Jinja2 template (``templates/report.html.j2``) rendered with autoescaping on:
this module only picks and shapes the values (plain text, never markup), so no value an index
holds — a target's name, a count, an attempt, an unknown outcome — can reach the page unescaped
(issue #40: three values once did, written by hand).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

import jinja2
from markupsafe import Markup

from .clauses import Clauses
from .junit import attempt_lines, hex_code

__all__ = ["autoescaping_environment", "render_html"]

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

# What HTML reads as a parse error in text (WHATWG HTML, "control-character-in-input-stream",
# "noncharacter-in-input-stream", "surrogate-in-input-stream"): C0 controls but whitespace, DEL,
# C1, lone surrogates, U+FFFE and U+FFFF. Each is written ``#xNN``, as junit.xml writes them.
_NOT_HTML = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _visible(value: object) -> object:
    """Every value the template writes, before it is escaped: its characters HTML refuses
    written ``#xNN`` (markup the template made itself, a macro's, left as it is)."""
    if isinstance(value, Markup):
        return value
    return _NOT_HTML.sub(hex_code, str(value))


def autoescaping_environment(package: str) -> jinja2.Environment:
    """The Jinja2 environment of the judge's HTML reports, their templates in ``package``'s
    ``templates/``: autoescaping for every template whatever its name, every value through
    :func:`_visible`, a missing variable an error (not ""), one output line per template line."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_visible,
    )


_ENV = autoescaping_environment("conformance.suite.reporting")


_MACROS = _ENV.get_template("_macros.html.j2").module


def _spec_link(meta: dict[str, Any], clauses: Clauses) -> Markup:
    """The check's clause, linked to its text on the page (the template's macro)."""
    anchor = str(meta.get("anchor", ""))
    clause = str(meta.get("clause", ""))
    return Markup(_MACROS.spec_link(clause, anchor, clauses[anchor]))  # type: ignore[attr-defined]


def _spec_href(meta: dict[str, Any], text: str, clauses: Clauses) -> Markup:
    """``text`` linked to the check's clause on the page, where the documents have it."""
    href = clauses[str(meta.get("anchor", ""))]
    return Markup(_MACROS.spec_href(href, text))  # type: ignore[attr-defined]


_EMPTY_BODY = re.compile(r"^(HTTP \d{3})(?::\s*(?:''|\"\"|b'')?|\s+(?:''|\"\"|b''))$")


def _label(outcome: object, *, upper: bool = True) -> str:
    """An outcome's label: a known one's name, an unknown one as it is (upper-cased)."""
    text = str(outcome)
    known = _LABEL.get(text)
    return known if known is not None else (text.upper() if upper else text)


def _seconds(value: object) -> str:
    """A duration as ``1.5 s`` (a value that is no number, as it is)."""
    if isinstance(value, int | float):
        return f"{value:.1f} s"
    return str(value)


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


# ---------------------------------------------------------------- what the template shows


@dataclass(slots=True)
class _Folded:
    """Raw bytes behind a one-line summary: the page stays a page; a click shows them."""

    label: str
    size: int
    preview: str
    text: str

    @classmethod
    def of(cls, label: str, text: str) -> _Folded:
        first = text.strip().splitlines()[0] if text.strip() else ""
        preview = first if len(first) <= 100 else first[:99] + "…"
        return cls(label, len(text), preview, text)


@dataclass(slots=True)
class _Evidence:
    case: str
    attempt: str
    where: str
    expected: str
    actual: str
    message: str
    request: str  # "METHOD PATH", or "" for none
    request_body: _Folded | None
    response: str  # "HTTP 200 text/event-stream, 12 events", or "" for none
    response_body: _Folded | None
    events: list[_Folded]


def _evidence(ev: dict[str, Any]) -> _Evidence:
    where = []
    if ev.get("event_index") is not None:
        where.append(f"event #{ev['event_index']}")
    if ev.get("path"):
        where.append(f"at {ev['path']}")
    request, request_body = ev.get("request"), None
    line = ""
    if request:
        line = f"{request.get('method')} {request.get('path')}"
        if request.get("body"):
            request_body = _Folded.of("request body", str(request["body"]))
    response, response_body = ev.get("response"), None
    said = ""
    if response:
        said = f"HTTP {response.get('status')} {response.get('content_type', '')}"
        if response.get("events") is not None:
            said += f", {response['events']} events"
        if response.get("error"):
            said += f", {response['error']}"
        if response.get("body"):
            response_body = _Folded.of("response body", str(response["body"]))
    return _Evidence(
        case=str(ev.get("case")),
        attempt=str(ev.get("attempt")),
        where=(" — " + ", ".join(where)) if where else "",
        expected=_said(ev.get("expected")),
        actual=_said(ev.get("actual")),
        message=str(ev["message"]) if ev.get("message") else "",
        request=line,
        request_body=request_body,
        response=said,
        response_body=response_body,
        events=[
            _Folded.of(f"event #{event.get('index')}", str(event.get("event")))
            for event in ev.get("events", [])
        ],
    )


@dataclass(slots=True)
class _Verdict:
    kind: str  # "status" (did not run), "unjudged", "ok", "bad"
    label: str = ""
    text: str = ""


@dataclass(slots=True)
class _SummaryRow:
    name: str
    base_url: str
    model: str
    profiles: str
    verdict: _Verdict
    counts: list[str]
    cases: int
    time: str


def _summary(index: dict[str, Any]) -> list[_SummaryRow]:
    rows = []
    for name, t in index.get("targets", {}).items():
        info, summary = t.get("target", {}), t.get("summary", {})
        code = t.get("exit_code", 2)
        unjudged = [c for c in t.get("cases", []) if c.get("not_judged")]
        if t.get("status") != "ran":
            verdict = _Verdict("status", str(t.get("status", "?")), str(t.get("reason", "")))
        elif unjudged:
            verdict = _Verdict("unjudged", str(len(unjudged)), str(unjudged[0]["not_judged"]))
        else:
            verdict = _Verdict("ok" if code == 0 else "bad")
        # failing checks by level (a SHOULD fails as `warn`, or as `fail` under --strict)
        failed = [c.get("level") for c in t.get("checks", {}).values()
                  if c.get("outcome") in ("fail", "warn")]  # fmt: skip
        by_level = {"must": failed.count("MUST"), "should": failed.count("SHOULD")}
        keys = ("exercised", "pass", "must", "should", "not_exercised", "skip", "xfail", "xpass")
        rows.append(
            _SummaryRow(
                name=str(name),
                base_url=str(info.get("base_url", "")),
                model=str(info.get("model", "")),
                profiles=", ".join(info.get("profiles", [])),
                verdict=verdict,
                counts=[str(by_level[k] if k in by_level else summary.get(k, 0)) for k in keys],
                cases=len(t.get("cases", [])),
                time=_seconds(t.get("duration_s", 0)),
            )
        )
    return rows


@dataclass(slots=True)
class _Cell:
    outcome: str
    label: str
    anchor: str  # "" for no link


@dataclass(slots=True)
class _MatrixRow:
    check_id: str
    href: str | None
    title: str
    level: str
    cells: list[_Cell]


def _matrix(index: dict[str, Any], hrefs: Clauses) -> list[tuple[str, list[_MatrixRow]]]:
    targets = index.get("targets", {})
    catalog = index.get("checks", {})

    def group(check_id: str) -> str:
        return ".".join(check_id.split(".")[:2])

    groups = []
    for grp, ids in groupby(sorted(catalog), key=group):
        rows = []
        for check_id in ids:
            meta = catalog[check_id]
            cells = []
            for name in targets:
                entry = targets[name].get("checks", {}).get(check_id)
                outcome = str(entry.get("outcome", "na") if entry else "na")
                linked = entry and (entry.get("evidence") or entry.get("reason"))
                anchor = _anchor(name, check_id) if linked else ""
                cells.append(_Cell(outcome, _label(outcome), anchor))
            title = f"{meta.get('requirement', '')} ({meta.get('clause', '')}: {meta.get('anchor', '')})"
            href = hrefs[str(meta.get("anchor", ""))]
            rows.append(_MatrixRow(check_id, href, title, str(meta.get("level", "")), cells))
        groups.append((grp, rows))
    return groups


@dataclass(slots=True)
class _Finding:
    target: str
    outcome: str
    label: str
    anchor: str
    check_id: str
    level: str
    case: str  # "" for none
    more: int
    actual: str


def _failing(index: dict[str, Any]) -> list[_Finding]:
    """Every failing (or expected-failing) outcome first, one row each, linked to its evidence."""
    rows: list[_Finding] = []
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
            rows.append(
                _Finding(
                    target=str(name),
                    outcome=outcome,
                    label=_label(outcome),
                    anchor=_anchor(name, check_id),
                    check_id=str(check_id),
                    level=str(catalog.get(check_id, {}).get("level", "")),
                    case=cases[0] if cases else "",
                    more=len(cases) - 1,
                    actual=actual,
                )
            )
    return rows


@dataclass(slots=True)
class _Entry:
    """A check with evidence or a reason, in a target's details."""

    check_id: str
    clause: str
    anchor_doc: str  # the catalogue's anchor (docs/spec.md#s2-1)
    href: str | None
    outcome: str
    label: str
    anchor: str
    level: str
    requirement: str
    reason: str
    evidence: list[_Evidence]
    more_cases: str  # the cases of the evidence after the first, ", "-joined
    omitted: str  # "" for none


@dataclass(slots=True)
class _Quiet:
    """A check skipped or not exercised, in the collapsed table."""

    check_id: str
    clause: str
    anchor_doc: str  # the catalogue's anchor (docs/spec.md#s2-1)
    href: str | None
    outcome: str
    label: str
    anchor: str
    level: str
    reason: str


@dataclass(slots=True)
class _Details:
    name: str
    entries: list[_Entry] = field(default_factory=list)
    quiet: list[_Quiet] = field(default_factory=list)


def _details(index: dict[str, Any], hrefs: Clauses) -> list[_Details]:
    """Evidence per target: a box per check with evidence or a reason; the checks that were
    skipped or not exercised in one collapsed table (a heading only where something follows)."""
    out: list[_Details] = []
    catalog = index.get("checks", {})
    for name, target in index.get("targets", {}).items():
        details = _Details(str(name))
        for cid, e in target.get("checks", {}).items():
            meta = catalog.get(cid, {})
            anchor = str(meta.get("anchor", ""))
            clause = str(meta.get("clause", ""))
            outcome = e.get("outcome", "")
            quiet = outcome in ("skip", "not_exercised")
            if e.get("evidence") or (e.get("reason") and not quiet):
                evidence = e.get("evidence", [])
                details.entries.append(
                    _Entry(
                        check_id=str(cid),
                        clause=clause,
                        anchor_doc=anchor,
                        href=hrefs[anchor],
                        outcome=str(outcome),
                        label=_label(outcome, upper=False),
                        anchor=_anchor(name, cid),
                        level=str(meta.get("level", "")),
                        requirement=str(meta.get("requirement", "")),
                        reason=str(e["reason"]) if e.get("reason") else "",
                        evidence=[_evidence(ev) for ev in evidence],
                        more_cases=", ".join(_cases({"evidence": evidence[1:]})),
                        omitted=str(e["evidence_omitted"]) if e.get("evidence_omitted") else "",
                    )
                )
            if quiet and not e.get("evidence"):
                details.quiet.append(
                    _Quiet(
                        check_id=str(cid),
                        clause=clause,
                        anchor_doc=anchor,
                        href=hrefs[anchor],
                        outcome=str(outcome),
                        label=_label(outcome, upper=False),
                        anchor=_anchor(name, cid),
                        level=str(meta.get("level", "")),
                        reason=str(e.get("reason", "")),
                    )
                )
        if details.entries or details.quiet:
            out.append(details)
    return out


_ORDER = ("fail", "xpass", "warn", "xfail", "info", "pass", "not_exercised", "skip")


@dataclass(slots=True)
class _Chip:
    check_id: str
    anchor: str  # "" for no link
    title: str


def _by_outcome(index: dict[str, Any]) -> list[tuple[str, str, list[_Chip]]]:
    """One target: its checks as chips, a row per outcome (the matrix of a single column would
    be a page of a row per check): (outcome, label, chips) per row."""
    ((name, target),) = index["targets"].items()
    catalog = index.get("checks", {})
    checks = target.get("checks", {})
    groups: dict[str, list[str]] = {}
    for cid in sorted(catalog):
        entry = checks.get(cid)
        groups.setdefault(str(entry.get("outcome", "na") if entry else "na"), []).append(cid)
    rows = []
    for outcome in (*_ORDER, *(o for o in groups if o not in _ORDER)):
        ids = groups.get(outcome)
        if not ids:
            continue
        chips = []
        for cid in ids:
            meta = catalog[cid]
            entry = checks.get(cid) or {}
            linked = entry.get("evidence") or entry.get("reason")
            title = f"{meta.get('level', '')}: {meta.get('requirement', '')}"
            chips.append(_Chip(cid, _anchor(name, cid) if linked else "", title))
        rows.append((outcome, _label(outcome), chips))
    return rows


@dataclass(slots=True)
class _Attempts:
    target: str
    case: str
    outcome: str
    lines: list[str]


def _attempts(index: dict[str, Any]) -> list[_Attempts]:
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
                    _Attempts(str(name), str(case.get("id")), str(case.get("outcome")), lines)
                )
    return rows


def render_html(index: dict[str, Any]) -> str:
    tool = index.get("tool", {})
    single = len(index.get("targets", {})) == 1
    hrefs = Clauses()  # filled by the views that link a clause, then listed at the end
    matrix = [] if single else _matrix(index, hrefs)
    details = _details(index, hrefs)
    return _ENV.get_template("report.html.j2").render(
        generated_at=str(index.get("generated_at", "")),
        tool_name=str(tool.get("name", "")),
        tool_version=str(tool.get("version", "")),
        strict=bool(index.get("strict")),
        n_checks=len(index.get("checks", {})),
        n_targets=len(index.get("targets", {})),
        summary=_summary(index),
        legend=[(k, _LABEL[k], v) for k, v in _LEGEND.items()],
        findings=_failing(index),
        chips=_by_outcome(index) if single else [],
        matrix=matrix,
        names=[] if single else [str(n) for n in index.get("targets", {})],
        single=single,
        details=details,
        attempts=_attempts(index),
        clauses=hrefs.cited(),
    )
