"""Open-loop progress counters of one load process, as the master and the report read them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Progress:
    """Open-loop counters of one process (cumulative; the master keeps the latest per worker)."""

    scheduled: int = 0
    started: int = 0
    skipped: int = 0  # arrivals dropped because --max-in-flight requests were already running
    late: int = 0  # sent more than --late-after after their scheduled time
    completed: int = 0
    schedule_done: bool = False
    started_by_step: Counter[int] = field(default_factory=Counter)

    @property
    def in_flight(self) -> int:
        return self.started - self.completed

    def to_wire(self) -> dict[str, Any]:
        return {
            "scheduled": self.scheduled,
            "started": self.started,
            "skipped": self.skipped,
            "late": self.late,
            "completed": self.completed,
            "schedule_done": self.schedule_done,
            "started_by_step": [[k, v] for k, v in self.started_by_step.items()],
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Progress:
        return cls(
            int(data["scheduled"]),
            int(data["started"]),
            int(data["skipped"]),
            int(data["late"]),
            int(data["completed"]),
            bool(data["schedule_done"]),
            Counter({int(k): int(v) for k, v in data["started_by_step"]}),
        )
