"""``responses-conformance explain ID``: one check in full — its requirement, level, profile, the
clause it cites, the text of that clause (docs/spec.md, docs/known-bugs.md: packaged into the wheel,
:mod:`conformance.catalog.docs`) and the examples that prove it (:mod:`conformance.examples`)."""

from __future__ import annotations

from typing import Any, TextIO

from ..catalog.docs import anchor_text, doc_file
from ..catalog.registry import REGISTRY, Check, refinements

__all__ = ["explain", "explain_dict"]


def explain(check_id: str, out: TextIO) -> bool:
    """Write the explanation of ``check_id``; False (nothing written) for an unknown ID."""
    check = REGISTRY.get(check_id)
    if check is None:
        return False
    from ..examples import EXAMPLES, render

    out.write(_head(check))
    out.write(_clause_text(check))
    ex = EXAMPLES.get(check.id)
    if ex is None:
        out.write("\nexamples: none yet\n")
        return True
    extra = f" (it also fires: {', '.join(sorted(ex.also))})" if ex.also else ""
    out.write(f"\nfailing example{extra}:\n{_indent(render(ex.failing))}\n")
    out.write(f"\npassing near miss:\n{_indent(render(ex.passing))}\n")
    return True


def _head(check: Check) -> str:
    lines = [
        check.id,
        f"  requirement: {check.requirement}",
        f"  level:       {check.level.value}",
        f"  profile:     {check.profile}",
        f"  clause:      {check.clause}",
        *(f"  see:         {anchor}" for anchor in check.anchors),
    ]
    if check.parent is not None:
        lines.append(f"  refines:     {check.parent} (an expected failure naming it covers this)")
    parts = refinements(check.id)
    if parts:
        lines.append(f"  refined by:  {', '.join(parts)}")
    return "\n".join(lines) + "\n"


# How much of one cited section ``explain`` prints: the longest (§1.7) runs to 58 lines; the
# rest is one pointer away.
_CLAUSE_LINES = 16


def _clause_text(check: Check) -> str:
    """The text of every section and known-bugs row the clause cites, each at most
    ``_CLAUSE_LINES`` lines with a pointer to the whole; a line saying so where the document is
    not at hand."""
    out = []
    for anchor in check.anchors:
        text = anchor_text(anchor)
        if text is None:
            out.append(f"\n{anchor}: not found (docs/ is not beside this install)\n")
            continue
        lines = text.splitlines()
        if len(lines) > _CLAUSE_LINES:
            doc, _, fragment = anchor.partition("#")
            more = len(lines) - _CLAUSE_LINES
            lines = [*lines[:_CLAUSE_LINES], f"… {more} more lines: the whole section is "
                     f"#{fragment} of {doc_file(doc)}"]  # fmt: skip
        body = "\n".join(lines)
        out.append(f"\n{anchor}:\n{_indent(body)}\n")
    return "".join(out)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def explain_dict(check_id: str) -> dict[str, Any] | None:
    """``explain --format json``: the check as ``list --format json`` gives it, plus its anchors,
    refinements and the two examples rendered as text; None for an unknown ID."""
    check = REGISTRY.get(check_id)
    if check is None:
        return None
    from ..examples import EXAMPLES, render

    doc: dict[str, Any] = {**check.as_dict(), "anchors": list(check.anchors)}
    doc["refined_by"] = list(refinements(check.id))
    ex = EXAMPLES.get(check.id)
    if ex is not None:
        doc["examples"] = {
            "failing": render(ex.failing),
            "passing": render(ex.passing),
            "also_fires": sorted(ex.also),
        }
    return doc
