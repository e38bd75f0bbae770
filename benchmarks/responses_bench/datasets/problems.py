"""What a workload file did wrong, said once: the first bad line by ``file:line`` and how many more
(raised as :class:`~benchmarks.responses_bench.errors.WorkloadError`)."""

from __future__ import annotations

from typing import Any

from ..errors import WorkloadError

__all__ = ["Problems", "kind"]


class Problems:
    """Bad lines of one file: the first kept in full, the others counted (bounded memory)."""

    def __init__(self) -> None:
        self.first: str | None = None
        self.count = 0

    def add(self, where: str, problem: str) -> None:
        if self.first is None:
            self.first = f"{where}: {problem}"
        self.count += 1

    def raise_if_any(self) -> None:
        if self.first is None:
            return
        more = f" (and {self.count - 1} more bad line(s))" if self.count > 1 else ""
        raise WorkloadError(self.first + more)


def kind(value: Any) -> str:
    """A JSON value's kind, as a message names it."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")
