"""One check, one place (conformance.sections): a section module declares its checks, holds the
rule that evaluates them and their examples, and the rule marks the checks applied where it
evaluates them — what a live run reports as exercised comes from that mark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mutations import load_recordings
from stream_edits import exercised

import conformance.cli  # the full registry (imported for its registrations)
import conformance.sections
from conformance.bodies.kinds import judge_body
from conformance.catalog.docs import anchor_text
from conformance.catalog.registry import REGISTRY, Check, Violation
from conformance.examples import EXAMPLES, Sample
from conformance.examples.live import LIVE_SERVERS
from conformance.sections import SECTIONS
from conformance.sections.against_request import judge_stream_against_request
from conformance.sections.s4_8_http_framing import judge_answer
from conformance.sse.framing import SSEStreamValidator
from conformance.validator import StreamValidator
from conformance.websocket import SessionValidator


def _nested(value: Any) -> list[Check]:
    """The checks a section keeps in a table (client → part → check)."""
    if isinstance(value, dict):
        return [c for v in value.values() for c in _nested(v)]
    if isinstance(value, tuple):
        return [c for v in value for c in _nested(v)]
    return [value] if isinstance(value, Check) else []


def _declared() -> list[tuple[str, Check]]:
    """Each check once, with the section that declares it: a check a section holds under a
    name of its own (one its ``__all__`` exports: a check of another section that its case
    exercises is imported, not exported), else the first that keeps it in a table
    (s9_clients' ``CLIENT_CHECKS`` lists the checks other modules register into it)."""
    named = {
        value.id: section.__name__.rsplit(".", 1)[1]
        for section in SECTIONS
        for key, value in vars(section).items()
        if isinstance(value, Check) and key in getattr(section, "__all__", (key,))
    }
    found: dict[str, tuple[str, Check]] = {}
    for section in SECTIONS:
        name = section.__name__.rsplit(".", 1)[1]
        for value in vars(section).values():
            for check in [value] if isinstance(value, Check) else _nested(value):
                if named.get(check.id, name) == name:
                    found.setdefault(check.id, (name, check))
    return list(found.values())


_CHECKS = _declared()


def _judge(sample: Sample) -> StreamValidator:
    validator = StreamValidator(
        coverage=True, profiles=sample.profiles, resume_after=sample.resume_after
    )
    for event in sample.build():
        validator.feed(event)
    validator.close()
    return validator


def test_every_section_module_is_found_and_declares_checks() -> None:
    # found by its name, in section order (conformance/sections/__init__.py): no list to keep
    folder = Path(conformance.sections.__file__).parent
    files = {p.stem for p in folder.glob("s[0-9]*_*.py")}
    names = [section.__name__.rsplit(".", 1)[1] for section in SECTIONS]
    assert set(names) == files and len(names) >= 20
    assert {name for name, _ in _CHECKS} == files


@pytest.mark.parametrize(("section", "check"), _CHECKS, ids=[c.id for _, c in _CHECKS])
def test_a_sections_check_has_its_clause_examples_and_rule_in_one_place(
    section: str, check: Check
) -> None:
    assert REGISTRY[check.id] is check
    assert check.anchors and all(anchor_text(a) for a in check.anchors), check.clause
    example = EXAMPLES[check.id]
    kind = example.failing.kind
    assert example.passing.kind == kind
    if kind == "session":  # a WebSocket session rule (§8): the session validator marks it
        bad, good = _session(example.failing), _session(example.passing)
        assert check.id in {v.check_id for v in bad.violations}
        assert check.id not in {v.check_id for v in good.all_violations()}
        assert check.id in bad.exercised and check.id in good.exercised
        return
    if kind == "live":  # a live rule: the suite's cases; tests/suite/test_live_examples.py runs it
        assert LIVE_SERVERS[check.id] == example.failing.build()
        assert example.passing.build() == "mock"
        return
    if kind == "sse":  # a framing rule (§1.1): the SSE layer in front of the validator judges it
        bad_sse, good_sse = _sse(example.failing), _sse(example.passing)
        assert check.id in {v.check_id for v in bad_sse.violations}
        assert check.id not in {v.check_id for v in good_sse.violations}
        assert check.id in bad_sse.exercised and check.id in good_sse.exercised
        return
    if kind == "http":  # a framing rule (§4.8): the proxy's parser judges the answer's bytes
        bad, bad_applied = judge_answer(example.failing.build())
        good, good_applied = judge_answer(example.passing.build())
        assert check.id in {v.check_id for v in bad} and check.id in bad_applied
        assert good == [] and check.id in good_applied
        return
    if kind in ("response", "state", "error"):  # a body rule (§3, §4): the body judge marks it
        bad, bad_applied = _body(example.failing)
        good, good_applied = _body(example.passing)
        assert check.id in {v.check_id for v in bad} and check.id in bad_applied
        assert check.id not in {v.check_id for v in good} and check.id in good_applied
        return
    assert kind == "stream"
    if example.failing.request is not None:
        _judged_against_its_request(check, example.failing, example.passing)
        return
    failing, passing = _judge(example.failing), _judge(example.passing)
    # a parent's example fires one of its refinements (sections/s2_6_inside_item_order.py)
    assert check.id in _reported(failing.violations)
    assert check.id not in _reported(passing.violations)
    # Applied by the rule itself, on the near miss too (where nothing was reported), but for
    # a near miss the rule exempts; a refinement by its parent's mark (a parent's rules all
    # apply: conformance.catalog.registry.with_family).
    assert failing.coverage is not None and passing.coverage is not None
    marked = check.parent or check.id
    assert marked in failing.coverage.applied
    if check.id in _EXEMPT:
        assert check.id not in passing.exercised
        return
    assert marked in passing.coverage.applied
    assert check.id in passing.exercised


# Near misses the rule does not apply to (as tests/conformance/validator/test_exercised.py says):
# the stream is resumed after `response.created`, which it has no place to open.
_EXEMPT = {"stream.lifecycle.created_first"}


def _reported(violations: list[Violation]) -> set[str]:
    """The IDs as a user sees them: a refinement reported is its published parent reported."""
    ids = {v.check_id for v in violations}
    return ids | {p for i in ids if (p := REGISTRY[i].parent) is not None}


def _body(sample: Sample) -> tuple[list[Violation], set[str]]:
    applied: set[str] = set()
    found = judge_body(sample.build(), sample.kind, profiles=sample.profiles, applied=applied)
    return found, applied


def _sse(sample: Sample) -> SSEStreamValidator:
    limits = {
        k: v
        for k, v in (("max_event_bytes", sample.max_event_bytes), ("max_events", sample.max_events))
        if v is not None
    }
    validator = SSEStreamValidator(profiles=sample.profiles, coverage=True, **limits)
    validator.feed(sample.build())
    validator.close()
    return validator


def _session(sample: Sample) -> SessionValidator:
    validator = SessionValidator(profiles=sample.profiles, coverage=True)
    for direction, frame in sample.build():
        (validator.client if direction == "client" else validator.server)(frame)
    validator.close()
    return validator


def _judged_against_its_request(check: Check, failing: Sample, passing: Sample) -> None:
    """A rule that needs the request too (the suite, the proxy and cassettes have it): it
    reports on the failing stream, not on the near miss, and says it judged both."""
    assert passing.request is not None
    bad, bad_applied = judge_stream_against_request(failing.request, failing.build())
    good, good_applied = judge_stream_against_request(passing.request, passing.build())
    assert check.id in {v.check_id for v in bad} and check.id in bad_applied
    assert check.id not in {v.check_id for v in good} and check.id in good_applied
    # the stream alone is clean: without its request the rule has nothing to judge
    assert check.id not in {v.check_id for v in _judge(failing).violations}


_SEQUENCE = {"stream.sequence.present", "stream.sequence.start", "stream.sequence.contiguous"}
_IDENTITY = {"stream.response.id_stable", "stream.response.created_at_stable"}
_OPAQUE = "stream.output.opaque_consistent"
# §1, §1.3, §1a: one event on its own (its type, its schema)
_EVENT = {
    "event.type.present", "event.type.known", "event.type.nonstandard", "event.schema.required",
    "event.schema.type", "event.schema.value", "event.schema.enum",
}  # fmt: skip
_OPENRESPONSES_TYPES = "event.type.openresponses"
# §2.6: the refinements of the part and summary order checks, applied with their parent
_ORDER_REFINEMENTS = {
    c.id for c in REGISTRY.values() if c.parent in ("stream.part.order", "stream.summary.order")
}
_ERROR = "stream.error.followed_by_failed"
_LIFECYCLE = {
    "stream.lifecycle.created_first",
    "stream.lifecycle.in_progress_second",
    "stream.lifecycle.unique",
    "stream.lifecycle.terminal_present",
    "stream.lifecycle.after_terminal",
    "stream.response.interim_state",
    "stream.response.terminal_status",
}
_OUTPUT_INDEX = {"stream.output_index.contiguous", "stream.item.no_interleave"}
_ITEMS_OPENED = {"stream.item.added_before_use", "stream.item.added_once", "stream.item.done_once"}
_IDENTITY_ITEMS = {
    "stream.item.item_id_matches",
    "stream.item.done_matches_added",
    "stream.item.id_unique",
}
_INSIDE_ITEM = {
    "stream.item.added_state",
    "stream.part.added_before_use",
    "stream.part.content_index",
    "stream.part.order",
    "stream.part.closed",
    "stream.part.kind_matches",
    "stream.summary.part_added",
    "stream.summary.index",
    "stream.summary.order",
    "stream.arguments.order",
    "stream.arguments.added_first",
    "stream.delta.type_fits_item",
}
_INCOMPLETE = "stream.item.incomplete_last"
_PART_FITS = "stream.part.type_fits_item"
_ID_PREFIX = "stream.item.id_prefix"
_CALL_IDENTITY = "stream.item.call_identity_stable"
_OUTPUT_ITEMS = {"stream.item.closed_before_terminal", "stream.output.equals_items"}
_VALUES_AGREE = {
    "stream.text.deltas_equal_done",
    "stream.text.done_equals_part",
    "stream.text.annotations_match",
    "stream.logprobs.deltas_equal_done",
}
_CONTENT = "stream.item.content_matches"
_ADDED = "response.output_item.added"
_INTERIM = {"response.created", "response.queued", "response.in_progress"}
_TERMINAL = {"response.completed", "response.incomplete", "response.failed"}
_PART_EVENTS = {"response.content_part.added", "response.content_part.done"}


def _lifecycle_table(events: list[dict[str, Any]], *, resumed: bool = False) -> set[str]:
    """What the table (conformance/validator/exercised.py) said of the lifecycle checks: the
    end of every stream, the start of any stream not resumed with an event judged, the rest by
    the lifecycle event types the stream held."""
    out = {"stream.lifecycle.terminal_present"}
    types = {e["type"] for e in events if isinstance(e.get("type"), str)}
    if types and not resumed:
        out.add("stream.lifecycle.created_first")
    if "response.created" in types:
        out.add("stream.lifecycle.in_progress_second")
    if types & _INTERIM:
        out |= {"stream.lifecycle.unique", "stream.response.interim_state"}
    if types & _TERMINAL:
        out |= {"stream.lifecycle.after_terminal", "stream.response.terminal_status"}
    return out


def _output_index_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §2.5 checks: the index once an item was added, interleaving
    once a second one was."""
    added = sum(e.get("type") == _ADDED for e in events)
    out = {"stream.output_index.contiguous"} if added else set()
    return out | ({"stream.item.no_interleave"} if added >= 2 else set())


# The event families that name an item, as the table that said what was exercised listed them
# (validator/exercised.py's `_FAMILIES`, gone with the table): the marks are held to it.
_INNER = (
    "response.output_text.", "response.refusal.", "response.reasoning_text.",
    "response.reasoning_summary_", "response.function_call_arguments.",
    "response.custom_tool_call_input.", "response.mcp_call_arguments.",
    "response.code_interpreter_call_code.", "response.apply_patch_call_operation_diff.",
    "response.shell_call_command.", "response.shell_call_output_content.", "response.mcp_call.",
    "response.mcp_list_tools.", "response.code_interpreter_call", "response.web_search_call.",
    "response.file_search_call.", "response.image_generation_call.", "response.content_part.",
)  # fmt: skip


def _items_opened_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §2.4 checks: a second addition once an item was added, the
    item's opening once an event named one or an item was done, a second closing once one was."""
    types = {e["type"] for e in events if isinstance(e.get("type"), str)}
    out = {"stream.item.added_once"} if _ADDED in types else set()
    if "response.output_item.done" in types:
        out |= {"stream.item.added_before_use", "stream.item.done_once"}
    if any(t.startswith(_INNER) for t in types):
        out.add("stream.item.added_before_use")
    return out


def _identity_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §2.7 checks: an inner event's id once one named an item, the
    done item's once one was done, an item's id once a second one was added."""
    types = {e["type"] for e in events if isinstance(e.get("type"), str)}
    out = {"stream.item.item_id_matches"} if any(t.startswith(_INNER) for t in types) else set()
    if "response.output_item.done" in types:
        out.add("stream.item.done_matches_added")
    if sum(e.get("type") == _ADDED for e in events) >= 2:
        out.add("stream.item.id_unique")
    return out


_PART_TEXT = ("response.output_text.", "response.refusal.", "response.reasoning_text.")
_PART_CHECKS = {
    "stream.part.added_before_use",
    "stream.part.content_index",
    "stream.part.order",
    "stream.part.closed",
}
_VALUES = (
    "response.function_call_arguments.", "response.custom_tool_call_input.",
    "response.mcp_call_arguments.", "response.code_interpreter_call_code.",
    "response.apply_patch_call_operation_diff.", "response.shell_call_command.",
    "response.shell_call_output_content.",
)  # fmt: skip


def _inside_item_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §2.6 checks, by the event types the stream held: an item's
    opening once one was added, a part's checks once a part was added or its text streamed
    (the part's kind for its text), a summary part's for any of its events, a value's order
    for any event of a value, its opening for a shell command's, the item's type for any event
    of a family that names an item."""
    types = {e["type"] for e in events if isinstance(e.get("type"), str)}
    out = {"stream.item.added_state"} if _ADDED in types else set()
    part_text = any(t.startswith(_PART_TEXT) for t in types)
    if part_text or "response.content_part.added" in types:
        out |= _PART_CHECKS
    if part_text:
        out.add("stream.part.kind_matches")
    if any(t.startswith("response.reasoning_summary_") for t in types):
        out |= {"stream.summary.part_added", "stream.summary.index", "stream.summary.order"}
    if any(t.startswith(_VALUES) for t in types):
        out.add("stream.arguments.order")
    if any(t.startswith("response.shell_call_command.") for t in types):
        out.add("stream.arguments.added_first")
    if any(t.startswith(_INNER) and not t.startswith("response.content_part.") for t in types):
        out.add("stream.delta.type_fits_item")
    return out


def _holds_incomplete(events: list[dict[str, Any]]) -> bool:
    """What the table said of §2.10: an `incomplete` item in an `output_item.done` or in the
    terminal output."""
    items = [e["item"] for e in events if e.get("type") == "response.output_item.done"]
    items += [
        i
        for e in events
        if e.get("type") in _TERMINAL and isinstance(e.get("response"), dict)
        for i in e["response"].get("output") or []
    ]
    return any(isinstance(i, dict) and i.get("status") == "incomplete" for i in items)


def _holds_parts(events: list[dict[str, Any]]) -> bool:
    """What the table said of §2.11: a `content_part.*` event, or an item with a non-empty
    `content` in the terminal output."""
    if any(e.get("type") in _PART_EVENTS for e in events):
        return True
    return any(
        isinstance(i, dict) and isinstance(i.get("content"), list) and bool(i["content"])
        for e in events
        if e.get("type") in _TERMINAL and isinstance(e.get("response"), dict)
        for i in e["response"].get("output") or []
    )


def _named_call(item: Any) -> bool:
    """An item `output_item.added` gave a `call_id` or `name` (a tool search's `call_id` is
    re-issued in its `.done`: docs/spec.md §7.9)."""
    return (
        isinstance(item, dict)
        and item.get("type") != "tool_search_call"
        and any(isinstance(item.get(k), str) and item.get(k) for k in ("call_id", "name"))
    )


def _call_identity_table(events: list[dict[str, Any]]) -> bool:
    """What the table said of §2.7's call identity: an item added with a `call_id` or `name`,
    and an item (any) done."""
    added = any(e.get("type") == _ADDED and _named_call(e.get("item")) for e in events)
    return added and any(e.get("type") == "response.output_item.done" for e in events)


def _call_done(events: list[dict[str, Any]]) -> bool:
    """Where the rule evaluates: the `output_item.done` of an item added with a `call_id` or
    `name`, which it compares with them."""
    named = {
        e.get("output_index") for e in events if e.get("type") == _ADDED and _named_call(e["item"])
    }
    return any(
        e.get("type") == "response.output_item.done" and e.get("output_index") in named
        for e in events
    )


def _output_items_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §2.9 checks: every item closed once an item was added and the
    stream ended `completed` or `incomplete`, the output compared once it ended and an item was
    done."""
    types = [e["type"] for e in events if isinstance(e.get("type"), str)]
    terminal = [t for t in types if t in _TERMINAL]
    out = set()
    if _ADDED in types and terminal and terminal[-1] != "response.failed":
        out.add("stream.item.closed_before_terminal")
    if terminal and "response.output_item.done" in types:
        out.add("stream.output.equals_items")
    return out


# The `.done` events of a value with deltas (a part's text, a summary's, a single value).
_VALUE_DONE = tuple(
    f"response.{family}.done"
    for family in (
        "output_text", "refusal", "reasoning_text", "reasoning_summary_text",
        "function_call_arguments", "custom_tool_call_input", "mcp_call_arguments",
        "code_interpreter_call_code", "apply_patch_call_operation_diff", "shell_call_command",
        "shell_call_output_content",
    )
)  # fmt: skip


def _annotated(parts: Any) -> bool:
    return isinstance(parts, list) and any(
        isinstance(p, dict) and p.get("annotations") for p in parts
    )


def _values_agree_table(events: list[dict[str, Any]]) -> set[str]:
    """What the table said of the §2.8 checks but content_matches: a value's `.done`, a part's
    or summary part's `.done`, annotations streamed or held by a part or a finished item, an
    `output_text.done` with logprobs."""
    out = set()
    for e in events:
        etype = e.get("type")
        if not isinstance(etype, str):
            continue
        if etype in _VALUE_DONE:
            out.add("stream.text.deltas_equal_done")
        if etype in ("response.content_part.done", "response.reasoning_summary_part.done"):
            out.add("stream.text.done_equals_part")
        if (
            etype == "response.output_text.annotation.added"
            or (etype == "response.content_part.done" and _annotated([e.get("part")]))
            or (
                etype == "response.output_item.done"
                and isinstance(e.get("item"), dict)
                and _annotated(e["item"].get("content"))
            )
        ):
            out.add("stream.text.annotations_match")
        logprobs = e.get("logprobs")
        if etype == "response.output_text.done" and logprobs and isinstance(logprobs, list):
            out.add("stream.logprobs.deltas_equal_done")
    return out


def _content_table(events: list[dict[str, Any]]) -> bool:
    """What the table said of content_matches: an item done, and an event inside an item."""
    types = {e["type"] for e in events if isinstance(e.get("type"), str)}
    return "response.output_item.done" in types and any(t.startswith(_INNER) for t in types)


def _content_compared(events: list[dict[str, Any]]) -> bool:
    """Where the rule runs: an `output_item.done` after an event inside an item."""
    inner = False
    for e in events:
        etype = e.get("type")
        if etype == "response.output_item.done" and inner:
            return True
        inner = inner or (isinstance(etype, str) and etype.startswith(_INNER))
    return False


def _carries_opaque(events: list[dict[str, Any]]) -> bool:
    return any(
        e.get("type") == "response.output_item.done"
        and any(e["item"].get(k) is not None for k in ("encrypted_content", "fingerprint"))
        for e in events
    )


def test_real_streams_exercise_the_section_checks_as_before() -> None:
    # The table that said so (conformance/validator/exercised.py) marked the sequence checks for
    # any stream with an event judged, the identity checks for one with two lifecycle events; the
    # rules' own marks agree on every recording, whole and cut after one and two events.
    stream_checks = {
        c.id
        for _, c in _CHECKS
        if EXAMPLES[c.id].failing.kind == "stream" and EXAMPLES[c.id].failing.request is None
    }
    assert stream_checks - _TOOLS == (
        _SEQUENCE
        | _IDENTITY
        | _LIFECYCLE
        | _OUTPUT_INDEX
        | _ITEMS_OPENED
        | _IDENTITY_ITEMS
        | _INSIDE_ITEM
        | _OUTPUT_ITEMS
        | _VALUES_AGREE
        | _EVENT
        | {_OPAQUE, _ERROR, _INCOMPLETE, _PART_FITS, _ID_PREFIX, _CALL_IDENTITY, _CONTENT}
        | {_OPENRESPONSES_TYPES}
        | _ORDER_REFINEMENTS
    )
    for recording in load_recordings():
        assert exercised(recording.events) >= _SEQUENCE | _IDENTITY, recording.name
        # the lifecycle rules (§2.2, §2.3) and the output index's (§2.5): as the table said,
        # whole and cut after 1 to 3 events and before the second item
        added = [i for i, e in enumerate(recording.events) if e.get("type") == _ADDED]
        # (and §2.6: after the first delta of each type, which the fast path judges)
        first_deltas = {
            e["type"]: i + 1 for i, e in reversed(list(enumerate(recording.events)))
            if e.get("type", "").endswith(".delta")
        }  # fmt: skip
        cuts = (1, 2, 3, *added[1:2], *(n + 1 for n in added[1:2]), *first_deltas.values())
        for events in (recording.events, *(recording.events[:n] for n in cuts)):
            got = exercised(events)
            assert got & _LIFECYCLE == _lifecycle_table(events), recording.name
            assert got & _OUTPUT_INDEX == _output_index_table(events), recording.name
            assert got & _ITEMS_OPENED == _items_opened_table(events), recording.name
            assert got & _IDENTITY_ITEMS == _identity_table(events), recording.name
            assert got & _INSIDE_ITEM == _inside_item_table(events), recording.name
            # §1, §1.3, §1a: as the table said, for any stream with a typed event judged; the
            # Open Responses names only under their profile
            assert got & _EVENT == (_EVENT if events else set()), recording.name
            assert _OPENRESPONSES_TYPES not in got, recording.name
            # §2.6's order refinements: exactly where their parent is applied
            assert got & _ORDER_REFINEMENTS == {
                r for r in _ORDER_REFINEMENTS if REGISTRY[r].parent in got
            }, recording.name
            # §2.10: applied where an item is done `incomplete` or the terminal output holds one
            assert (_INCOMPLETE in got) == _holds_incomplete(events), recording.name
            # §2.11: applied where a part opens, or the terminal output holds an item's parts
            assert (_PART_FITS in got) == _holds_parts(events), recording.name
            # §2.14: applied at every `output_item.added`, as the table said
            added_any = any(e.get("type") == _ADDED for e in events)
            assert (_ID_PREFIX in got) == added_any, recording.name
            assert got & _OUTPUT_ITEMS == _output_items_table(events), recording.name
            assert got & _VALUES_AGREE == _values_agree_table(events), recording.name
        # §2.7's call identity: applied at the `output_item.done` of a call added with a
        # `call_id` or `name`, which is what the table said of every whole recording; a stream
        # cut before that done event, after another item's, has had nothing compared (the table
        # counted any item done).
        assert _call_done(recording.events) == _call_identity_table(recording.events)
        # §2.8's content_matches: applied at an `output_item.done` once the stream carried an
        # event inside an item, which is what the table said of every whole recording; a stream
        # cut after an item done with nothing streamed (a reasoning item), inside the next one,
        # has had nothing compared yet (the table counted an event inside an item anywhere).
        assert _content_compared(recording.events) == _content_table(recording.events)
        done = [
            i
            for i, e in enumerate(recording.events)
            if e.get("type") == "response.output_item.done"
        ]
        for n in (len(recording.events), *done, *(i + 1 for i in done)):
            events = recording.events[:n]
            got = exercised(events)
            assert (_CALL_IDENTITY in got) == _call_done(events), recording.name
            assert (_CONTENT in got) == _content_compared(events), recording.name
            assert got & _VALUES_AGREE == _values_agree_table(events), recording.name
        one = exercised(recording.events[:1])
        assert one >= _SEQUENCE and not _IDENTITY & one, recording.name
        if all("response" in e for e in recording.events[:2]):
            assert exercised(recording.events[:2]) >= _IDENTITY, recording.name
        # the opaque rule: applied exactly where an item carries an opaque value (25 items)
        assert (_OPAQUE in exercised(recording.events)) == _carries_opaque(recording.events)
        # the error rule: applied where the stream holds an `error` event, as the table said
        has_error = any(e.get("type") == "error" for e in recording.events)
        assert (_ERROR in exercised(recording.events)) == has_error, recording.name
    assert not (_SEQUENCE | _IDENTITY | {_OPAQUE, _ERROR}) & exercised([])
    # an empty stream is judged for its end only
    assert exercised([]) & _LIFECYCLE == {"stream.lifecycle.terminal_present"}


# The per-tool rules' checks (§1.5, §1.7): tests/conformance/sections/test_tool_sections.py.
_TOOLS = {
    "stream.annotation.offsets",
    "stream.hosted.progress_order",
    "stream.hosted.failed_status",
    "stream.image.partial_image_index",
}


def test_the_event_checks_are_applied_on_typed_events_and_openresponses_under_its_profile() -> None:
    recording = load_recordings()[0]
    validator = StreamValidator(coverage=True, profiles=("core", "openresponses"))
    for event in recording.events[:2]:
        validator.feed(event)
    validator.close()
    assert validator.exercised >= _EVENT | {_OPENRESPONSES_TYPES}
    # events without a string type: none of them was looked up or held to a schema; the one
    # check they break is exercised by its report
    untyped = StreamValidator(coverage=True, profiles=("core", "openresponses"))
    for event in ({"sequence_number": 0}, ["not", "an", "object"]):
        untyped.feed(event)
    untyped.close()
    assert untyped.exercised & (_EVENT | {_OPENRESPONSES_TYPES}) == {"event.type.present"}
    assert "event.type.present" in {v.check.id for v in untyped.violations}


def test_a_resumed_stream_applies_created_first_only_where_it_reports() -> None:
    # §2.12/§7.6: a resumed stream has no `response.created` to open it, so the check is not
    # applied to it (as the table said), unless it replays `response.created`, which fails it.
    events = [
        {"type": "response.in_progress", "sequence_number": 1, "response": {"id": "r"}},
        {"type": "response.created", "sequence_number": 2, "response": {"id": "r"}},
    ]
    replayed = StreamValidator(coverage=True, resume_after=0)
    for event in events:
        replayed.feed(event)
    replayed.close()
    assert "stream.lifecycle.created_first" in {v.check_id for v in replayed.violations}
    assert "stream.lifecycle.created_first" in replayed.exercised
    clean = StreamValidator(coverage=True, resume_after=0)
    clean.feed(events[0])
    clean.close()
    assert "stream.lifecycle.created_first" not in clean.exercised
    assert _lifecycle_table(events[:1], resumed=True) == clean.exercised & _LIFECYCLE


def test_a_cancelled_stream_was_judged_for_its_end() -> None:
    # §2.13: a cancelled background stream may end without a terminal event; the rule was
    # evaluated (and excused it), as the table said of every stream.
    validator = StreamValidator(coverage=True)
    validator.feed({"type": "response.created", "sequence_number": 0, "response": {"id": "r"}})
    validator.close(cancelled=True)
    assert "stream.lifecycle.terminal_present" in validator.exercised
    assert "stream.lifecycle.terminal_present" not in {v.check_id for v in validator.violations}


def test_a_stream_of_untyped_events_applied_the_sequence_rule() -> None:
    # The rule evaluated these events' numbers (and reported the gap); the old table, which
    # counted only typed events, called the checks not exercised.
    validator = StreamValidator(coverage=True)
    events: list[dict[str, Any]] = [{"sequence_number": 0}, {"sequence_number": 2}]
    for event in events:
        validator.feed(event)
    validator.close()
    assert "stream.sequence.contiguous" in {v.check_id for v in validator.violations}
    assert "stream.sequence.start" in validator.exercised
