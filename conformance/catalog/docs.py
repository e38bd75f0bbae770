"""The documents a check's clause cites, wherever the judge runs from.

A clause cites docs/spec.md by section and docs/known-bugs.md by row
(:func:`conformance.catalog.registry.clause_anchors`). docs/ is their one source: a checkout reads
it there; a wheel carries a copy made at build time (setup.py, ``conformance/_docs/``, read with
:mod:`importlib.resources`), so ``explain`` and the HTML report of a wheel installed anywhere cite
text the user has (tests/conformance/catalog/test_spec_in_wheel.py: the copy equals docs/).
"""

from __future__ import annotations

import functools
import re
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from .registry import KNOWN_BUGS_DOC, SPEC_DOC

__all__ = ["CITED_DOCS", "anchor_text", "doc_file", "sections"]

CITED_DOCS = (SPEC_DOC, KNOWN_BUGS_DOC)

_PACKAGED: Traversable = files("conformance") / "_docs"  # conformance/_docs in a wheel
_REPO = Path(__file__).resolve().parents[2]  # the checkout, where docs/ is
_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')


def doc_file(doc: str) -> Traversable | None:
    """The file of one cited document (``docs/spec.md``), the wheel's packaged copy first, then
    the checkout's; None for any other name (an anchor read from an index is input) or where
    neither has it."""
    if doc not in CITED_DOCS:
        return None
    for path in (_PACKAGED / Path(doc).name, _REPO / doc):
        try:
            if path.is_file():
                return path
        except (OSError, ValueError):  # pragma: no cover - a name the file system refuses
            return None
    return None


def sections(doc: str) -> dict[str, str]:
    """Each anchor of ``doc`` with its text, in the document's order: from the anchor to the next
    anchor, or, for a table row (docs/known-bugs.md), the row; empty where ``doc`` is not at
    hand."""
    path = doc_file(doc)
    return {} if path is None else _parse(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=4)
def _parse(text: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        found = _ANCHOR.search(line)
        if found is not None:
            rest = _ANCHOR.sub("", line).strip()
            current = out.setdefault(found.group(1), [])
            if rest:
                current.append(rest)
            if line.lstrip().startswith("|"):  # a table row is its own text
                current = None
            continue
        if current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in out.items()}


def anchor_text(anchor: str) -> str | None:
    """The text an anchor (``docs/spec.md#s2-1``) points at, or None where the document or the
    anchor is missing."""
    doc, _, fragment = anchor.partition("#")
    text = sections(doc).get(fragment)
    return text or None
