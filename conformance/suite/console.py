"""Console output of a run: progress per case, then a summary per check ID.

Everything printed goes through :class:`Console`, which redacts the run's secrets (API keys) the
same way the report files are redacted.
"""

from __future__ import annotations

from typing import TextIO

from cassettes.redaction import Redactor

from .results import CaseResult, CheckOutcome, Finding, TargetResult
from .targets import Target

__all__ = ["Console"]

_LABEL = {
    "pass": "pass", "fail": "FAIL", "warn": "warn", "info": "info", "skip": "skip",
    "not_exercised": "n/ex", "xfail": "xfail", "xpass": "XPASS",
}  # fmt: skip


class Console:
    def __init__(self, out: TextIO, redactor: Redactor, *, verbose: bool = False) -> None:
        self.out = out
        self.redactor = redactor
        self.verbose = verbose
        self._hidden = 0  # cases not shown: their profile is not declared (shown with -v)

    def line(self, text: str = "") -> None:
        self.out.write(self.redactor.text(text) + "\n")
        self.out.flush()

    def target_start(self, target: Target) -> None:
        self.line(
            f"== {target.name}: {target.shown_url()}  model {target.model}  "
            f"profiles {', '.join(target.profiles)}"
        )

    def case(self, record: CaseResult, *, failing: list[Finding]) -> None:
        undeclared = "not declared by the target" in record.skip_reason
        if record.outcome == "skipped" and undeclared and not self.verbose:
            self._hidden += 1
            return
        label = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP"}[record.outcome]
        text = f"  {label}  {record.id:<48} {record.duration:6.2f}s"
        if record.retried:
            text += f"  (retried {len(record.retried)}x: {record.retried[-1]})"
        runs = max((a["run"] for a in record.attempt_log), default=1)
        if runs > 1:
            bad = len({a["run"] for a in record.attempt_log if a["result"] == "failed"
                       or a["result"] == "aborted"})  # fmt: skip
            text += f"  ({runs} runs, {bad} failed)"
        if failing:
            text += "  " + ", ".join(sorted({f.check_id for f in failing}))
            first = failing[0].violation
            text += f"\n        {first.check_id}: {_short(first.actual)}"
        elif record.outcome == "skipped":
            text += f"  {record.skip_reason}"
        if record.error and record.outcome == "failed":
            text += f"\n        {record.error}"
        self.line(text)

    def summary(self, result: TargetResult, outcomes: dict[str, CheckOutcome]) -> None:
        """The per-check summary: every check evaluated or failing (all with --verbose)."""
        if self._hidden:
            self.line(f"  ({self._hidden} cases of undeclared profiles not run; -v lists them)")
            self._hidden = 0
        self.line(f"-- {result.target.name}: checks")
        quiet = ("skip", "not_exercised")
        shown = [o for o in outcomes.values() if self.verbose or o.outcome not in quiet]
        width = max((len(o.check.id) for o in shown), default=10)
        for o in shown:
            extra = f"  {o.violations} violation(s)" if o.violations else ""
            if o.reason and o.outcome in ("skip", "not_exercised", "xfail", "xpass"):
                extra += f"  {o.reason}"
            row = (
                f"  {_LABEL[o.outcome]:<5}  {o.check.level.value:<6}  {o.check.id:<{width}}{extra}"
            )
            self.line(row.rstrip())
            if o.outcome in ("fail", "warn") and o.evidence:
                first = o.evidence[0]
                v = first.violation
                self.line(f"           expected: {v.expected}")
                self.line(f"           actual:   {v.actual}   ({first.case})")
        counts = result.summary(outcomes)
        exercised = counts.pop("exercised")
        failed = counts["fail"] + counts["xpass"] + counts["warn"] + counts["xfail"]
        self.line(
            f"-- {result.target.name}: {exercised} checks exercised ({counts['pass']} passed, "
            f"{failed} failed or warned, {counts['info']} info), "
            f"{counts['not_exercised']} not exercised, {counts['skip']} skipped"
            + ("" if self.verbose else " (-v lists the checks not exercised)")
        )
        parts = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in counts.items() if n)
        verdict = "FAILED" if result.failed(outcomes) else "passed"
        unjudged = result.not_judged_cases()
        if unjudged:  # exit 2: the run is incomplete, whatever it found
            verdict = f"COULD NOT JUDGE {len(unjudged)} case(s): {unjudged[0].not_judged}; " + (
                "FAILED" if result.failed(outcomes) else "the rest passed"
            )
        self.line(
            f"-- {result.target.name}: {verdict} ({parts}; {len(result.cases)} cases, "
            f"{result.duration:.1f}s)"
        )


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
