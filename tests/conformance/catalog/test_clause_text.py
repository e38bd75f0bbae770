"""``explain`` prints the text of the clauses a check cites, from the documents the install has
(conformance.catalog.docs: the wheel's packaged copy, else the checkout's docs/), run from any
folder; a long section is cut with a pointer to the whole of it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import conformance.cli  # noqa: F401  (the full registry)
from conformance.catalog import docs as cited_docs
from conformance.catalog.docs import anchor_text, doc_file
from conformance.catalog.registry import REGISTRY, Check, Level
from conformance.offline import explain as explaining

ROOT = Path(__file__).resolve().parents[3]


def test_explain_from_another_folder_prints_the_clause(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cli = [sys.executable, "-m", "conformance.cli", "explain", "stream.sequence.contiguous"]
    done = subprocess.run(cli, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    spec = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    start = spec.index("**§2.1 Sequence numbers.**")
    section = spec[start : spec.index("<a id=", start)].strip()
    assert "\ndocs/spec.md#s2-1:\n" in done.stdout
    assert "\n".join("    " + line for line in section.splitlines()) in done.stdout


def test_a_long_section_is_cut_with_a_pointer_to_the_whole() -> None:
    link = max(
        {a for c in REGISTRY.values() for a in c.anchors}, key=lambda a: len(anchor_text(a) or "")
    )
    section = anchor_text(link)
    assert section is not None and len(section.splitlines()) > explaining._CLAUSE_LINES
    check = next(c for c in REGISTRY.values() if link in c.anchors)
    out = io.StringIO()
    assert explaining.explain(check.id, out)
    printed = out.getvalue().split(f"\n{link}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    kept = section.splitlines()[: explaining._CLAUSE_LINES]
    assert printed[:-1] == ["    " + line for line in kept]
    more = len(section.splitlines()) - explaining._CLAUSE_LINES
    doc, _, fragment = link.partition("#")
    where = doc_file(doc)
    assert printed[-1] == f"    … {more} more lines: the whole section is #{fragment} of {where}"
    assert where is not None and section in where.read_text(encoding="utf-8")


def test_a_clause_the_install_lacks_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # neither a packaged copy nor docs/ beside the package (an install made without setup.py)
    monkeypatch.setattr(cited_docs, "_PACKAGED", tmp_path / "_docs")
    monkeypatch.setattr(cited_docs, "_REPO", tmp_path)
    check = Check("x.y", Level.MUST, "§2.1 [REC]", "r")
    assert explaining._clause_text(check) == (
        "\ndocs/spec.md#s2-1: not found (docs/ is not beside this install)\n"
    )
