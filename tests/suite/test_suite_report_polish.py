"""The HTML report as a person reads it: evidence wording, the failing case in
Findings, no heading without content, a compact page for one target."""

from __future__ import annotations

import re

from conformance import catalog as C
from conformance.catalog import live as L
from conformance.suite.reporting import build_index, merge_indexes, render_html
from conformance.suite.results import CaseResult, Finding, TargetResult
from conformance.suite.targets import flag_target


def _target(name: str = "t", *, failing: bool = True) -> TargetResult:
    target = flag_target(
        base_url="http://127.0.0.1:9/v1", model="m", name=name, profiles=["stateful"]
    )
    case = CaseResult("store/delete", ("stateful",), (L.DELETE.id,))
    case.exercised |= {L.DELETE.id}
    if failing:
        want = {"id": "resp_1", "object": "response", "deleted": True}
        v = L.DELETE.violation(expected=f"HTTP 200 {want}", actual="HTTP 200 ''")
        case.findings.append(Finding(v, case.id, 1, {}))
        other = CaseResult("store/delete_again", ("stateful",), (L.DELETE.id,))
        other.exercised |= {L.DELETE.id}
        v2 = L.DELETE.violation(expected="HTTP 200", actual="HTTP 200:")
        other.findings.append(Finding(v2, other.id, 1, {}))
        return TargetResult(target, False, cases=[case, other])
    return TargetResult(target, False, cases=[case])


def _section(html: str, heading: str) -> str:
    start = html.index(heading)
    end = html.find("<h2>", start + len(heading))
    return html[start : end if end > 0 else len(html)]


def test_an_empty_body_is_said_in_words_not_as_a_python_literal() -> None:
    html = render_html(build_index([_target()], strict=False))
    # 9f25f79: "expected HTTP 200 · actual HTTP 200 ''" read as a contradiction.
    assert "HTTP 200 &#x27;&#x27;" not in html and "HTTP 200:<" not in html
    assert "got HTTP 200 with an empty body" in html
    assert "<b>got</b> <code>HTTP 200 with an empty body</code>" in html


def test_findings_name_the_failing_case() -> None:
    html = render_html(build_index([_target()], strict=False))
    findings = _section(html, "<h2>Findings</h2>")
    assert "<th>failing case</th>" in findings
    assert "store/delete" in findings and "+1 more" in findings


def test_no_heading_without_content() -> None:
    for results in (
        [_target(failing=False)],
        [_target()],
        [_target("a"), _target("b", failing=False)],
    ):
        html = render_html(build_index(results, strict=False))
        empty = re.findall(r"<h[23][^>]*>[^<]*</h[23]>\s*(?=<h[1-3]|</body>)", html)
        assert not empty, empty
    clean = render_html(build_index([_target(failing=False)], strict=False))
    assert "<h2>Details</h2>" not in clean  # one heading per target, not an empty one above


def test_a_one_target_page_is_compact() -> None:
    index = build_index([_target()], strict=False)
    checks = len(index["checks"])
    assert checks > 150
    html = render_html(index)
    # 9f25f79: the matrix of one column was a table row per check (a page of ~4,800 px).
    matrix = _section(html, "<h2>Matrix")
    assert matrix.count("<tr") <= 9  # a row per outcome, the checks as chips
    assert matrix.count('class="chip ') == checks
    # skipped / not-exercised checks fold into one collapsed table, still linkable
    assert '<details class="quiet">' in html
    assert f'id="d-t-{C.EVENT_TYPE_KNOWN.id.replace(".", "-").replace("_", "-")}"' in html
    # several targets keep the matrix of columns
    merged = merge_indexes([index, build_index([_target("u")], strict=False)])
    assert '<table class="matrix"><tr><th>check</th>' in render_html(merged)


def test_raw_bytes_and_further_examples_fold_under_one_line() -> None:
    target = flag_target(base_url="http://127.0.0.1:9/v1", model="m", name="t")
    case = CaseResult("core/x", ("core",), (C.RESPONSE_SCHEMA_TYPE.id,))
    body = '{"model": "m", "input": "' + "x" * 500 + '"}'
    for n in range(3):
        v = C.RESPONSE_SCHEMA_TYPE.violation(expected="object", actual="null", path=f"f{n}")
        evidence = {"request": {"method": "POST", "path": "/responses", "body": body}}
        case.findings.append(Finding(v, f"core/x{n}", 1, evidence))
    html = render_html(build_index([TargetResult(target, False, cases=[case])], strict=False))
    details = _section(html, "<h2>Details: t</h2>")
    # the first example is shown, its request body behind a one-line summary; the others folded
    assert f"<summary><b>request body</b> ({len(body)} chars)" in details
    assert "2 more example(s): core/x1, core/x2</summary>" in details
    assert details.index("<b>case</b> core/x0") < details.index("2 more example(s)")
