"""The Markdown summary and the baseline comparison, from a small synthetic index."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from benchmarks.vendors.compare import compare
from benchmarks.vendors.summary import (
    counts,
    exercised,
    failing_checks,
    render_summary,
    repro_command,
)

ROOT = Path(__file__).resolve().parents[2]
EVENT = (
    '{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "delta": "Hi"}'
)
INDEX: dict[str, Any] = {
    "tool": {"name": "responses-conformance", "version": "0.1.0"},
    "checks": {
        "stream.sequence.present": {"level": "MUST", "clause": "SPEC §2.1 [REC]",
                                    "requirement": "every event carries `sequence_number`"},
        "live.errors.param_named": {"level": "SHOULD", "clause": "SPEC §4",
                                    "requirement": "a 400 names the field in `param`"},
    },
    "targets": {
        "vendor-x": {
            "status": "ran", "duration_s": 12.0,
            "summary": {"exercised": 3, "not_exercised": 1},
            "target": {"profiles": ["core"]},
            "checks": {
                "stream.sequence.present": {
                    "outcome": "fail", "level": "MUST", "violations": 7,
                    "evidence": [{
                        "case": "core/create_stream[string]", "event_index": 2,
                        "expected": "an integer `sequence_number`", "actual": "missing",
                        "request": {"method": "POST", "path": "/responses",
                                    "body": '{"model": "m", "input": "Say hi", "stream": true}'},
                        "events": [{"index": 2, "event": EVENT}],
                    }],
                },
                "live.errors.param_named": {"outcome": "warn", "level": "SHOULD", "violations": 1,
                                            "evidence": []},
                "usage.total": {"outcome": "pass", "level": "MUST", "violations": 0},
                "tools.choice": {"outcome": "skip", "level": "MUST", "violations": 0},
                "stream.text.annotations_match": {"outcome": "not_exercised", "level": "MUST",
                                                  "violations": 0},
            },
        },
    },
}  # fmt: skip
RUN: dict[str, Any] = {
    "date": "2026-11-30T10:00:00+00:00", "slice": "full", "wall_s": 600,
    "machine": {"cpus": 2}, "repo": {"commit": "abcdef1234567"},
    "vendors": {"x": {"codebase": "Vendor X", "version": "1.2.3", "installed": "1.2.3",
                      "requirement": "x==1.2.3", "source": "PyPI", "wheel_sha256": "ab" * 32,
                      "install_s": 3}},
    "targets": {"vendor-x": {"vendor": "x", "profiles": ["core"], "claim": "its README",
                             "backend": "SGLang", "suite_s": 12}},
}  # fmt: skip


def test_counts_are_checks_by_level() -> None:
    target = INDEX["targets"]["vendor-x"]
    assert counts(target)["must"] == 1 and counts(target)["should"] == 1
    assert counts(target)["pass"] == 1 and counts(target)["skip"] == 1
    assert [cid for cid, _ in failing_checks(target)] == [
        "stream.sequence.present", "live.errors.param_named"
    ]  # fmt: skip


def test_exercised_counts_are_the_suites_own() -> None:
    # The matrix shows what the suite counted (`summary`), not a second count of the outcomes;
    # on every published target that count is the outcomes' (not trivially: some are unexercised).
    index = json.loads((ROOT / "docs" / "vendors" / "matrix" / "index.json").read_text())
    seen = 0
    for name, target in index["targets"].items():
        c = counts(target)
        done = sum(n for kind, n in c.items() if kind not in ("not_exercised", "skip"))
        assert exercised(target) == (done, c["not_exercised"]), name
        seen += c["not_exercised"] > 0
    assert seen >= 2


def test_summary_has_the_matrix_versions_evidence_and_a_reproduction() -> None:
    text = render_summary(INDEX, RUN)
    assert (
        "| `vendor-x` | Vendor X 1.2.3 | SGLang | core | **fails** | 1 | 1 | 1 | 3 | 1 | 1 | 12 s |"
        in text
    )  # MUST fail, SHOULD fail, pass, exercised (the two failures and the pass), not exercised, skip
    assert "`x==1.2.3`" in text and "10.0 min" in text
    assert "#### `stream.sequence.present` — MUST, SPEC §2.1 [REC]" in text
    assert "#2: " + EVENT in text
    assert "- expected: an integer `sequence_number`" in text and "- actual: missing" in text
    assert "python -m benchmarks.vendors repro vendor-x -k 'create_stream and string'" in text
    assert 'curl -sN -X POST "$BASE_URL/responses"' in text


def test_repro_command_turns_a_case_id_into_a_k_expression() -> None:
    assert repro_command("t", "store/delete") == "python -m benchmarks.vendors repro t -k 'delete'"
    assert repro_command("t", "errors/bad_input[malformed_json]").endswith(
        "-k 'bad_input and malformed_json'"
    )


def test_compare_reports_every_changed_verdict_and_unknown_targets() -> None:
    assert compare(INDEX, INDEX) == []
    changed = copy.deepcopy(INDEX)
    changed["targets"]["vendor-x"]["checks"]["usage.total"]["outcome"] = "fail"
    changed["targets"]["other"] = {"status": "ran", "checks": {}}
    assert compare(INDEX, changed) == [
        "vendor-x: usage.total pass → fail", "other: not in the baseline"
    ]  # fmt: skip


def test_a_new_check_the_target_skips_is_no_difference() -> None:
    # A check ID added since the baseline, in a profile the target does not claim: no verdict.
    grown = copy.deepcopy(INDEX)
    checks = grown["targets"]["vendor-x"]["checks"]
    checks["live.client.codex.parameters"] = {"outcome": "skip", "level": "MUST", "violations": 0}
    assert compare(INDEX, grown) == []
    checks["live.client.codex.parameters"]["outcome"] = "pass"  # judged: a verdict
    assert compare(INDEX, grown) == ["vendor-x: live.client.codex.parameters absent → pass"]
    assert compare(grown, INDEX) == ["vendor-x: live.client.codex.parameters pass → absent"]


def test_summary_lists_every_kind_and_the_inherited_failures() -> None:
    index = copy.deepcopy(INDEX)
    checks = index["targets"]["vendor-x"]["checks"]
    checks["stream.sequence.present"]["kinds"] = [
        {"path": "sequence_number", "expected": "an integer", "actual": "missing", "count": 6},
        {"path": "response.sequence_number", "expected": "an integer", "actual": "null",
         "count": 1},
    ]  # fmt: skip
    checks["usage.total"] = {"outcome": "xfail", "level": "MUST", "violations": 2,
                             "reason": "inherited from the backend: it does the same"}  # fmt: skip
    text = render_summary(index, RUN)
    assert "- every kind of violation: `sequence_number` expected an integer" in text
    assert "(×6); `response.sequence_number`" in text
    assert "Expected failures (XFAIL: shown, not counted against this target):" in text
    assert "- `usage.total` (MUST, 2 violation(s)): inherited from the backend" in text


def test_the_published_matrix_page_is_its_index_rendered() -> None:
    # docs/vendors/matrix.md is the run's summary (`python -m benchmarks.vendors summary`): a
    # change to the renderer must re-render it, or the page and its index drift apart.
    published = ROOT / "docs" / "vendors"
    index = json.loads((published / "matrix" / "index.json").read_text())
    run = json.loads((published / "matrix" / "run.json").read_text())
    assert render_summary(index, run) == (published / "matrix.md").read_text()
