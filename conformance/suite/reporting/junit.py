"""JUnit XML from a JSON index: per target one ``<testsuite>`` of checks (a failing outcome is a
``<failure>``, skip and xfail are ``<skipped>``) and one of cases, for CI dashboards."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

__all__ = ["hex_code", "render_junit", "xml_text"]

# What XML 1.0 forbids in a document (§2.2 Char): C0 controls but TAB, LF and CR, lone
# surrogates, U+FFFE and U+FFFF. ElementTree writes them as they are, which no parser reads.
_ILLEGAL_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def hex_code(match: re.Match[str]) -> str:
    """The character ``match`` found, written ``#xNN`` (``#xNNNN`` past U+00FF)."""
    code = ord(match.group())
    return f"#x{code:02X}" if code <= 0xFF else f"#x{code:04X}"


def xml_text(value: object) -> str:
    """``value`` as text XML can hold: each character XML 1.0 forbids written ``#xNN`` (ESC is
    ``#x1B``, NUL ``#x00``), as pytest's ``bin_xml_escape`` writes it in its junit.xml."""
    return _ILLEGAL_XML.sub(hex_code, str(value))


def _well_formed(root: ET.Element) -> None:
    """Every text, tail and attribute of the tree through :func:`xml_text`."""
    for el in root.iter():
        if el.text:
            el.text = xml_text(el.text)
        if el.tail:
            el.tail = xml_text(el.tail)
        for key, value in el.attrib.items():
            el.set(key, xml_text(value))


def _evidence_text(entry: dict[str, Any]) -> str:
    lines: list[str] = []
    for ev in entry.get("evidence", []):
        request = ev.get("request", {})
        response = ev.get("response", {})
        lines.append(f"case {ev.get('case')} (attempt {ev.get('attempt')})")
        if request:
            lines.append(f"  request:  {request.get('method')} {request.get('path')}")
        if response:
            lines.append(f"  response: HTTP {response.get('status')}")
        lines.append(f"  expected: {ev.get('expected')}")
        lines.append(f"  actual:   {ev.get('actual')}")
        if ev.get("message"):
            lines.append(f"  note:     {ev.get('message')}")
        for event in ev.get("events", []):
            lines.append(f"  event #{event.get('index')}: {event.get('event')}")
    if entry.get("evidence_omitted"):
        lines.append(f"(+{entry['evidence_omitted']} more violations)")
    return "\n".join(lines)


def _checks_suite(
    name: str, target: dict[str, Any], catalog: dict[str, Any], stamp: str
) -> ET.Element:
    suite = ET.Element(
        "testsuite", name=name, timestamp=stamp, time=str(target.get("duration_s", 0))
    )
    props = ET.SubElement(suite, "properties")
    info = target.get("target", {})
    for key in ("base_url", "model", "profiles", "status", "reason"):
        value = info.get(key) if key in info else target.get(key)
        text = ", ".join(value) if isinstance(value, list) else str(value or "")
        ET.SubElement(props, "property", name=key, value=text)
    counts = {"tests": 0, "failures": 0, "skipped": 0, "errors": 0}
    if target.get("status") != "ran":
        case = ET.SubElement(suite, "testcase", classname=name, name="target.reachable", time="0")
        ET.SubElement(case, "error", message=str(target.get("reason", "")), type=target["status"])
        counts["tests"] = counts["errors"] = 1
    else:
        for check_id, entry in target.get("checks", {}).items():
            group = ".".join(check_id.split(".")[:2])
            case = ET.SubElement(
                suite, "testcase", classname=f"{name}.{group}", name=check_id, time="0"
            )
            counts["tests"] += 1
            outcome = entry.get("outcome")
            meta = catalog.get(check_id, {})
            head = (
                f"[{entry.get('level')}] {meta.get('requirement', '')} ({meta.get('clause', '')}: "
                f"{meta.get('anchor', '')})"
            )
            if outcome in ("fail", "xpass"):
                counts["failures"] += 1
                message = head if outcome == "fail" else f"XPASS: {entry.get('reason')}"
                failure = ET.SubElement(case, "failure", message=message, type=outcome.upper())
                failure.text = _evidence_text(entry)
            elif outcome in ("skip", "xfail", "not_exercised"):
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=f"{outcome}: {entry.get('reason', '')}")
            elif outcome in ("warn", "info"):
                out = ET.SubElement(case, "system-out")
                out.text = f"{outcome}: {head}\n{_evidence_text(entry)}"
    for key, value in counts.items():
        suite.set(key, str(value))
    return suite


def attempt_lines(case: dict[str, Any]) -> list[str]:
    """A case's attempts, one line each, and the one that passed — shown where a case took more
    than one attempt or run (a retry is for the model's content: what each attempt found stays)."""
    log = case.get("attempt_log") or []
    if len(log) < 2:
        return []
    lines = []
    for a in log:
        line = f"run {a.get('run')}, attempt {a.get('attempt')}: {a.get('result')}"
        if a.get("reason"):
            line += f" ({a['reason']})"
        if a.get("violations"):
            line += " violated " + ", ".join(a["violations"])
        lines.append(line)
    passed = case.get("passed_attempt")
    lines.append(f"passed on attempt {passed}" if passed else "no attempt passed")
    return lines


def _cases_suite(name: str, target: dict[str, Any], stamp: str) -> ET.Element:
    suite = ET.Element("testsuite", name=f"{name}:cases", timestamp=stamp)
    counts = {"tests": 0, "failures": 0, "skipped": 0, "errors": 0}
    total = 0.0
    for case in target.get("cases", []):
        module, _, rest = str(case.get("id")).partition("/")
        el = ET.SubElement(
            suite, "testcase", classname=f"{name}.cases.{module}", name=rest,
            time=str(case.get("duration_s", 0)),
        )  # fmt: skip
        total += float(case.get("duration_s", 0))
        counts["tests"] += 1
        if case.get("outcome") == "failed":
            counts["failures"] += 1
            failure = ET.SubElement(el, "failure", message=", ".join(case.get("violations", [])))
            failure.text = case.get("error") or ""
        elif case.get("outcome") == "skipped":
            counts["skipped"] += 1
            ET.SubElement(el, "skipped", message=str(case.get("skip_reason", "")))
        lines = []
        if case.get("retried"):
            lines.append("retried: " + "; ".join(case["retried"]))
        if case.get("not_judged"):
            lines.append(f"could not judge: {case['not_judged']}")
        lines += attempt_lines(case)
        if lines:
            out = ET.SubElement(el, "system-out")
            out.text = "\n".join(lines)
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", f"{total:.3f}")
    return suite


def render_junit(index: dict[str, Any]) -> str:
    root = ET.Element("testsuites", name="responses-conformance")
    catalog = index.get("checks", {})
    totals = {"tests": 0, "failures": 0, "skipped": 0, "errors": 0}
    stamp = str(index.get("generated_at", ""))[:19]  # ISO 8601 without the zone, as JUnit has it
    for name, target in index.get("targets", {}).items():
        for suite in (
            _checks_suite(name, target, catalog, stamp),
            _cases_suite(name, target, stamp),
        ):
            if suite.get("tests") == "0":
                continue
            root.append(suite)
            for key in totals:
                totals[key] += int(suite.get(key, "0"))
    for key, value in totals.items():
        root.set(key, str(value))
    _well_formed(root)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
