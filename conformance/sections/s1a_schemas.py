"""§1a Schemas (docs/spec.md#s1a): ``event.schema.required``, ``event.schema.type``,
``event.schema.value``, ``event.schema.enum``.

Every event of a documented type is held to OpenAI's schema for it ([OAPI]
``ResponseStreamEvent``, with §1a's relaxations): its required fields present, each field of its
type, constants and discriminators of their value, and (INFO: enumerations are open) enumerated
fields of a listed value.

The rule is the judge's schema validator (:mod:`conformance.schema`): a compiled predicate per
event type accepts an event in one call, and only an event it refuses is interpreted for its
issues, each reported here under the check of its kind (:func:`judge_schema_issues`).
:func:`note_typed` marks the checks applied on every typed event the stream validator judges in
full (a fast-path delta was matched to its type's schema to be taken there).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ..catalog.registry import Check, Level, register
from .s2_1_sequence import _Coverage, _Report

__all__ = [
    "EVENT_SCHEMA_ENUM",
    "EVENT_SCHEMA_REQUIRED",
    "EVENT_SCHEMA_TYPE",
    "EVENT_SCHEMA_VALUE",
    "declare_examples",
    "judge_schema_issues",
    "note_typed",
]

EVENT_SCHEMA_REQUIRED = register(
    "event.schema.required",
    Level.MUST,
    "§1a [OAPI] ResponseStreamEvent",
    "every field OpenAI's schema requires is present (with §1a's relaxations)",
)
EVENT_SCHEMA_TYPE = register(
    "event.schema.type",
    Level.MUST,
    "§1a [OAPI] ResponseStreamEvent",
    "every field has the type OpenAI's schema gives it",
)
EVENT_SCHEMA_VALUE = register(
    "event.schema.value",
    Level.MUST,
    "§1a, §7.5 [OAPI] ResponseStreamEvent",
    "constant and discriminator fields have the value OpenAI's schema gives them",
)
EVENT_SCHEMA_ENUM = register(
    "event.schema.enum",
    Level.INFO,
    "§1a (enumerations are open)",
    "enumerated fields use a value OpenAI's schema lists",
)

# A schema issue's kind (conformance.schema.SchemaIssue.kind) -> its check.
_BY_KIND: dict[str, Check] = {
    "required": EVENT_SCHEMA_REQUIRED,
    "type": EVENT_SCHEMA_TYPE,
    "value": EVENT_SCHEMA_VALUE,
    "enum": EVENT_SCHEMA_ENUM,
}
_APPLIED = frozenset(check.id for check in _BY_KIND.values())


class _Issue(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def expected(self) -> object: ...
    @property
    def actual(self) -> object: ...


def judge_schema_issues(report: _Report, issues: Iterable[_Issue], index: int) -> None:
    """The issues the schema validator found in the event at ``index``."""
    for issue in issues:
        report(_BY_KIND[issue.kind], index, issue.expected, issue.actual, path=issue.path)


def note_typed(coverage: _Coverage) -> None:
    """A typed event judged in full: held to its type's schema (an undocumented type has none,
    and the rule has nothing to say of it, as the table before said too)."""
    coverage.applied.update(_APPLIED)


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import at, text_stream, without
    from ..examples.registry import example
    from ..examples.stream_samples import S

    example(
        EVENT_SCHEMA_REQUIRED.id,
        S(lambda: without(text_stream(), "response.output_text.done", "logprobs")),
        S(text_stream),
    )
    example(
        EVENT_SCHEMA_TYPE.id,
        S(lambda: at(text_stream(), "response.output_text.done", "logprobs", {})),
        S(text_stream),
    )
    example(
        EVENT_SCHEMA_VALUE.id,
        S(lambda: at(text_stream(), "response.created", "response.object", "chat.completion")),
        S(text_stream),
    )
    example(
        EVENT_SCHEMA_ENUM.id,
        S(lambda: at(text_stream(), "response.created", "response.service_tier", "turbo")),
        S(text_stream),
    )
