"""§2.8 Values agree (docs/spec.md#s2-8): ``stream.text.deltas_equal_done``,
``stream.text.done_equals_part``, ``stream.text.annotations_match``,
``stream.item.content_matches``, ``stream.logprobs.deltas_equal_done``.

The deltas of a text, refusal, argument, reasoning or summary value join to the value of its
``.done``; the ``.done`` value is the one in ``content_part.done`` or
``reasoning_summary_part.done``, and the finished item in ``output_item.done`` holds the parts,
texts, annotations (§1.5) and arguments that were streamed. A single-valued stream (arguments,
custom tool input, MCP arguments, interpreter code, patch diffs, shell commands) may deliver its
value whole in its ``.done``, with no delta (issue #32: OpenAI's Codex backend sends function-call
arguments so); deltas that were sent, any at all, still join to it. The ``logprobs`` of a part's
``output_text.delta`` events, joined, are those of its ``output_text.done`` when that event
carries any (§7.8 [REC]). A part opened before a resumed stream's resume point (§2.12) is
``partial``: its deltas are not all there, and are not compared.

The stream validator's part and value handlers (validator/parts.py, values.py) hold what was
streamed; the rules here compare it. Each check is marked applied at the event that meets its
rule, whatever it holds: a ``.done`` of a text, summary or value (``deltas_equal_done``), a
``content_part.done`` or ``reasoning_summary_part.done`` (``done_equals_part``), an
``output_text.done`` with a non-empty ``logprobs`` list (``logprobs.deltas_equal_done``), an
annotation streamed or a part or finished item that holds annotations (``annotations_match``),
and an ``output_item.done`` once the stream carried an event inside an item (``content_matches``:
a part's, a summary's, a value's, a hosted tool's progress).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..catalog.registry import Level, register
from ..catalog.render import short
from .s2_1_sequence import _Coverage, _Report
from .s2_9_output_items import first_difference

__all__ = [
    "ANNOTATIONS_MATCH",
    "DELTAS_EQUAL_DONE",
    "DONE_EQUALS_PART",
    "ITEM_CONTENT_MATCHES",
    "LOGPROBS_DELTAS_EQUAL_DONE",
    "ValuesState",
    "declare_examples",
    "first_difference_text",
    "judge_annotation_index",
    "judge_deltas_equal_done",
    "judge_done_equals_part",
    "judge_item_content",
    "judge_logprobs_equal_done",
    "judge_part_annotations",
    "note_annotation_added",
    "note_item_done",
    "note_part_done",
    "note_summary_part_done",
    "note_text_done",
    "note_value_done",
]

ITEM_CONTENT_MATCHES = register(
    "stream.item.content_matches",
    Level.MUST,
    "§2.8",
    "the item in `output_item.done` holds the parts, text and arguments its events streamed",
)
DELTAS_EQUAL_DONE = register(
    "stream.text.deltas_equal_done",
    Level.MUST,
    "§2.8",
    "the deltas of a text, refusal, arguments, reasoning or summary value concatenate to its `.done` value",
)
DONE_EQUALS_PART = register(
    "stream.text.done_equals_part",
    Level.MUST,
    "§2.8",
    "the `.done` value equals the value in `content_part.done` / `reasoning_summary_part.done`",
)
ANNOTATIONS_MATCH = register(
    "stream.text.annotations_match",
    Level.MUST,
    "§2.8, §1.5 [SDK]",
    "the annotations streamed by `output_text.annotation.added`, numbered 0, 1, … by `annotation_index`, are the part's `annotations` in `content_part.done` and `output_item.done`",
)
LOGPROBS_DELTAS_EQUAL_DONE = register(
    "stream.logprobs.deltas_equal_done",
    Level.MUST,
    "§2.8, §7.8 [REC]",
    "the `logprobs` of a part's `output_text.delta` events, concatenated, equal the `logprobs` of "
    "its `output_text.done` when that event carries any",
)


# The event families inside an item (docs/spec.md §2.6 table, and `content_part.*`).
_INNER = (
    "response.output_text.", "response.refusal.", "response.reasoning_text.",
    "response.reasoning_summary_", "response.function_call_arguments.",
    "response.custom_tool_call_input.", "response.mcp_call_arguments.",
    "response.code_interpreter_call_code.", "response.apply_patch_call_operation_diff.",
    "response.shell_call_command.", "response.shell_call_output_content.", "response.mcp_call.",
    "response.mcp_list_tools.", "response.code_interpreter_call", "response.web_search_call.",
    "response.file_search_call.", "response.image_generation_call.", "response.content_part.",
)  # fmt: skip


class _TypesCoverage(_Coverage, Protocol):
    types: set[str]  # the event types judged before this event


class _Part(Protocol):
    type: str
    done_value: str | None  # the value of its `.done`
    closed_value: str | None  # the value of its `content_part.done` / summary part's `.done`

    @property
    def annotations(self) -> list[Any]: ...  # streamed by `output_text.annotation.added`


class _Item(Protocol):
    @property
    def parts(self) -> Any: ...  # the content parts (a sequence of _Part)

    @property
    def summaries(self) -> Any: ...  # the summary parts (a sequence of _Part)

    # (family, index) -> (deltas, [the `.done` value or None])
    values: dict[tuple[str, int], tuple[list[str], list[str | None]]]


class ValuesState(Protocol):
    """What the rules read and write of the stream validator."""

    @property
    def coverage(self) -> _Coverage | None: ...

    @property
    def _report(self) -> _Report: ...


def _has_annotations(content: Any) -> bool:
    if not isinstance(content, list):
        return False
    return any(isinstance(p, dict) and p.get("annotations") for p in content)


def note_value_done(coverage: _Coverage) -> None:
    """A `.done` of a part's text, a summary's text or a single value, whatever it holds: its
    deltas are judged against it (the validator calls this where it records coverage)."""
    coverage.applied.add(DELTAS_EQUAL_DONE.id)


def note_text_done(coverage: _Coverage, event: Mapping[str, Any]) -> None:
    """A part's text `.done`: its value is judged against its deltas, and the `logprobs` of an
    `output_text.done` that carries a non-empty list against theirs."""
    coverage.applied.add(DELTAS_EQUAL_DONE.id)
    if event.get("type") == "response.output_text.done":
        logprobs = event.get("logprobs")
        if logprobs and isinstance(logprobs, list):
            coverage.applied.add(LOGPROBS_DELTAS_EQUAL_DONE.id)


def note_part_done(coverage: _Coverage, event: Mapping[str, Any]) -> None:
    """A `content_part.done`, whatever it holds: its value is judged against the `.done`'s, and
    the annotations of a part that holds any against those streamed."""
    coverage.applied.add(DONE_EQUALS_PART.id)
    if _has_annotations([event.get("part")]):
        coverage.applied.add(ANNOTATIONS_MATCH.id)


def note_summary_part_done(coverage: _Coverage) -> None:
    """A `reasoning_summary_part.done`, whatever it holds: its text is judged against the
    `reasoning_summary_text.done`'s."""
    coverage.applied.add(DONE_EQUALS_PART.id)


def note_annotation_added(coverage: _Coverage) -> None:
    """An `output_text.annotation.added`, whatever it holds: its `annotation_index` is judged."""
    coverage.applied.add(ANNOTATIONS_MATCH.id)


def note_item_done(coverage: _TypesCoverage, event: Mapping[str, Any]) -> None:
    """An `output_item.done`, once the stream carried an event inside an item (a part, a
    summary, a value, a hosted tool's progress): the finished item is judged against what was
    streamed; and where its parts hold annotations, they are judged against those streamed."""
    if any(t.startswith(_INNER) for t in coverage.types):
        coverage.applied.add(ITEM_CONTENT_MATCHES.id)
    item = event.get("item")
    if isinstance(item, dict) and _has_annotations(item.get("content")):
        coverage.applied.add(ANNOTATIONS_MATCH.id)


def first_difference_text(want: str, got: str) -> str:
    """Where two texts (a `.done` value, the deltas joined) first differ."""
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return f"they differ from character {i}: {want[i : i + 20]!r} vs {got[i : i + 20]!r}"
    if len(want) != len(got):
        return f"lengths {len(want)} (done) vs {len(got)} (deltas joined)"
    return ""


def judge_deltas_equal_done(
    state: ValuesState, value: str, streamed: str, index: int, path: str
) -> None:
    """A `.done` value against its deltas joined (``streamed``)."""
    if streamed != value:
        state._report(
            DELTAS_EQUAL_DONE,
            index,
            short(value),
            short(streamed),
            path=path,
            message=first_difference_text(value, streamed),
        )


def judge_logprobs_equal_done(
    state: ValuesState, etype: str, logprobs: list[Any], streamed: list[Any], index: int
) -> None:
    """The non-empty ``logprobs`` of an `output_text.done` against its deltas' joined."""
    if logprobs != streamed:
        state._report(
            LOGPROBS_DELTAS_EQUAL_DONE,
            index,
            f"{len(logprobs)} token(s), as `{etype}` lists them",
            f"{len(streamed)} token(s) streamed",
            path="logprobs",
            message=first_difference(logprobs, streamed),
        )


def judge_done_equals_part(
    state: ValuesState, done_value: str, value: Any, index: int, path: str, message: str = ""
) -> None:
    """A closed part's value (``value``, at ``path``) against its `.done`'s."""
    if value != done_value:
        state._report(
            DONE_EQUALS_PART, index, short(done_value), short(value), path=path, message=message
        )


def judge_annotation_index(state: ValuesState, streamed: int, ai: Any, index: int) -> None:
    """An `output_text.annotation.added`'s ``annotation_index`` against the number of the part's
    annotations streamed before it."""
    if type(ai) is int and ai != streamed:
        state._report(
            ANNOTATIONS_MATCH,
            index,
            streamed,
            ai,
            path="annotation_index",
            message="annotations are numbered 0, 1, … in the order they are streamed",
        )


def judge_part_annotations(
    state: ValuesState,
    part: _Part,
    got: Mapping[str, Any],
    index: int,
    path: str,
    message: str = "",
) -> None:
    """An `output_text` part's ``annotations`` (in ``content_part.done`` or the finished item)
    against those streamed."""
    if part.type == "output_text" and got.get("annotations", []) != part.annotations:
        state._report(
            ANNOTATIONS_MATCH,
            index,
            f"{len(part.annotations)} streamed annotation(s)",
            short(got.get("annotations")),
            path=path,
            message=message,
        )


def judge_item_content(
    state: ValuesState,
    item: _Item,
    done_item: Mapping[str, Any],
    index: int,
    text_fields: Mapping[str, str],
    value_paths: Mapping[str, tuple[str | int | None, ...] | None],
) -> None:
    """The finished item of an `output_item.done` against what its events streamed: its parts,
    summary parts and values. ``text_fields``: a part type's text field; ``value_paths``: where
    a value family's value sits in the finished item (``None`` in a path stands for the value's
    ``command_index``; a family without a path is not held there)."""
    for name, parts, what in (
        ("content", item.parts, "content part(s)"),
        ("summary", item.summaries, "summary part(s)"),
    ):
        if not parts:
            continue
        held = done_item.get(name)
        if not isinstance(held, list) or len(held) != len(parts):
            state._report(
                ITEM_CONTENT_MATCHES,
                index,
                f"{len(parts)} {what}",
                short(held),
                path=f"item.{name}",
            )
            continue
        for i, (part, have) in enumerate(zip(parts, held, strict=True)):
            _compare_part(state, part, have, index, f"item.{name}[{i}]", text_fields)
    for (family, sub), (_deltas, done) in item.values.items():
        where = value_paths[family]
        if where is None or done[0] is None:
            continue
        path = tuple(sub if key is None else key for key in where)
        found: Any = done_item
        for key in path:
            if isinstance(key, str) and isinstance(found, dict):
                found = found.get(key)
            elif isinstance(key, int) and isinstance(found, list) and 0 <= key < len(found):
                found = found[key]
            else:
                found = None
        if found != done[0]:
            state._report(
                ITEM_CONTENT_MATCHES,
                index,
                short(done[0]),
                short(found),
                path="item." + ".".join(map(str, path)),
                message=f"`{family}.done` streamed another value",
            )


def _compare_part(
    state: ValuesState,
    part: _Part,
    have: Any,
    index: int,
    path: str,
    text_fields: Mapping[str, str],
) -> None:
    if not isinstance(have, dict):
        state._report(ITEM_CONTENT_MATCHES, index, f"a {part.type} part", short(have), path=path)
        return
    if have.get("type") != part.type:
        state._report(ITEM_CONTENT_MATCHES, index, part.type, have.get("type"), path=path + ".type")
        return
    judge_part_annotations(state, part, have, index, f"{path}.annotations")
    value = part.closed_value if part.closed_value is not None else part.done_value
    text_field = text_fields.get(part.type, "text")
    if value is not None and have.get(text_field) != value:
        state._report(
            ITEM_CONTENT_MATCHES,
            index,
            short(value),
            short(have.get(text_field)),
            path=f"{path}.{text_field}",
        )


def declare_examples() -> None:
    """The failing example and the passing near miss of each check (conformance.examples)."""
    from ..examples.build import Event, at, drop, retext, text_stream
    from ..examples.registry import example
    from ..examples.stream_samples import S

    annotation = {
        "type": "url_citation", "url": "https://example.com", "title": "Example",
        "start_index": 0, "end_index": 5,
    }  # fmt: skip
    token = {"token": "Hel", "logprob": -0.25, "bytes": [72, 101, 108], "top_logprobs": []}

    example(
        ITEM_CONTENT_MATCHES.id,
        S(lambda: retext(text_stream(), '"text": "Hello"}], "role"', '"text": "Hello!"}], "role"'),
          "the finished item (and the output) hold another text than was streamed"),
        S(text_stream),
    )  # fmt: skip
    example(
        DELTAS_EQUAL_DONE.id,
        S(
            lambda: at(text_stream(), "response.output_text.delta", "delta", "Hal"),
            "the deltas make `Hallo`, the `.done` says `Hello`",
        ),
        S(text_stream),
    )
    example(
        DONE_EQUALS_PART.id,
        S(
            lambda: retext(text_stream(), '"text": "Hello"}', '"text": "Hello!"}'),
            "the part, the item and the output say `Hello!`, `output_text.done` says `Hello`",
        ),
        S(text_stream),
    )
    example(
        ANNOTATIONS_MATCH.id,
        S(
            lambda: drop(
                text_stream(annotations=[annotation]), "response.output_text.annotation.added"
            ),
            "the part's annotation was never streamed",
        ),
        S(lambda: text_stream(annotations=[annotation])),
    )

    def with_logprobs(done_logprob: float) -> list[Event]:
        """A text stream whose one delta and its `.done` carry logprobs (the `.done`'s as given)."""
        events = text_stream(("Hel",))
        at(events, "response.output_text.delta", "logprobs", [dict(token)])
        done = [{**token, "logprob": done_logprob}]
        return at(events, "response.output_text.done", "logprobs", done)

    example(
        LOGPROBS_DELTAS_EQUAL_DONE.id,
        S(lambda: with_logprobs(-0.5), "the delta's token -0.25, the `.done`'s -0.5"),
        S(lambda: with_logprobs(-0.25)),
    )
