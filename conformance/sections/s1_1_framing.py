"""§1.1 Framing (docs/spec.md#s1-1): ``sse.event_name.matches_type``, ``sse.event_name.present``,
``sse.event_name.required``, ``sse.id.absent``, ``sse.data.json``, ``sse.done.required``,
``sse.done.last``.

An event travels as ``event: <type>`` and ``data: <json>`` lines. The ``event:`` name equals the
JSON ``type`` (MUST); a missing ``event:`` line is INFO (no client needs it), a MUST under the
``openresponses`` profile; every ``data:`` payload but ``[DONE]`` is one JSON object; ``[DONE]``
is optional by default and required under ``openresponses``, and nothing follows it; an ``id:``
field is a SHOULD violation under ``openresponses``.

The rules are the SSE framing layer's (:class:`conformance.sse.framing.SSEStreamValidator`): the
common event (``event: <type>``, one JSON object of that type, before any ``[DONE]``) passes them
in its parse and one comparison; every other record is judged by the report functions here. The
``event:`` lines missing are counted per event and reported at the end (:func:`judge_missing_names`).

The framing layer marks the checks applied where they evaluate, once per stream: at the first
event it judges (:func:`note_event`: its payload parsed, its ``event:`` line read; under the
profile its ``id:`` looked for), at the first one whose ``event:`` name was held to its
``type`` (:func:`note_named`: an event whose payload is not an object counts, as the layer's
table said before), at ``[DONE]`` (:func:`note_done`) and, under the profile, at the end
(:func:`note_closed`).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..catalog.registry import Check, Level, Violation, register
from ..catalog.render import short

__all__ = [
    "SSE_AFTER_DONE",
    "SSE_DATA_JSON",
    "SSE_DONE_REQUIRED",
    "SSE_EVENT_NAME_MATCHES",
    "SSE_EVENT_NAME_PRESENT",
    "SSE_EVENT_NAME_REQUIRED",
    "SSE_ID_ABSENT",
    "declare_examples",
    "head",
    "judge_after_done",
    "judge_done_missing",
    "judge_id",
    "judge_missing_names",
    "judge_name",
    "judge_not_an_object",
    "judge_not_json",
    "note_closed",
    "note_done",
    "note_event",
    "note_named",
]

SSE_EVENT_NAME_MATCHES = register(
    "sse.event_name.matches_type",
    Level.MUST,
    "§1.1 [OR]",
    "the SSE `event:` name equals the JSON body's `type`",
)
SSE_EVENT_NAME_PRESENT = register(
    "sse.event_name.present",
    Level.INFO,
    "§2.14, §1.1 [OR]",
    "each event carries an `event:` line (the SDK does not need it)",
)
SSE_EVENT_NAME_REQUIRED = register(
    "sse.event_name.required",
    Level.MUST,
    "§1.1 [OR]",
    "Open Responses: each event carries an `event:` line equal to its `type`",
    profile="openresponses",
)
SSE_ID_ABSENT = register(
    "sse.id.absent",
    Level.SHOULD,
    "§1.1 [OR]",
    "Open Responses: servers should not send SSE `id:` fields",
    profile="openresponses",
)
SSE_DATA_JSON = register(
    "sse.data.json",
    Level.MUST,
    "§1.1",
    "every `data:` payload (but the `[DONE]` sentinel) is one JSON object",
)
SSE_DONE_REQUIRED = register(
    "sse.done.required",
    Level.MUST,
    "§1.1 [OR], decision",
    "Open Responses: the stream ends with `data: [DONE]`",
    profile="openresponses",
)
SSE_AFTER_DONE = register(
    "sse.done.last",
    Level.MUST,
    "§2.2",
    "nothing follows the `[DONE]` sentinel",
)

_EVENT = frozenset({SSE_DATA_JSON.id, SSE_EVENT_NAME_PRESENT.id})
_EVENT_OPENRESPONSES = _EVENT | {SSE_EVENT_NAME_REQUIRED.id, SSE_ID_ABSENT.id}


class Framing(Protocol):
    """The framing layer's report: records a violation of ``check`` and returns it."""

    def __call__(
        self, check: Check, index: int | None, expected: Any, actual: Any, message: str = ...
    ) -> Violation: ...


def head(text: str) -> str:
    """A payload as a violation shows it: its first 80 characters."""
    return short(text, 80)


def judge_after_done(framing: Framing, index: int, data: str) -> Violation:
    """A record after ``[DONE]``."""
    return framing(SSE_AFTER_DONE, index, "nothing after [DONE]", head(data))


def judge_id(framing: Framing, index: int, sse_id: str) -> Violation:
    """Under the ``openresponses`` profile: the stream's first ``id:`` field (the caller tests,
    and reports one per stream)."""
    return framing(SSE_ID_ABSENT, index, "no `id:` field", sse_id)


def judge_not_json(framing: Framing, index: int, data: str, message: str) -> Violation:
    """A payload that is not JSON (``message``: the parser's)."""
    return framing(SSE_DATA_JSON, index, "a JSON object", head(data), message=message)


def judge_not_an_object(framing: Framing, index: int, data: str) -> Violation:
    """A payload that is JSON but not an object."""
    return framing(SSE_DATA_JSON, index, "a JSON object", head(data))


def judge_name(framing: Framing, index: int, etype: Any, name: str) -> Violation:
    """An ``event:`` name that is not the payload's ``type`` (the caller compares)."""
    return framing(SSE_EVENT_NAME_MATCHES, index, etype, name)


def judge_missing_names(framing: Framing, missing: int, openresponses: bool) -> list[Violation]:
    """At the end: ``missing`` events came without an ``event:`` line (the caller tests)."""
    actual = f"{missing} event(s) without one"
    out = [framing(SSE_EVENT_NAME_PRESENT, None, "an `event:` line on every event", actual)]
    if openresponses:
        out.append(
            framing(SSE_EVENT_NAME_REQUIRED, None, "an `event:` line on every event", actual)
        )
    return out


def judge_done_missing(framing: Framing) -> Violation:
    """Under the ``openresponses`` profile: a stream that ended without ``[DONE]`` (the caller
    tests; not for a stream the judge gave up on, nor a cancelled one)."""
    return framing(SSE_DONE_REQUIRED, None, "data: [DONE]", "no [DONE]")


def note_event(applied: set[str], openresponses: bool) -> None:
    """An event judged: its payload held to one JSON object, its ``event:`` line looked for
    (and, under the profile, its ``id:``)."""
    applied.update(_EVENT_OPENRESPONSES if openresponses else _EVENT)


def note_named(applied: set[str]) -> None:
    """An event whose ``event:`` line the rule held to its ``type``."""
    applied.add(SSE_EVENT_NAME_MATCHES.id)


def note_done(applied: set[str]) -> None:
    """``[DONE]`` seen: what follows is held to nothing."""
    applied.add(SSE_AFTER_DONE.id)


def note_closed(applied: set[str]) -> None:
    """Under the ``openresponses`` profile, at the end: the stream was held to ending in
    ``[DONE]``."""
    applied.add(SSE_DONE_REQUIRED.id)


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import sse, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import OR, R, replace_bytes

    example(
        SSE_EVENT_NAME_MATCHES.id,
        R(lambda: replace_bytes(sse(text_stream()), "event: response.in_progress",
                                "event: response.queued"),
          "the `event:` line of the second event names another type"),
        R(lambda: sse(text_stream())),
    )  # fmt: skip
    example(
        SSE_EVENT_NAME_PRESENT.id,
        R(lambda: sse(text_stream(), names=False), "no `event:` lines"),
        R(lambda: sse(text_stream())),
    )
    example(
        SSE_EVENT_NAME_REQUIRED.id,
        R(lambda: sse(text_stream(), names=False, done=True), "no `event:` lines", profiles=OR),
        R(lambda: sse(text_stream(), done=True), profiles=OR),
    )
    example(
        SSE_ID_ABSENT.id,
        R(lambda: replace_bytes(sse(text_stream(), done=True), "event: response.created",
                                "id: 1\nevent: response.created"),
          "an SSE `id:` field", profiles=OR),
        R(lambda: sse(text_stream(), done=True), profiles=OR),
    )  # fmt: skip
    example(
        SSE_DATA_JSON.id,
        R(lambda: replace_bytes(sse(text_stream()), "event: response.in_progress",
                                "data: {not json\n\nevent: response.in_progress"),
          "a payload that is not JSON"),
        R(lambda: sse(text_stream())),
    )  # fmt: skip
    example(
        SSE_DONE_REQUIRED.id,
        R(lambda: sse(text_stream()), "no `data: [DONE]`", profiles=OR),
        R(lambda: sse(text_stream(), done=True), profiles=OR),
    )
    example(
        SSE_AFTER_DONE.id,
        R(lambda: sse(text_stream(), done=True) + b"data: [DONE]\n\n", "a second `[DONE]`"),
        R(lambda: sse(text_stream(), done=True)),
    )
