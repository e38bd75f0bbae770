"""§2.3 One response (docs/spec.md#s2-3): ``stream.response.id_stable``,
``stream.response.created_at_stable``, ``stream.response.interim_state``.

Every lifecycle event carries the same ``response.id`` (the [SDK] raises "Lifecycle response
identity changed") and the same ``created_at`` ([REC]). Until the terminal event the response is
``in_progress`` (or ``queued``) with ``output: []`` and ``usage: null`` ([REC]).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from ..catalog.render import short
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "RESPONSE_CREATED_AT_STABLE",
    "RESPONSE_ID_STABLE",
    "RESPONSE_INTERIM_STATE",
    "IdentityState",
    "declare_examples",
    "judge_identity",
    "judge_interim_state",
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
RESPONSE_INTERIM_STATE = register(
    "stream.response.interim_state",
    Level.MUST,
    "§2.3 [REC]",
    "before the terminal event the response has status `in_progress`/`queued`, `output: []` and `usage: null`",
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


def judge_interim_state(state: IdentityState, response: Any, index: int) -> None:
    """A `response.created`, `queued` or `in_progress` event's ``response``: not yet begun (a
    ``response`` that is no object is the schema check's)."""
    coverage = state.coverage
    if coverage is not None:
        coverage.applied.add(RESPONSE_INTERIM_STATE.id)
    if not isinstance(response, dict):
        return
    status = response.get("status")
    if status not in ("in_progress", "queued"):
        state._report(
            RESPONSE_INTERIM_STATE,
            index,
            "status `in_progress` or `queued`",
            status,
            path="response.status",
        )
    if response.get("output") != []:
        state._report(
            RESPONSE_INTERIM_STATE,
            index,
            "output: []",
            short(response.get("output")),
            path="response.output",
        )
    if response.get("usage") is not None:
        state._report(
            RESPONSE_INTERIM_STATE,
            index,
            "usage: null",
            short(response.get("usage")),
            path="response.usage",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import at, text_stream, usage
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
    example(
        RESPONSE_INTERIM_STATE.id,
        S(
            lambda: at(text_stream(), "response.in_progress", "response.usage", usage(5, 0)),
            "usage on `response.in_progress`",
        ),
        S(text_stream),
    )
