"""§2.3 One response (docs/spec.md#s2-3): ``stream.response.id_stable``,
``stream.response.created_at_stable``.

Every lifecycle event carries the same ``response.id`` (the [SDK] raises "Lifecycle response
identity changed") and the same ``created_at`` ([REC]). (The interim state the section also
states, ``stream.response.interim_state``, is still judged in conformance/validator/lifecycle.py.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "RESPONSE_CREATED_AT_STABLE",
    "RESPONSE_ID_STABLE",
    "IdentityState",
    "declare_examples",
    "judge_identity",
]

RESPONSE_ID_STABLE = register(
    "stream.response.id_stable",
    Level.MUST,
    "§2.3 [SDK]",
    "every lifecycle event carries the same `response.id`",
)
RESPONSE_CREATED_AT_STABLE = register(
    "stream.response.created_at_stable",
    Level.MUST,
    "§2.3 [REC]",
    "every lifecycle event carries the same `response.created_at`",
)
_IDS = (RESPONSE_ID_STABLE.id, RESPONSE_CREATED_AT_STABLE.id)


class IdentityState(Protocol):
    """What the rule reads and writes of the stream validator."""

    response_id: Any
    _created_at: Any

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def judge_identity(state: IdentityState, response: Mapping[str, Any], index: int) -> None:
    """A lifecycle or terminal event's ``response`` against the first one's id and creation time
    (the first one, with an id, sets them)."""
    rid = response.get("id")
    created_at = response.get("created_at")
    if state.response_id is None:
        state.response_id = rid
        state._created_at = created_at
        return
    coverage = state.coverage
    if coverage is not None:
        coverage.applied.update(_IDS)
    if rid != state.response_id:
        state._report(RESPONSE_ID_STABLE, index, state.response_id, rid, path="response.id")
    if created_at != state._created_at:
        state._report(
            RESPONSE_CREATED_AT_STABLE,
            index,
            state._created_at,
            created_at,
            path="response.created_at",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import at, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        RESPONSE_ID_STABLE.id,
        S(lambda: at(text_stream(), "response.completed", "response.id", "resp_other")),
        S(text_stream),
    )
    example(
        RESPONSE_CREATED_AT_STABLE.id,
        S(lambda: at(text_stream(), "response.completed", "response.created_at", 1770803607)),
        S(text_stream),
    )
