"""One body, by its kind, to its rules: the one place a parsed JSON body's kind — a Response, an
error body, or a state object — picks the function that judges it. The offline ``check`` (and so
cassettes), the live suite, the proxy and the examples all call :func:`judge_body`.

- :func:`body_kind` — the kind of a successful answer's body: ``response`` for a Response object
  (not the ``{id, object: "response", deleted}`` of a DELETE), a state kind for a compaction
  result, conversation, deleted conversation or item list, ``None`` for anything else. An error
  body is told by its HTTP status, or by its shape offline (:mod:`conformance.offline.recorded`);
- :func:`judge_body` — the violations of one body of a known kind (``"state"``: a state body
  whose kind its ``object`` names).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ..catalog.registry import Violation
from .objects import validate_error_body, validate_response_body
from .state import StateKind, state_kind, validate_state_body

__all__ = ["BodyKind", "body_kind", "judge_body", "validate_body"]

BodyKind = Literal["response", "error"] | StateKind


def body_kind(body: Any) -> Literal["response"] | StateKind | None:
    """The kind of a 2xx answer's JSON body (None: not one the judge has rules for)."""
    if not isinstance(body, dict):
        return None
    if body.get("object") == "response":
        return None if "deleted" in body else "response"
    return state_kind(body)


def judge_body(
    body: Mapping[str, Any],
    kind: BodyKind | Literal["state"],
    *,
    profiles: Iterable[str] = ("core",),
    max_output_tokens: int | None = None,
    applied: set[str] | None = None,
) -> list[Violation]:
    """Every violation of ``body``, judged as a ``kind`` body (``profiles`` and
    ``max_output_tokens`` matter to a Response only); the rules that mark what they evaluated
    (conformance.sections) mark it in ``applied``, when given."""
    if kind == "response":
        return validate_response_body(
            body, profiles=profiles, max_output_tokens=max_output_tokens, applied=applied
        )
    if kind == "error":
        return validate_error_body(body, applied=applied)
    return validate_state_body(body, None if kind == "state" else kind, applied=applied)


# The name `judge_body` had before (for callers not yet moved to it).
validate_body = judge_body
