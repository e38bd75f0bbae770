"""The clauses report.html cites, on the page itself.

A check's clause names sections of docs/spec.md and rows of docs/known-bugs.md
(:func:`conformance.catalog.registry.clause_anchors`). A report is read where it was opened — a
CI artifact, a mail attachment — not where it was written, so a link to a file of the install
that wrote it (``file:///…/site-packages/…``) leads nowhere. The page carries the text instead:
each clause it links, once, at its end ("Clauses cited"), from the documents this install has
(:mod:`conformance.catalog.docs`, packaged into the wheel), and the links are in-page fragments.

An index is input (``report`` merges files from anywhere): an anchor is linked only when it names
a section or row those documents have (``docs/spec.md#s2-1``); any other (README.md,
../../etc/passwd, a section this version lacks) is shown as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ...catalog.docs import CITED_DOCS, sections

__all__ = ["Clause", "Clauses"]


@dataclass(frozen=True, slots=True)
class Clause:
    """One cited section or row: its id on the page, the anchor it stands for, its text."""

    id: str
    anchor: str
    text: str


def _page_id(doc: str, fragment: str) -> str:
    """``docs/spec.md``, ``s2-1`` → ``clause-spec-s2-1`` (the fragment is one of the document's
    own anchors, so the id is as plain as they are)."""
    return f"clause-{PurePosixPath(doc).stem}-{fragment}"


class Clauses(dict[str, "str | None"]):
    """Anchor (``docs/spec.md#s2-1``) → its in-page link (``#clause-spec-s2-1``), or None where
    the documents have no such section; each anchor looked up is a clause :meth:`cited` lists."""

    def __missing__(self, anchor: str) -> str | None:
        doc, _, fragment = anchor.partition("#")
        found = doc in CITED_DOCS and bool(sections(doc).get(fragment))
        self[anchor] = href = f"#{_page_id(doc, fragment)}" if found else None
        return href

    def cited(self) -> list[Clause]:
        """The clauses linked so far, in the documents' order (docs/spec.md's sections first)."""
        out = []
        for doc in CITED_DOCS:
            for fragment, text in sections(doc).items():
                if self.get(f"{doc}#{fragment}") is not None:
                    out.append(Clause(_page_id(doc, fragment), f"{doc}#{fragment}", text))
        return out
