"""Fault injection, keyed by request *and attempt*, so a client's retries play out deterministically.

**Syntax** (``--fault`` on the CLI, repeatable; or the ``x-mock-fault`` request header, which
replaces the server's plan for that request; ``x-mock-fault: none`` turns faults off)::

    plan     := fault (";" fault)*
    fault    := kind ["=" arg] [when]
    kind     := a status 400–599 | "error" | "drop" | "slow"
    when     := "@" attempts | "~" probability
    attempts := span ("," span)*      span := N | N-M | N+ | *

=====================  ========================================================================
``429@1,2``            attempts 1 and 2 get HTTP 429 (OpenAI body, ``Retry-After``); 3 succeeds
``500=2@1``            attempt 1 gets HTTP 500 with a 2 s ``Retry-After`` (default 0.001 s)
``503~0.2``            each attempt fails with 503 with probability 0.2, drawn from
                       hash(seed, request, attempt) — the same on every run
``error=5@1``          the engine raises after 5 output tokens: a stream ends with ``error`` +
                       ``response.failed`` (default 3 tokens)
``drop=10``            the connection is cut after 10 SSE events (default 3), with no terminal
                       event and no end of the chunked body; streams only: a non-streamed
                       (JSON) answer is sent whole
``drop=call``          the connection is cut in the middle of the first tool call: right after
                       its first arguments (or custom input) delta; a stream with no call is
                       not cut
``slow=1.5@1``         the response starts 1.5 s late (default 1 s)
=====================  ========================================================================

Without ``@``/``~`` a fault applies to every attempt. An *attempt* is the n-th time this server
sees the same request: same method, path and body bytes (the SDK resends the same body when it
retries). Several faults combine: ``slow`` delays, then the first status fault that applies
answers; otherwise ``error`` and ``drop`` shape the app's answer. ``Retry-After`` carries the
delay rounded up to whole seconds and ``retry-after-ms`` (which the ``openai`` SDK prefers) the
exact delay, so tests retry at once.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "AttemptCounter",
    "AttemptStore",
    "Fault",
    "FaultPlan",
    "FaultSyntaxError",
    "Injection",
    "SharedAttemptCounter",
    "error_body",
]

FaultKind = Literal["status", "error", "drop", "slow"]

_FAULT = re.compile(
    r"^(?P<kind>[1-9]\d\d|error|drop|slow)(?:=(?P<arg>[0-9.]+|call))?"
    r"(?:@(?P<attempts>[0-9,+*\-]+)|~(?P<prob>[0-9.]+))?$"
)
_SPAN = re.compile(r"^(?:(\d+)|(\d+)-(\d+)|(\d+)\+|\*)$")

DEFAULT_RETRY_AFTER = 0.001
DEFAULT_ERROR_AFTER = 3
DEFAULT_DROP_AFTER = 3
DEFAULT_SLOW = 1.0


class FaultSyntaxError(ValueError):
    """A fault plan that does not parse; the message says what and where."""


@dataclass(frozen=True, slots=True)
class Fault:
    kind: FaultKind
    status: int = 0  # for kind "status"
    arg: float | None = None
    spans: tuple[tuple[int, float], ...] = ((1, math.inf),)  # inclusive attempt ranges
    probability: float | None = None
    text: str = ""
    at_call: bool = False  # drop=call: in the middle of the first tool call

    def applies(self, attempt: int, key: bytes) -> bool:
        if self.probability is not None:
            digest = hashlib.sha256(key + f"|{attempt}|{self.text}".encode()).digest()
            return int.from_bytes(digest[:8], "big") / 2**64 < self.probability
        return any(lo <= attempt <= hi for lo, hi in self.spans)


@dataclass(frozen=True, slots=True)
class Injection:
    """What to do to one attempt."""

    slow: float = 0.0
    status: int | None = None
    retry_after: float = DEFAULT_RETRY_AFTER
    error_after: int | None = None
    drop_after: int | None = None
    drop_at_call: bool = False  # cut right after the first call's first arguments delta

    @property
    def active(self) -> bool:
        return bool(self.slow or self.status or self.error_after is not None or self.drop_after)


@dataclass(frozen=True, slots=True)
class FaultPlan:
    faults: tuple[Fault, ...] = ()

    @classmethod
    def parse(cls, text: str) -> FaultPlan:
        text = text.strip()
        if text.lower() in ("", "none"):
            return cls()
        return cls(tuple(_parse_fault(part.strip()) for part in text.split(";") if part.strip()))

    @classmethod
    def combine(cls, texts: Sequence[str]) -> FaultPlan:
        return cls(tuple(f for t in texts for f in cls.parse(t).faults))

    def injection(self, attempt: int, key: bytes) -> Injection:
        """The faults for the ``attempt``-th sight of the request ``key`` (seeded bytes)."""
        slow = 0.0
        status: Fault | None = None
        error_after = drop_after = None
        at_call = False
        for fault in self.faults:
            if not fault.applies(attempt, key):
                continue
            if fault.kind == "slow":
                slow += DEFAULT_SLOW if fault.arg is None else fault.arg
            elif fault.kind == "status" and status is None:
                status = fault
            elif fault.kind == "error" and error_after is None:
                error_after = DEFAULT_ERROR_AFTER if fault.arg is None else int(fault.arg)
            elif fault.kind == "drop" and drop_after is None:
                drop_after = DEFAULT_DROP_AFTER if fault.arg is None else int(fault.arg)
                at_call = fault.at_call
        if status is not None:
            delay = DEFAULT_RETRY_AFTER if status.arg is None else status.arg
            return Injection(slow, status.status, delay)
        return Injection(slow, None, DEFAULT_RETRY_AFTER, error_after, drop_after, at_call)


def _parse_fault(text: str) -> Fault:
    match = _FAULT.match(text)
    if match is None:
        raise FaultSyntaxError(
            f"bad fault {text!r}: expected KIND[=ARG][@ATTEMPTS|~PROBABILITY], KIND a status "
            "400-599, error, drop or slow (e.g. '429@1,2', 'error=5@1', 'drop=10', '500~0.1')"
        )
    kind_text, arg_text = match["kind"], match["arg"]
    at_call = arg_text == "call"
    if at_call and kind_text != "drop":
        raise FaultSyntaxError(f"only drop takes =call, in {text!r}")
    if at_call:
        arg_text = None
    try:
        arg = float(arg_text) if arg_text is not None else None
    except ValueError:
        raise FaultSyntaxError(f"bad argument in fault {text!r}") from None
    kind: FaultKind
    status = 0
    if kind_text.isdigit():
        status = int(kind_text)
        if not 400 <= status <= 599:
            raise FaultSyntaxError(f"fault status must be 400-599, got {status} in {text!r}")
        kind = "status"
    else:
        kind = "error" if kind_text == "error" else "drop" if kind_text == "drop" else "slow"
    probability = None
    spans: tuple[tuple[int, float], ...] = ((1, math.inf),)
    if match["prob"] is not None:
        try:
            probability = float(match["prob"])
        except ValueError:
            raise FaultSyntaxError(f"bad probability in fault {text!r}") from None
        if not 0 <= probability <= 1:
            raise FaultSyntaxError(f"probability must be 0-1 in fault {text!r}")
    elif match["attempts"] is not None:
        spans = tuple(_parse_span(s, text) for s in match["attempts"].split(","))
    return Fault(kind, status, arg, spans, probability, text, at_call)


def _parse_span(span: str, text: str) -> tuple[int, float]:
    m = _SPAN.match(span)
    if m is None:
        raise FaultSyntaxError(
            f"bad attempts {span!r} in fault {text!r} (use 1,2 or 1-3 or 2+ or *)"
        )
    bounds: tuple[int, float]
    if m[1]:
        bounds = int(m[1]), int(m[1])
    elif m[2]:
        bounds = int(m[2]), int(m[3])
    elif m[4]:
        bounds = int(m[4]), math.inf
    else:
        return 1, math.inf
    if bounds[0] < 1 or bounds[1] < bounds[0]:  # it would never fire: say so, inject nothing
        raise FaultSyntaxError(
            f"bad attempts {span!r} in fault {text!r}: attempts count from 1, and a range "
            "N-M needs N <= M"
        )
    return bounds


class AttemptCounter:
    """How many times each request fingerprint has been seen (bounded: oldest forgotten)."""

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._seen: OrderedDict[bytes, int] = OrderedDict()

    def next(self, fingerprint: bytes) -> int:
        count = self._seen.pop(fingerprint, 0) + 1
        self._seen[fingerprint] = count
        if len(self._seen) > self.capacity:
            self._seen.popitem(last=False)
        return count

    def reset(self) -> None:
        self._seen.clear()


class AttemptStore(Protocol):
    """A store several processes share that counts attempts (SQLite, Redis)."""

    def next_attempt(self, fingerprint: bytes) -> int: ...

    def reset_attempts(self) -> None: ...


class SharedAttemptCounter(AttemptCounter):
    """:class:`AttemptCounter`'s interface over a shared store (``responses-mock --workers N``):
    every worker counts in the same place, so ``429@1`` fails the first attempt of a request
    whichever worker it reaches, and its retry succeeds on any. Bounded as the store bounds it
    (100,000 fingerprints, the least recently seen forgotten)."""

    def __init__(self, store: AttemptStore) -> None:
        super().__init__(capacity=0)  # nothing counted in this process
        self.store = store

    def next(self, fingerprint: bytes) -> int:
        return self.store.next_attempt(fingerprint)

    def reset(self) -> None:
        self.store.reset_attempts()


# OpenAI's error types and codes per status (SPEC §4 Errors: code is a string, never the number).
_ERRORS: dict[int, tuple[str, str, str]] = {
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests."),
    500: ("server_error", "server_error", "The server had an error while processing your request."),
    502: ("server_error", "bad_gateway", "Bad gateway."),
    503: ("server_error", "service_unavailable", "The server is overloaded or not ready yet."),
    504: ("server_error", "gateway_timeout", "Gateway timeout."),
}


def error_body(status: int, attempt: int, retry_after: float) -> dict[str, object]:
    kind, code, message = _ERRORS.get(
        status,
        ("server_error", "server_error", "The server had an error.")
        if status >= 500
        else ("invalid_request_error", "mock_fault", "The request was refused."),
    )
    if status == 429:
        message = f"Rate limit reached for requests. Please try again in {retry_after:g}s."
    message += f" (mock fault: HTTP {status} on attempt {attempt})"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
