"""The check registry: every rule the judge enforces, with a stable dotted ID.

A check is declared once, at import, with :func:`register`; a second declaration of the same ID raises
``DuplicateCheckError`` so IDs stay unique (the catalogue lives in :mod:`conformance.catalog`).
A :class:`Violation` is one failure of one check at one place, printed like h2spec: the requirement,
then what was expected and what was seen.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConformanceError
from .render import truncate

__all__ = [
    "REGISTRY",
    "Check",
    "DuplicateCheckError",
    "Level",
    "Violation",
    "clause_anchors",
    "failing",
    "refinements",
    "register",
    "with_family",
]


class Level(enum.Enum):
    """How much a check matters: MUST fails a run, SHOULD fails it under ``--strict``, INFO never."""

    MUST = "MUST"
    SHOULD = "SHOULD"
    INFO = "INFO"

    def fails(self, *, strict: bool) -> bool:
        return self is Level.MUST or (strict and self is Level.SHOULD)


class DuplicateCheckError(ConformanceError, ValueError):
    """Two checks were declared with one ID."""


@dataclass(frozen=True, slots=True)
class Check:
    """One rule. ``clause`` cites the repository's ``docs/spec.md`` by section (``§2.1``), the
    sources of the fact (``[REC]``, ``[OAPI] Response``…) and the rows of ``docs/known-bugs.md``
    it catches (``KB13``); :attr:`anchors` turns those into links."""

    id: str
    level: Level
    clause: str
    requirement: str
    profile: str = "core"
    # The published ID this check refines (one requirement of a check that guarded several):
    # the parent keeps its ID, its outcome folds its refinements', and an expected failure
    # naming the parent covers them.
    parent: str | None = None

    def violation(
        self,
        *,
        expected: Any,
        actual: Any,
        event_index: int | None = None,
        message: str = "",
        path: str = "",
    ) -> Violation:
        return Violation(
            check=self,
            event_index=event_index,
            expected=_text(expected),
            actual=_text(actual),
            message=message,
            path=path,
        )

    @property
    def anchors(self) -> tuple[str, ...]:
        """Where the clause is in the repository: ``docs/spec.md#s2-1`` per section cited, then
        ``docs/known-bugs.md#kb13`` per known-bugs row."""
        return clause_anchors(self.clause)

    @property
    def anchor(self) -> str:
        """The first section the clause cites, as a link (``docs/spec.md#s2-1``)."""
        return self.anchors[0] if self.anchors else ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level.value,
            "clause": self.clause,
            "anchor": self.anchor,
            "requirement": self.requirement,
            "profile": self.profile,
            **({"parent": self.parent} if self.parent else {}),
        }


REGISTRY: dict[str, Check] = {}

SPEC_DOC = "docs/spec.md"
KNOWN_BUGS_DOC = "docs/known-bugs.md"
_SECTION = re.compile(r"§(\d+(?:\.\d+)*[a-z]?)")
_KB = re.compile(r"\bKB(\d\d)\b")


def clause_anchors(clause: str) -> tuple[str, ...]:
    """The links a clause makes: ``§2.6`` → ``docs/spec.md#s2-6``, ``KB24`` →
    ``docs/known-bugs.md#kb24`` (the anchors those files define)."""
    sections = [f"{SPEC_DOC}#s{m.replace('.', '-')}" for m in _SECTION.findall(clause)]
    rows = [f"{KNOWN_BUGS_DOC}#kb{n}" for n in _KB.findall(clause)]
    return tuple(dict.fromkeys(sections + rows))


def register(
    check_id: str,
    level: Level,
    clause: str,
    requirement: str,
    *,
    profile: str = "core",
    parent: str | None = None,
) -> Check:
    """Declare a check; an ID declared twice fails at import. ``parent``: the published check
    this one refines (declared first, same level and profile)."""
    if check_id in REGISTRY:
        raise DuplicateCheckError(f"check ID {check_id!r} is declared twice")
    parts = check_id.split(".")
    if len(parts) < 2 or not all(p and p.replace("_", "").isalnum() for p in parts):
        raise ValueError(f"check ID {check_id!r} is not a dotted lower-case name")
    if check_id != check_id.lower():
        raise ValueError(f"check ID {check_id!r} is not lower case")
    if parent is not None:
        base = REGISTRY.get(parent)
        if base is None or base.parent is not None:
            raise ValueError(f"check {check_id!r} refines {parent!r}, which is not a top check")
        if (base.level, base.profile) != (level, profile):
            raise ValueError(f"check {check_id!r} has another level or profile than {parent!r}")
    check = Check(check_id, level, clause, requirement, profile, parent)
    REGISTRY[check_id] = check
    return check


_FAMILIES: tuple[int, dict[str, tuple[str, ...]]] = (-1, {})


def _family_index() -> dict[str, tuple[str, ...]]:
    """Check ID -> its relatives (a parent's refinements, a refinement's parent), rebuilt when a
    check is registered."""
    global _FAMILIES
    size, index = _FAMILIES
    if size != len(REGISTRY):
        children: dict[str, list[str]] = {}
        for check in REGISTRY.values():
            if check.parent is not None:
                children.setdefault(check.parent, []).append(check.id)
        index = {p: tuple(sorted(c)) for p, c in children.items()}
        for p, kids in list(index.items()):
            for kid in kids:
                index[kid] = (p,)
        _FAMILIES = (len(REGISTRY), index)
    return index


def refinements(check_id: str) -> list[str]:
    """The IDs that refine ``check_id`` (empty for a check that is not split)."""
    check = REGISTRY.get(check_id)
    if check is None or check.parent is not None:
        return []
    return list(_family_index().get(check_id, ()))


def with_family(ids: set[str]) -> set[str]:
    """``ids`` with the parent of every refinement in it (a refinement exercised exercises its
    parent) and the refinements of every parent in it (a parent's rules all apply)."""
    index = _family_index()
    out = set(ids)
    for check_id in ids:
        out.update(index.get(check_id, ()))
    return out


@dataclass(frozen=True, slots=True)
class Violation:
    """One failure of ``check``; ``event_index`` counts events from 0 in the order received."""

    check: Check
    event_index: int | None
    expected: str
    actual: str
    message: str = ""
    path: str = field(default="")

    @property
    def check_id(self) -> str:
        return self.check.id

    @property
    def level(self) -> Level:
        return self.check.level

    def format(self) -> str:
        """h2spec-style: requirement, expected, actual, where."""
        where = f"event #{self.event_index}" if self.event_index is not None else "end of stream"
        if self.path:
            where += f", at {self.path}"
        lines = [
            f"[{self.check.level.value}] {self.check.id} ({where})",
            f"  requirement: {self.check.requirement}",
            f"  expected:    {self.expected}",
            f"  actual:      {self.actual}",
        ]
        if self.message:
            lines.append(f"  note:        {self.message}")
        lines.append(f"  clause:      {self.check.clause} ({self.check.anchor})")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "check_id": self.check.id,
            "level": self.check.level.value,
            "event_index": self.event_index,
            "path": self.path,
            "expected": self.expected,
            "actual": self.actual,
            "message": self.message,
            "requirement": self.check.requirement,
            "clause": self.check.clause,
            "anchor": self.check.anchor,
            **({"parent": self.check.parent} if self.check.parent else {}),
        }

    def __str__(self) -> str:
        return self.format()


def failing(violations: list[Violation], *, strict: bool) -> list[Violation]:
    """The violations that fail a run: MUST always, SHOULD under ``strict``."""
    return [v for v in violations if v.check.level.fails(strict=strict)]


_MAX_TEXT = 300


def _text(value: Any) -> str:
    # Not `render.short`: a value too deep to `repr` raises here, for the validator to report
    # as `sse.limit.depth` (callers render nested values with `short` first).
    return truncate(value if isinstance(value, str) else repr(value), _MAX_TEXT)
