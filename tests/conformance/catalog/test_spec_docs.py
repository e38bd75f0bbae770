"""The spec in the repository: every clause a check cites is an anchor of
docs/spec.md (or a row of docs/known-bugs.md), no check cites a document outside the repository,
and every known-bugs row names the check that catches it — the one its test proves."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from test_known_bugs import KNOWN_BUGS

import conformance.cli  # noqa: F401  (the full registry)
from conformance.catalog.docs import anchor_text
from conformance.catalog.registry import REGISTRY, clause_anchors

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "docs" / "spec.md"
KNOWN = ROOT / "docs" / "known-bugs.md"
_ID = re.compile(r'<a id="([a-z0-9-]+)"></a>')


def anchors(path: Path) -> set[str]:
    return set(_ID.findall(path.read_text()))


def known_bug_rows() -> dict[str, list[str]]:
    """KB id -> the check IDs its row names (the `caught by` column)."""
    rows: dict[str, list[str]] = {}
    for line in KNOWN.read_text().splitlines():
        m = re.match(r'\| <a id="kb(\d\d)"></a>KB\d\d \|', line)
        if m:
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[f"KB{m.group(1)}"] = re.findall(r"`([a-z0-9_.]+)`", cells[3])
    return rows


@pytest.mark.parametrize("check_id", sorted(REGISTRY))
def test_every_cited_clause_is_an_anchor_in_the_repository(check_id: str) -> None:
    # Read as `explain` and report.html read them: the registry's parse of the clause
    # (clause_anchors), the documents' sections as conformance.catalog.docs cuts them.
    check = REGISTRY[check_id]
    assert check.anchors, f"{check_id} cites no section of docs/spec.md: {check.clause!r}"
    assert check.anchor.startswith("docs/spec.md#")
    for link in check.anchors:
        assert anchor_text(link), f"{check_id}: {link} is not a section of the spec with text"


def test_a_section_the_spec_lacks_does_not_resolve() -> None:
    # what the test above fails on: a clause citing §99.1 (or a known-bugs row past the last)
    assert clause_anchors("§99.1 [REC]; KB99") == ("docs/spec.md#s99-1", "docs/known-bugs.md#kb99")
    assert all(anchor_text(link) is None for link in clause_anchors("§99.1 [REC]; KB99"))


@pytest.mark.parametrize("check_id", sorted(REGISTRY))
def test_no_citation_outside_the_repository(check_id: str) -> None:
    clause = REGISTRY[check_id].clause
    for outside in ("SPEC", "issue", ".md", "DESIGN", "Build"):
        assert outside not in clause, f"{check_id} cites {outside!r}: {clause!r}"


def test_every_known_bugs_row_names_the_check_that_catches_it() -> None:
    rows = known_bug_rows()
    assert sorted(rows) == [f"KB{n:02d}" for n in range(1, 31)]
    for kb, ids in rows.items():
        assert ids, f"{kb} names no check"
        assert set(ids) <= set(REGISTRY), f"{kb}: {ids}"
    # the offline rows: the check test_known_bugs.py proves on a mutated recording
    for kb, bug in KNOWN_BUGS.items():
        assert rows[kb] == [bug.check_id], kb
    # the live rows: the check the broken server of tests/suite/broken_servers.py trips
    sys.path.insert(0, str(ROOT / "tests" / "suite"))
    try:
        from broken_servers import BROKEN
    finally:
        sys.path.pop(0)
    for kb, broken in BROKEN.items():
        assert set(rows[kb]) == set(broken.expected), kb
    assert set(KNOWN_BUGS) | set(BROKEN) == set(rows)


def test_every_anchor_of_the_spec_is_unique_and_sections_are_cited() -> None:
    ids = _ID.findall(SPEC.read_text())
    assert len(ids) == len(set(ids))
    cited = {link.partition("#")[2] for c in REGISTRY.values() for link in c.anchors}
    # every numbered section a rule lives in is cited by some check
    sections = {a for a in ids if re.fullmatch(r"s\d[a-z0-9-]*", a)} - {
        "s1",
        "s2",
        "s3",
        "s4",
        "s6",
        "s7",
    }
    # §1.4 (extra fields are ignored) and §6.4 (outcomes) state what the judge does not check
    assert sections - cited == {"s1-4", "s6-4"}, sorted(sections - cited)
