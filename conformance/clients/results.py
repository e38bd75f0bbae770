"""What a harness run found: per client, per flow, the client's verdict with its evidence.

A flow's ``outcome`` is ``pass`` or ``fail``; a client that could not be installed or started is
``unavailable`` (its flows did not run: no verdict on the server). Each client also has a
``profile`` slot: the verdict of the ``client:X`` profile of the suite on the same target, to be
set beside the harness's own (``None`` until a run fills it), so that a report shows where the
two disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..exit_codes import EXIT_BROKEN, EXIT_OK, EXIT_VIOLATIONS
from ..suite.targets import Target

__all__ = ["ClientResult", "FlowResult", "HarnessResult"]


@dataclass(slots=True)
class FlowResult:
    client: str
    flow: str
    description: str
    budget: int
    deadline: float
    outcome: str = "fail"  # pass | fail
    reason: str | None = None
    requests: int = 0
    duration: float = 0.0
    evidence: dict[str, Any] = field(default_factory=dict)
    protocol: dict[str, int] = field(default_factory=dict)  # the relay's own verdicts

    def as_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "outcome": self.outcome,
            "description": self.description,
            "requests": self.requests,
            "budget": self.budget,
            "deadline_s": self.deadline,
            "duration_s": round(self.duration, 3),
            "protocol": self.protocol,
        }
        if self.reason:
            doc["reason"] = self.reason
            doc["evidence"] = self.evidence
        return doc


@dataclass(slots=True)
class ClientResult:
    name: str
    title: str
    status: str = "ran"  # ran | unavailable
    reason: str | None = None
    version: str = ""
    source: str = ""
    flows: list[FlowResult] = field(default_factory=list)
    profile: str | None = None  # the client:X profile's verdict on the same target, when run

    @property
    def verdict(self) -> str:
        if self.status != "ran":
            return self.status
        return "fail" if any(f.outcome != "pass" for f in self.flows) else "pass"

    def as_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "status": self.status,
            "reason": self.reason,
            "version": self.version,
            "source": self.source,
            "harness": self.verdict,
            "profile": self.profile,
            "flows": {f.flow: f.as_dict() for f in self.flows},
        }


@dataclass(slots=True)
class HarnessResult:
    target: Target
    status: str = "ran"  # ran | not_judged | broken
    reason: str | None = None
    duration: float = 0.0
    clients: list[ClientResult] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        flows = [f for c in self.clients for f in c.flows]
        return {
            "clients": len(self.clients),
            "flows": len(flows),
            "passed": sum(f.outcome == "pass" for f in flows),
            "failed": sum(f.outcome != "pass" for f in flows),
            "unavailable": sum(c.status != "ran" for c in self.clients),
        }

    def exit_code(self) -> int:
        """2 when the target could not be judged or a client could not be had, else 1 when a
        flow failed, else 0."""
        if self.status != "ran" or any(c.status != "ran" for c in self.clients):
            return EXIT_BROKEN
        if any(f.outcome != "pass" for c in self.clients for f in c.flows):
            return EXIT_VIOLATIONS
        return EXIT_OK
