"""The registry of examples: :class:`Sample`, :class:`Example`, and :data:`EXAMPLES` filled by
:func:`example` as each module of the package is imported. The modules import this one, never
the package (whose ``__init__`` imports them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["EXAMPLES", "Example", "Kind", "Sample", "example"]

Kind = Literal["stream", "sse", "response", "error", "state", "live", "session", "http"]


@dataclass(frozen=True, slots=True)
class Sample:
    kind: Kind
    build: Callable[[], Any]  # a fresh input on every call (examples edit what they build)
    note: str = ""
    profiles: tuple[str, ...] = ("core",)
    resume_after: int | None = None
    max_output_tokens: int | None = None
    max_event_bytes: int | None = None  # the SSE decoder's limits (sse samples), when not default
    max_events: int | None = None
    # the request the answer was given to: the rules that judge an answer against its request
    # (a custom tool's grammar) apply, as in the suite, the proxy and cassettes
    request: Any = None


@dataclass(frozen=True, slots=True)
class Example:
    check_id: str
    failing: Sample
    passing: Sample
    also: frozenset[str] = field(default_factory=frozenset)


EXAMPLES: dict[str, Example] = {}


def example(check_id: str, failing: Sample, passing: Sample, also: Iterable[str] = ()) -> None:
    if check_id in EXAMPLES:
        raise ValueError(f"two examples for {check_id!r}")
    EXAMPLES[check_id] = Example(check_id, failing, passing, frozenset(also))
