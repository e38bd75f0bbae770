"""The HTML report links a check's clause to its text on the page, for a section of docs/spec.md
or a row of docs/known-bugs.md only: an index is input (``report`` merges files from anywhere),
and its ``anchor`` naming any other file (README.md, /etc/passwd, ../../etc/passwd) once made a
``file://`` link to that file itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.catalog import docs as cited_docs
from conformance.suite.reporting.clauses import Clauses
from conformance.suite.reporting.html import _spec_href, _spec_link

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _from_this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report finds the documents in the wheel's packaged copy first, then in the checkout
    (conformance.catalog.docs); every case here runs as from this checkout (docs/, README.md, and
    all), with no packaged copy."""
    monkeypatch.setattr(cited_docs, "_PACKAGED", ROOT / "absent")
    monkeypatch.setattr(cited_docs, "_REPO", ROOT)


def _meta(anchor: str) -> dict[str, str]:
    return {"clause": "§2.1 [REC]", "anchor": anchor}


@pytest.mark.parametrize(
    ("anchor", "page_id"),
    [
        ("docs/spec.md#s2-1", "clause-spec-s2-1"),
        ("docs/known-bugs.md#kb13", "clause-known-bugs-kb13"),
    ],
)
def test_the_spec_and_the_known_bugs_are_linked(anchor: str, page_id: str) -> None:
    clauses = Clauses()
    assert _spec_link(_meta(anchor), clauses) == (
        f'<a class="spec" href="#{page_id}" title="{anchor}">§2.1 [REC]</a>'
    )
    assert _spec_href(_meta(anchor), "x", clauses) == f'<a href="#{page_id}">x</a>'
    # the page carries the text the link points at
    (cited,) = clauses.cited()
    assert (cited.id, cited.anchor) == (page_id, anchor)
    assert cited.text == cited_docs.anchor_text(anchor)


@pytest.mark.parametrize(
    "anchor",
    [
        "README.md#x",
        "pyproject.toml",
        "docs/cli.md#exit-codes",
        "/etc/passwd#x",
        "../../../../../../etc/passwd#x",
        "docs/../README.md#x",
        "docs/../docs/spec.md#s2-1",
        "./docs/spec.md#s2-1",
        str(ROOT / "docs" / "spec.md") + "#s2-1",
        "docs/spec.md/#s2-1",
        "DOCS/SPEC.MD#s2-1",
        "docs/spec.md#s99-1",
        "docs/spec.md#",
        "docs/spec.md",
    ],
)
def test_any_other_file_is_not_linked(anchor: str) -> None:
    from html import escape

    clauses = Clauses()
    assert _spec_link(_meta(anchor), clauses) == f"§2.1 [REC] ({escape(anchor)})"
    assert _spec_href(_meta(anchor), "x", clauses) == "x"
    assert clauses.cited() == []


def test_no_anchor_is_the_clause_alone() -> None:
    assert _spec_link(_meta(""), Clauses()) == "§2.1 [REC]"
    assert _spec_href(_meta(""), "x", Clauses()) == "x"
