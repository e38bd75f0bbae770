"""What the proxy has seen: every exchange's verdict, folded into the suite's results by request
kind, a console line per exchange, and the same reports as ``run`` (index.json, JUnit, HTML).

Each request kind (``proxy/responses.create.stream``, ``proxy/responses.cancel``, …) is one
:class:`~conformance.suite.results.CaseResult` of one :class:`~conformance.suite.results.TargetResult`
(the upstream), so :func:`~conformance.suite.reporting.build_index` and every report render as for
a run. A long session stays bounded: each (kind, check) keeps the evidence of its first
:data:`KEPT_FINDINGS` violations and only counts the rest (the index's ``violations`` and
``evidence_omitted`` include them), and the index's ``proxy.exchanges`` holds the latest
:data:`KEPT_EXCHANGES` per-exchange verdicts. Secrets — the API keys and cookies the proxy
forwards — are added to the :class:`~cassettes.redaction.Redactor` as they are seen, so that
nothing it prints or writes shows them.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from pathlib import Path
from typing import Any, TextIO

from cassettes.redaction import Redactor

from ..catalog.registry import REGISTRY
from ..suite.console import Console
from ..suite.probe import evidence_for
from ..suite.reporting import build_index, write_reports
from ..suite.results import CaseResult, Finding, TargetResult
from ..suite.targets import Target
from .judge import Verdict

__all__ = ["KEPT_EXCHANGES", "KEPT_FINDINGS", "Ledger"]

KEPT_FINDINGS = 200
KEPT_EXCHANGES = 10_000


class Ledger:
    def __init__(
        self,
        target: Target,
        *,
        strict: bool,
        out: TextIO,
        redactor: Redactor | None = None,
        quiet: bool = False,
    ) -> None:
        self.target = target
        self.strict = strict
        self.redactor = redactor or Redactor()
        self.console = Console(out, self.redactor)
        self.quiet = quiet
        self.started = time.monotonic()
        self.exchanges = 0
        self.failed = 0
        self.not_judged = 0  # answers that were no verdict (authentication refused, …)
        self.first_not_judged = ""
        self._cases: dict[str, CaseResult] = {}
        self._kept: Counter[tuple[str, str]] = Counter()
        self._dropped: Counter[str] = Counter()  # check ID -> violations counted, not kept
        self._recent: deque[dict[str, Any]] = deque(maxlen=KEPT_EXCHANGES)

    def record(self, verdict: Verdict) -> None:
        """Fold one exchange in and print its line."""
        self.exchanges += 1
        info, ex = verdict.info, verdict.exchange
        failing = verdict.failing(strict=self.strict)
        if verdict.judged:
            case = self._cases.get(info.group)
            if case is None:
                case = self._cases[info.group] = CaseResult(info.group, ("core",), ())
                case.attempts = 0
            case.attempts += 1
            case.duration += ex.elapsed
            case.exercised |= verdict.exercised
            for v in verdict.violations:
                key = (info.group, v.check_id)
                if self._kept[key] < KEPT_FINDINGS:
                    self._kept[key] += 1
                    evidence = verdict.evidence or evidence_for(ex, v)
                    case.findings.append(Finding(v, info.group, self.exchanges, evidence))
                else:
                    self._dropped[v.check_id] += 1
            for check_id, count in verdict.omitted.items():  # a long session's, counted only
                self._dropped[check_id] += count
            if failing:
                case.outcome = "failed"
                self.failed += 1
        label = "----" if not verdict.judged else ("FAIL" if failing else "PASS")
        status = ex.status if ex.status is not None else "---"
        events = f"{verdict.events} events" if ex.stream or verdict.events else "body"
        if verdict.session_events is not None:
            events = f"{verdict.events} events over a WebSocket"
        line = f"{label}  #{self.exchanges} {info.method} /v1{info.shown} {status} {events}"
        if ex.error:
            line += f"  ({ex.error})"
        if verdict.not_judged:
            self.not_judged += 1
            self.first_not_judged = self.first_not_judged or verdict.not_judged
            line += f"  (could not judge: {verdict.not_judged})"
        elif not verdict.judged:
            line += "  (not judged)"
        elif failing:
            first = failing[0]
            more = f" (+{len(failing) - 1} more)" if len(failing) > 1 else ""
            line += f"  {first.check_id}: {_short(first.format())}{more}"
        self._recent.append(
            {
                "n": self.exchanges,
                "kind": info.group,
                "method": info.method,
                "path": info.shown,
                "status": ex.status,
                "events": verdict.events,
                "judged": verdict.judged,
                "not_judged": verdict.not_judged,
                "passed": not failing,
                "violations": sorted({v.check_id for v in verdict.violations}),
                "error": ex.error,
                "elapsed_s": round(ex.elapsed, 4),
            }
        )
        if not self.quiet:
            self.console.line(line)

    def result(self) -> TargetResult:
        result = TargetResult(self.target, self.strict)
        result.cases = list(self._cases.values())
        result.duration = time.monotonic() - self.started
        return result

    def index(self) -> dict[str, Any]:
        index = build_index([self.result()], strict=self.strict)
        entry = index["targets"][self.target.name]
        for check_id, extra in self._dropped.items():
            for cid in {check_id, REGISTRY[check_id].parent} - {None}:
                row = entry["checks"].get(str(cid))
                if row is not None:
                    row["violations"] += extra
                    row["evidence_omitted"] += extra
        index["proxy"] = {
            "upstream": self.target.shown_url(),
            "exchanges": self.exchanges,
            "failed_exchanges": self.failed,
            "not_judged_exchanges": self.not_judged,
            "recent": list(self._recent),
            "recent_omitted": max(0, self.exchanges - len(self._recent)),
        }
        return index

    def write(self, report_dir: str | Path) -> list[Path]:
        return write_reports(self.index(), report_dir, self.redactor)

    def summary(self) -> None:
        result = self.result()
        self.console.summary(result, result.outcomes())
        if self.not_judged:
            self.console.line(self.not_judged_line())

    def not_judged_line(self) -> str:
        return (
            f"-- could not judge {self.not_judged} of {self.exchanges} exchange(s): "
            f"{self.first_not_judged}"
        )

    def exit_code(self) -> int:
        """2 when an answer was no verdict (an upstream refusing the key, an HTML page: the
        session did not judge what it forwarded), else 1 when any exchange failed (or a check
        did), else 0."""
        if self.not_judged:
            return 2
        return 1 if self.failed or self.result().failed() else 0


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
