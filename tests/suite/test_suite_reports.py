"""Folding findings into per-check outcomes, and the reports built from them (unit level)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markupsafe import escape

from cassettes.redaction import REDACTED, Redactor
from conformance import catalog as C
from conformance.catalog import live as L
from conformance.cli import main
from conformance.suite.reporting import (
    build_index,
    merge_indexes,
    render_html,
    render_junit,
    write_reports,
)
from conformance.suite.results import CaseResult, Finding, TargetResult
from conformance.suite.targets import flag_target


def _result(*, strict: bool = False, expected: tuple[str, ...] = ()) -> TargetResult:
    target = flag_target(
        base_url="http://127.0.0.1:9/v1", model="m", name="t",
        profiles=["stateful", "reasoning"], expected_failures=expected,
    )  # fmt: skip
    case = CaseResult("store/x", ("stateful",), (L.STORE_FALSE.id, L.DELETE.id))
    case.exercised |= {L.STORE_FALSE.id, L.DELETE.id, L.REASONING_TOKENS_HARDCODED.id}
    evidence = {"request": {"method": "GET", "path": "/responses/r", "body": ""}}
    for check in (L.STORE_FALSE, L.REASONING_TOKENS_HARDCODED, C.EVENT_TYPE_KNOWN):
        violation = check.violation(expected="404", actual="<script>alert(1)</script>")
        case.findings.append(Finding(violation, case.id, 1, evidence))
    skipped = CaseResult("tools/y", ("tools",), (L.TOOLS_NONE.id,), outcome="skipped",
                         skip_reason="profile `tools` not declared by the target")  # fmt: skip
    return TargetResult(target, strict, cases=[case, skipped])


def test_outcomes_fold_levels_strictness_and_expectations() -> None:
    plain = _result().outcomes()
    assert plain[L.STORE_FALSE.id].outcome == "fail"
    assert plain[L.REASONING_TOKENS_HARDCODED.id].outcome == "warn"  # SHOULD
    assert plain[C.EVENT_TYPE_KNOWN.id].outcome == "info"
    assert plain[L.DELETE.id].outcome == "pass"
    assert plain[L.TOOLS_NONE.id].outcome == "skip"
    assert "not declared" in plain[L.TOOLS_NONE.id].reason
    # stateful is declared, but no case evaluated the recall rule: not exercised, not skipped
    assert plain[L.RECALL.id].outcome == "not_exercised"
    strict = _result(strict=True).outcomes()
    assert strict[L.REASONING_TOKENS_HARDCODED.id].outcome == "fail"
    expected = _result(expected=(L.STORE_FALSE.id, L.DELETE.id)).outcomes()
    assert expected[L.STORE_FALSE.id].outcome == "xfail"
    assert expected[L.DELETE.id].outcome == "xpass" and expected[L.DELETE.id].failing
    assert _result().exit_code() == 1
    assert _result(expected=(L.STORE_FALSE.id,)).exit_code() == 0
    assert _result(expected=(L.STORE_FALSE.id, L.DELETE.id)).exit_code() == 1


def test_not_exercised_is_neither_pass_nor_xfail_nor_xpass() -> None:
    """A check nothing exercised does not pass; listed as an expected failure it
    stays not exercised (no XPASS, no XFAIL), and it does not change the exit code."""
    plain = _result()
    outcomes = plain.outcomes()
    assert outcomes[L.RECALL.id].outcome == "not_exercised"
    assert outcomes[C.ANNOTATIONS_MATCH.id].outcome == "not_exercised"
    summary = plain.summary()
    assert summary["not_exercised"] > 0
    assert summary["exercised"] == sum(
        summary[k] for k in ("fail", "xpass", "warn", "xfail", "info", "pass")
    )
    listed = _result(expected=(L.STORE_FALSE.id, L.RECALL.id))
    assert listed.outcomes()[L.RECALL.id].outcome == "not_exercised"
    assert listed.exit_code() == 0
    index = build_index([listed], strict=False)
    assert index["targets"]["t"]["checks"][L.RECALL.id]["outcome"] == "not_exercised"
    junit = ET.fromstring(render_junit(index).split("\n", 1)[1])
    skipped = {
        tc.get("name"): tc.find("skipped").get("message", "")  # type: ignore[union-attr]
        for tc in junit.iter("testcase")
        if tc.find("skipped") is not None
    }
    assert skipped[L.RECALL.id].startswith("not_exercised")
    html = render_html(index)
    assert "NOT EXERCISED" in html and "<th>not exercised</th>" in html


def test_skip_reason_names_the_case_that_ran_over_one_skipped_elsewhere() -> None:
    # A check two cases may evaluate: one skipped (its profile is not declared), one that ran and
    # did not get to it. The reason must point at the one that ran, not the unrelated skip.
    result = _result()
    skipped = CaseResult("chain/tools", ("stateful",), (L.RECALL.id,), outcome="skipped",
                         skip_reason="profile `tools` not declared by the target")  # fmt: skip
    result.cases += [skipped, CaseResult("chain/z", ("stateful",), (L.RECALL.id,))]
    reason = result.outcomes()[L.RECALL.id].reason
    assert reason.startswith("chain/z ran without evaluating it"), reason
    assert "not declared" not in reason
    result.cases.pop()  # only the skipped one left: its reason is the one to show
    assert "not declared" in result.outcomes()[L.RECALL.id].reason


def test_index_junit_html(monkeypatch: pytest.MonkeyPatch) -> None:
    # The report carries the clauses it cites, read from the wheel's packaged copy or the
    # checkout's docs/ (conformance.catalog.docs); point it at this checkout's docs.
    import conformance.catalog.docs as cited_docs

    monkeypatch.setattr(cited_docs, "_PACKAGED", Path(__file__).resolve().parent / "absent")
    monkeypatch.setattr(cited_docs, "_REPO", Path(__file__).resolve().parents[2])
    index = build_index([_result()], strict=False)
    entry = index["targets"]["t"]["checks"][L.STORE_FALSE.id]
    assert entry["outcome"] == "fail" and entry["evidence"][0]["request"]["path"] == "/responses/r"
    assert index["targets"]["t"]["exit_code"] == 1
    junit = ET.fromstring(render_junit(index).split("\n", 1)[1])
    suite = junit.find("testsuite")
    assert suite is not None and suite.get("name") == "t"
    failures = [tc.get("name") for tc in suite.iter("testcase") if tc.find("failure") is not None]
    assert failures == [L.STORE_FALSE.id]
    html = render_html(index)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert 'id="d-t-live-store-false-not-retrievable"' in html
    # the clause links to its text, which the page carries: a report opened from a CI artifact,
    # without the repository or the install that wrote it, links nothing outside itself
    assert 'href="#clause-spec-s4-1"' in html and "§4.1 (store); KB26" in html
    assert '<div class="clause" id="clause-spec-s4-1"><h3>docs/spec.md#s4-1</h3><pre>' in html
    assert escape(cited_docs.anchor_text("docs/spec.md#s4-1") or "?") in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    ids = set(re.findall(r'\bid="([^"]*)"', html))
    assert hrefs and all(h.startswith("#") and h[1:] in ids for h in hrefs), hrefs
    # the summary counts failing checks per level
    assert "<th>MUST fail</th><th>SHOULD fail</th>" in html
    pass_count = index["targets"]["t"]["summary"]["pass"]
    assert f"<td>{pass_count}</td><td>1</td><td>1</td>" in html


def test_merge_keeps_every_target() -> None:
    one = build_index([_result()], strict=False)
    merged = merge_indexes([one, one])
    assert list(merged["targets"]) == ["t", "t#2"]
    assert "t#2" in render_html(merged)


def test_report_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.json"
    a.write_text(json.dumps(build_index([_result()], strict=False)))
    # the target fails a MUST check: the merged report exits 1, as its run did (0 on e63cc20)
    assert main(["report", "--report-dir", str(tmp_path / "out"), str(a), str(a)]) == 1
    assert {p.name for p in (tmp_path / "out").iterdir()} == {
        "index.json",
        "junit.xml",
        "report.html",
    }
    (tmp_path / "bad.json").write_text("{}")
    assert main(["report", "--report-dir", str(tmp_path / "out"), str(tmp_path / "bad.json")]) == 2
    assert "is not a responses-conformance.index/1 file" in capsys.readouterr().err


def test_write_reports_redacts(tmp_path: Path) -> None:
    index = build_index([_result()], strict=False)
    index["targets"]["t"]["reason"] = 'key "sk-secret-123" leaked'
    write_reports(index, tmp_path, Redactor(["sk-secret-123"]))
    for path in tmp_path.iterdir():
        text = path.read_text()
        assert "sk-secret-123" not in text
    assert REDACTED in (tmp_path / "index.json").read_text()


def test_evidence_shows_every_kind_of_violation_first() -> None:
    # Auditing the vendor matrix: a check violated 90 times in one way and once in
    # another showed five findings of the first kind only. Now the first finding of each kind
    # comes first, and every kind is listed with its count.
    target = flag_target(base_url="http://127.0.0.1:9/v1", model="m", name="t")
    case = CaseResult("core/x", ("core",), (C.RESPONSE_SCHEMA_TYPE.id,))
    for n in range(9):
        v = C.RESPONSE_SCHEMA_TYPE.violation(expected="object", actual="null", path="text")
        case.findings.append(Finding(v, case.id, 1, {"n": n}))
    odd = C.RESPONSE_SCHEMA_TYPE.violation(
        expected="array", actual="null", path="output[1].content[0].logprobs"
    )
    case.findings.append(Finding(odd, case.id, 1, {"n": 9}))
    entry = build_index([TargetResult(target, False, cases=[case])], strict=False)["targets"]["t"]
    shown = entry["checks"][C.RESPONSE_SCHEMA_TYPE.id]
    assert len(shown["evidence"]) == 5 and shown["evidence_omitted"] == 5
    assert [e["n"] for e in shown["evidence"]] == [0, 1, 2, 3, 9]
    assert [(k["path"], k["count"]) for k in shown["kinds"]] == [
        ("text", 9),
        ("output[].content[].logprobs", 1),
    ]
    # without a path (a live check), what came instead tells the kinds apart
    live = CaseResult("errors/x", ("core",), (L.BAD_INPUT_4XX.id,))
    for actual in ("HTTP 500", "HTTP 200", "HTTP 200"):
        v = L.BAD_INPUT_4XX.violation(expected="a 4xx error", actual=actual)
        live.findings.append(Finding(v, live.id, 1, {}))
    entry = build_index([TargetResult(target, False, cases=[live])], strict=False)["targets"]["t"]
    kinds = entry["checks"][L.BAD_INPUT_4XX.id]["kinds"]
    assert [(k["actual"], k["count"]) for k in kinds] == [("HTTP 500", 1), ("HTTP 200", 2)]


def test_a_refined_check_keeps_its_published_id() -> None:
    """`stream.part.order` is split into one ID per rule; a refinement's finding
    is its parent's too, and an expected failure naming the parent covers the refinement."""

    def run(expected: tuple[str, ...]) -> TargetResult:
        target = flag_target(base_url="http://127.0.0.1:9/v1", model="m", name="t",
                             expected_failures=expected)  # fmt: skip
        case = CaseResult("core/x", ("core",), ())
        case.exercised |= {C.PART_ORDER.id, C.PART_DONE_ONCE.id, C.PART_OPENS_EMPTY.id}
        v = C.PART_DONE_ONCE.violation(expected="one `response.output_text.done`", actual="two")
        case.findings.append(Finding(v, case.id, 1, {}))
        return TargetResult(target, False, cases=[case])

    outcomes = run(()).outcomes()
    assert C.PART_DONE_ONCE.parent == C.PART_ORDER.id
    assert outcomes[C.PART_DONE_ONCE.id].outcome == "fail"
    assert outcomes[C.PART_ORDER.id].outcome == "fail"  # the published ID still fails
    assert outcomes[C.PART_ORDER.id].evidence[0].check_id == C.PART_DONE_ONCE.id
    assert outcomes[C.PART_OPENS_EMPTY.id].outcome == "pass"
    listed = run((C.PART_ORDER.id,))
    covered = listed.outcomes()
    assert covered[C.PART_DONE_ONCE.id].outcome == "xfail"
    assert covered[C.PART_ORDER.id].outcome == "xfail"
    # the parent's other refinements passed: no XPASS for them (the entry names the parent)
    assert covered[C.PART_OPENS_EMPTY.id].outcome == "pass"
    assert listed.exit_code() == 0


def test_html_clause_without_docs_beside_shows_the_anchor(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Neither a packaged copy nor a checkout's docs/ (an install made without setup.py's build
    # step): the clause is shown with its anchor as text, not a dead link.
    import conformance.catalog.docs as cited_docs

    monkeypatch.setattr(cited_docs, "_PACKAGED", tmp_path / "_docs")
    monkeypatch.setattr(cited_docs, "_REPO", tmp_path)
    html = render_html(build_index([_result()], strict=False))
    assert "§4.1 (store); KB26 (docs/spec.md#s4-1" in html
    assert 'class="spec"' not in html
