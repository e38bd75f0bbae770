"""What a run found: per case, then folded per check ID (the verdict the reports show).

A case leaves a :class:`CaseResult`: the checks it evaluated (``exercised``) and every violation
it saw (:class:`Finding`, with evidence: the request, the violating events, expected, actual).
:meth:`TargetResult.outcomes` folds those into one :class:`CheckOutcome` per check of the
registry:

=========  ===================================================================================
=================  ===========================================================================
``pass``           evaluated by at least one case on something it applies to, never violated
``fail``           violated, and the level fails the run (MUST; SHOULD too under ``--strict``)
``warn``           a SHOULD violated without ``--strict``
``info``           an INFO check reported something (never fails)
``not_exercised``  the profile is declared, but nothing in the run gave the rule work: its
                   cases were skipped or ended early, or no answer held what it judges (a run
                   without annotations cannot pass the annotation rule); it never fails the
                   run, and an expected failure that was not exercised stays ``not_exercised``
``skip``           not evaluated: the target does not declare the check's profile (or it did
                   not run)
``xfail``          violated, and listed in the target's expected failures
``xpass``          listed in the target's expected failures but evaluated without a violation:
                   fails the run so that expected-failure lists cannot rot (``xfail_strict``)
=================  ===========================================================================
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..catalog.registry import REGISTRY, Check, Level, Violation, refinements
from .targets import Target

__all__ = [
    "CASE_OUTCOMES",
    "EXERCISED",
    "FAILING",
    "NOT_JUDGED",
    "OUTCOMES",
    "CaseResult",
    "CheckOutcome",
    "Finding",
    "TargetResult",
]

OUTCOMES = ("fail", "xpass", "warn", "xfail", "info", "pass", "not_exercised", "skip")
EXERCISED = frozenset({"fail", "xpass", "warn", "xfail", "info", "pass"})
FAILING = frozenset({"fail", "xpass"})
CASE_OUTCOMES = ("passed", "failed", "skipped")  # a case's own outcome (CaseResult.outcome)
NOT_JUDGED = "not_judged"  # a target status: its answers were refusals, not verdicts
MAX_EVIDENCE = 5  # findings kept per check and target; the count of the rest is reported
MAX_KINDS = 25  # distinct kinds of violation listed per check and target
_INDEX = re.compile(r"\[\d+\]")


@dataclass(slots=True)
class Finding:
    """One violation seen by one case, with the evidence that shows it."""

    violation: Violation
    case: str
    attempt: int
    evidence: dict[str, Any]

    @property
    def check_id(self) -> str:
        return self.violation.check_id

    def as_dict(self) -> dict[str, Any]:
        v = self.violation
        return {
            "case": self.case,
            "attempt": self.attempt,
            "expected": v.expected,
            "actual": v.actual,
            "message": v.message,
            "event_index": v.event_index,
            "path": v.path,
            **self.evidence,
        }


@dataclass(slots=True)
class CaseResult:
    id: str  # "module/case", e.g. "core/create_string_input"
    profiles: tuple[str, ...]
    checks: tuple[str, ...]  # the check IDs the case is tagged with
    outcome: str = "passed"  # one of CASE_OUTCOMES
    skip_reason: str = ""
    duration: float = 0.0
    attempts: int = 1
    retried: list[str] = field(default_factory=list)  # why earlier attempts were retried
    # every attempt of every run: {run, attempt, result, reason?, violations}; a retried
    # attempt's violations stay findings (a retry is for the model's content, never the protocol)
    attempt_log: list[dict[str, Any]] = field(default_factory=list)
    passed_attempt: int | None = None  # the attempt that passed (the first run's, with --repeat)
    not_judged: str = ""  # an answer that was no verdict (authentication refused, …): why
    findings: list[Finding] = field(default_factory=list)
    exercised: set[str] = field(default_factory=set)
    error: str = ""  # an unexpected exception, summarized

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "outcome": self.outcome,
            "profiles": list(self.profiles),
            "checks": list(self.checks),
            "skip_reason": self.skip_reason,
            "duration_s": round(self.duration, 3),
            "attempts": self.attempts,
            "retried": list(self.retried),
            "violations": sorted({f.check_id for f in self.findings}),
            "error": self.error,
            "passed_attempt": self.passed_attempt,
            "runs": max((a["run"] for a in self.attempt_log), default=0),
            "attempt_log": [dict(a) for a in self.attempt_log],
            "not_judged": self.not_judged,
        }


@dataclass(slots=True)
class CheckOutcome:
    check: Check
    outcome: str
    violations: int = 0
    cases: list[str] = field(default_factory=list)  # cases that evaluated it
    evidence: list[Finding] = field(default_factory=list)
    reason: str = ""
    # every distinct kind of violation (where, what was expected), with its count: what a reader
    # auditing a verdict needs when the evidence shown is only the first few findings
    kinds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failing(self) -> bool:
        return self.outcome in FAILING

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "level": self.check.level.value,
            "failing": self.failing,
            "violations": self.violations,
            "cases": list(self.cases),
            "reason": self.reason,
            "evidence": [f.as_dict() for f in self.evidence],
            "evidence_omitted": max(0, self.violations - len(self.evidence)),
            "kinds": self.kinds,
        }


@dataclass(slots=True)
class TargetResult:
    target: Target
    strict: bool
    status: str = "ran"  # ran | unreachable | not_judged | broken
    reason: str = ""
    cases: list[CaseResult] = field(default_factory=list)
    duration: float = 0.0

    def outcomes(self) -> dict[str, CheckOutcome]:
        """One outcome per check of the registry, by ID (sorted)."""
        findings: dict[str, list[Finding]] = {}
        for case in self.cases:
            for finding in case.findings:
                findings.setdefault(finding.check_id, []).append(finding)
        # A refined check's findings are its parent's too (the published ID keeps its verdict).
        for check_id in list(findings):
            parent = REGISTRY[check_id].parent if check_id in REGISTRY else None
            if parent is not None:
                findings.setdefault(parent, []).extend(findings[check_id])
        return {
            check_id: self._outcome(REGISTRY[check_id], findings.get(check_id, []))
            for check_id in sorted(REGISTRY)
        }

    def _outcome(self, check: Check, found: list[Finding]) -> CheckOutcome:
        family = {check.id, *refinements(check.id)}
        cases = [c.id for c in self.cases if family & c.exercised]
        evidence, kinds = _distinct(found)
        out = CheckOutcome(check, "pass", len(found), cases, evidence, kinds=kinds)
        if found:
            if check.level.fails(strict=self.strict):
                out.outcome = "fail"
            else:
                out.outcome = "warn" if check.level is Level.SHOULD else "info"
        elif not cases:
            out.reason = self._skip_reason(check)
            declared = self.status == "ran" and check.profile in self.target.profiles
            out.outcome = "not_exercised" if declared else "skip"
        why = self.target.expected_failures.get(check.id)
        inherited = why is None and check.parent is not None
        if inherited:
            # an entry naming the parent covers its refinements' failures; a refinement that
            # passed is no XPASS (the parent's own outcome says whether the entry still holds)
            why = self.target.expected_failures.get(str(check.parent))
        if why is not None:
            if out.outcome in ("fail", "warn"):
                out.outcome = "xfail"
                out.reason = why or "listed in the target's expected failures"
            elif out.outcome == "pass" and not inherited:
                out.outcome = "xpass"
                out.reason = (
                    "listed in the target's expected failures, but passed: remove it from the list"
                )
        return out

    def _skip_reason(self, check: Check) -> str:
        if self.status != "ran":
            return f"target {self.status}"
        if check.profile not in self.target.profiles:
            return f"profile `{check.profile}` not declared by the target"
        tagged = [c for c in self.cases if check.id in c.checks]
        ran = [c.id for c in tagged if c.outcome != "skipped"]
        if ran:
            # A case that ran says more than one skipped for another reason (a profile, say).
            return (
                f"{', '.join(ran)} ran without evaluating it: ended before it (see its other "
                "findings), or the responses gave it nothing to judge"
            )
        reasons = [f"{c.id}: {c.skip_reason}" for c in tagged if c.outcome == "skipped"]
        if reasons:
            return reasons[0]
        return "not exercised by any case"

    def summary(self, outcomes: dict[str, CheckOutcome] | None = None) -> dict[str, int]:
        """Checks per outcome, and ``exercised``: how many were evaluated at all."""
        counts = Counter(o.outcome for o in (outcomes or self.outcomes()).values())
        out = {name: counts.get(name, 0) for name in OUTCOMES}
        out["exercised"] = sum(counts.get(name, 0) for name in EXERCISED)
        return out

    def failed(self, outcomes: dict[str, CheckOutcome] | None = None) -> bool:
        return any(o.failing for o in (outcomes or self.outcomes()).values())

    def not_judged_cases(self) -> list[CaseResult]:
        """Cases that met an answer that was no verdict (authentication refused mid-run, an
        HTML page): the run is incomplete, whatever else it found."""
        return [c for c in self.cases if c.not_judged]

    def exit_code(self) -> int:
        if self.status != "ran" or self.not_judged_cases():
            return 2
        return 1 if self.failed() else 0


def _kind(finding: Finding) -> tuple[str, str, str]:
    """Where and what: the path (indices elided) and the expectation — and for a violation
    without a path (a live check's), what came instead, so that a 500 and a 200 to the same
    "a 4xx error" are two kinds."""
    v = finding.violation
    path = _INDEX.sub("[]", v.path or "")
    return path, str(v.expected)[:200], "" if path else str(v.actual)[:200]


def _distinct(found: list[Finding]) -> tuple[list[Finding], list[dict[str, Any]]]:
    """The evidence to keep — the first finding of each distinct kind first, then the next ones
    in order, :data:`MAX_EVIDENCE` in all — and the kinds: path (indices elided), expected, how
    many, one actual value and the cases that showed it."""
    kinds: dict[tuple[str, str, str], dict[str, Any]] = {}
    firsts: list[Finding] = []
    for f in found:
        key = _kind(f)
        entry = kinds.get(key)
        if entry is None:
            firsts.append(f)
            entry = kinds[key] = {
                "path": key[0], "expected": key[1], "actual": str(f.violation.actual)[:200],
                "count": 0, "cases": [],
            }  # fmt: skip
        entry["count"] += 1
        if f.case not in entry["cases"] and len(entry["cases"]) < 5:
            entry["cases"].append(f.case)
    chosen = firsts[:MAX_EVIDENCE]
    rest = [f for f in found if not any(f is c for c in chosen)]
    chosen += rest[: MAX_EVIDENCE - len(chosen)]
    order = {id(f): i for i, f in enumerate(found)}
    chosen.sort(key=lambda f: order[id(f)])
    return chosen, list(kinds.values())[:MAX_KINDS]
