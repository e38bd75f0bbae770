"""The judge's kill rate over mutants of every real OpenAI recording.

Every mutant that changes protocol meaning must be caught — at least one MUST or SHOULD violation.
A mutant is *equivalent* only by one of the rules below, each a precise predicate over the recording
and the mutant with the reason it changes no protocol meaning. A survivor that no rule covers is a
bug in the judge: fix the judge, never widen a rule to hide it. Equivalent mutants must also pass the
judge — flagging one would be a false positive.

The per-operator table is printed (``pytest -s``) and written to ``mutation-report.json`` in the
pytest base temp directory (``--basetemp`` to choose it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

import pytest
from mutations import (
    OPERATORS,
    Event,
    Mutant,
    Recording,
    caught,
    generate,
    judge,
    load_recordings,
)

from conformance.catalog.registry import Level, with_family

# ---------------------------------------------------------------------------- equivalence rules


def _strip(event: Event) -> Event:
    return {k: v for k, v in event.items() if k != "sequence_number"}


def _same_but_number(a: Event | None, b: Event | None) -> bool:
    if a is b:
        return True
    if a is None or b is None or a.keys() != b.keys():
        return False
    return all(a[k] == b[k] for k in a if k != "sequence_number")


def _numbered_like(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    """The mutant keeps SPEC §2.1's counter intact: 0, 1, 2, … from the recording's first number."""
    start = original[0].get("sequence_number") if original else 0
    if type(start) is not int:
        return False
    return [e.get("sequence_number") for e in mutant] == [start + i for i in range(len(mutant))]


def _diff_paths(a: Any, b: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The JSON paths where ``a`` and ``b`` differ (a key present on one side only included)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            if key not in a or key not in b:
                yield (*path, key)
            elif a[key] != b[key]:
                yield from _diff_paths(a[key], b[key], (*path, key))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _diff_paths(x, y, (*path, i))
    elif a != b or type(a) is not type(b):
        yield path


def _event_diffs(
    original: Sequence[Event], mutant: Sequence[Event]
) -> list[tuple[int, tuple[Any, ...]]] | None:
    """(event index, path) of every difference between two streams of equal length, else None."""
    if len(original) != len(mutant):
        return None
    return [
        (i, path)
        for i, (a, b) in enumerate(zip(original, mutant, strict=True))
        if a is not b and a != b
        for path in _diff_paths(a, b)
    ]


# Rule "opaque field". SPEC §1: unknown and extra fields are allowed and `obfuscation` is padding
# that varies per event; SPEC §2.9: `encrypted_content` and `fingerprint` are opaque blobs that
# OpenAI itself changes between `output_item.done` and the terminal output. A client never reads
# them for meaning, so a mutant that changes only their values says the same thing.
_OPAQUE = frozenset({"obfuscation", "encrypted_content", "fingerprint"})


def _rule_opaque_field(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    diffs = _event_diffs(original, mutant)
    return bool(diffs) and all(path and path[-1] in _OPAQUE for _, path in diffs or ())


# Rule "usage detail within bounds". SPEC §3 constrains `cached_tokens` and `reasoning_tokens`
# only by bounds (0 ≤ cached ≤ input, 0 ≤ reasoning ≤ output) and says a single stream with
# reasoning text and `reasoning_tokens = 0` is not a violation; their true values are server-side
# facts no stream carries evidence of (the cross-request usage MUSTs belong to the live suite).
# A mutant that moves one of them by one *inside* those bounds is another truthful-looking
# accounting, not a protocol defect. Moving one *out of* bounds is a defect and is not covered.
_DETAIL_COUNTS = {
    ("response", "usage", "input_tokens_details", "cached_tokens"): "input_tokens",
    ("response", "usage", "output_tokens_details", "reasoning_tokens"): "output_tokens",
}


def _rule_usage_detail_within_bounds(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    diffs = _event_diffs(original, mutant)
    if not diffs or any(path not in _DETAIL_COUNTS for _, path in diffs):
        return False
    for index, path in diffs:
        usage = mutant[index]["response"]["usage"]
        value, bound = usage[path[2]][path[3]], usage[_DETAIL_COUNTS[path]]
        if not (type(value) is int and type(bound) is int and 0 <= value <= bound):
            return False
    return True


# Rule "hosted-tool progress event". `response.<tool>.in_progress|searching|interpreting|
# generating|partial_image|completed|failed` carry nothing but `item_id` and `output_index` (a
# `partial_image` adds a preview the request may ask for 0–3 of); the item's content and final
# status travel in `output_item.added` / `.done` (SPEC §2.6, §2.9), which no such mutant touches.
# SPEC.md states no rule on their presence, number or order — [REC] itself omits some
# (`azure-web-search-preview-tool.1` has no `web_search_call.completed`,
# `azure-image-generation-tool.1` no `image_generation_call.completed`) — and the SDK accumulator
# ignores them. The rule covers only mutants that keep every other event as recorded, keep the
# counter contiguous, and keep each progress event, unchanged, inside its own item (after its
# `output_item.added`, before its `output_item.done`: SPEC §2.4, §2.7 do constrain that).
# (The ordering rule that was missing here is §1.7 now: see _progress_in_order below.)
_PROGRESS = frozenset(
    f"response.{tool}.{status}"
    for tool in ("web_search_call", "file_search_call", "code_interpreter_call",
                 "image_generation_call", "mcp_call", "mcp_list_tools")
    for status in ("in_progress", "searching", "interpreting", "generating", "partial_image",
                   "completed", "failed")
)  # fmt: skip


def _is_progress(event: Event) -> bool:
    return event.get("type") in _PROGRESS


def _inside_own_item(events: Sequence[Event], position: int) -> bool:
    """Event ``position`` comes after its item's `output_item.added` (same output_index, the item
    id it names) and before that item's `output_item.done`."""
    event = events[position]
    oi, item_id = event.get("output_index"), event.get("item_id")
    added = [
        i
        for i, e in enumerate(events[:position])
        if e.get("type") == "response.output_item.added"
        and e.get("output_index") == oi
        and e.get("item", {}).get("id") == item_id
    ]
    done = [
        i
        for i, e in enumerate(events)
        if e.get("type") == "response.output_item.done" and e.get("output_index") == oi
    ]
    return bool(added) and len(done) == 1 and added[0] < position < done[0]


def _floating_only(
    original: Sequence[Event],
    mutant: Sequence[Event],
    floating: Callable[[Event], bool],
    *,
    same_multiset: bool,
    inside: Callable[[Sequence[Event], int], bool],
) -> bool:
    """The mutant differs from the recording only in where (and, unless ``same_multiset``, how
    often) ``floating`` events occur, each an unchanged copy of a recorded one, each ``inside``."""
    first = next(
        (
            i
            for i, (a, b) in enumerate(zip(original, mutant, strict=False))
            if not _same_but_number(a, b)
        ),
        min(len(original), len(mutant)),
    )
    at_first = [*original[first : first + 1], *mutant[first : first + 1]]
    if not any(floating(e) for e in at_first):
        return False  # the first change is not to a floating event
    fixed_o = (e for e in original if not floating(e))
    fixed_m = (e for e in mutant if not floating(e))
    if not all(_same_but_number(a, b) for a, b in zip_longest(fixed_o, fixed_m)):
        return False
    if not _numbered_like(original, mutant):
        return False
    float_o = [_strip(e) for e in original if floating(e)]
    float_m = [_strip(e) for e in mutant if floating(e)]
    if same_multiset:
        if sorted(map(_key, float_o)) != sorted(map(_key, float_m)):
            return False
    elif not all(e in float_o for e in float_m):
        return False
    return all(inside(mutant, i) for i, e in enumerate(mutant) if floating(e))


def _key(event: Event) -> str:
    return json.dumps(event, sort_keys=True)


# docs/spec.md §1.7 (stream.hosted.progress_order, stream.image.partial_image_index) now states
# the order: in_progress → searching / interpreting / generating / partial_image → completed or
# failed, code and MCP argument events before the end, partial images numbered 0, 1, …; a stage
# may be missing or repeated. A mutant that breaks that order is a defect, not equivalent.
_STAGE_RANK = {
    "in_progress": 0, "searching": 1, "interpreting": 1, "generating": 1, "partial_image": 2,
    "completed": 3, "failed": 3,
}  # fmt: skip
_WORKING = ("response.code_interpreter_call_code.", "response.mcp_call_arguments.")


def _progress_in_order(events: Sequence[Event]) -> bool:
    seen: dict[Any, tuple[int, str, int]] = {}  # item id -> (rank, last stage, partial images)
    for event in events:
        etype = str(event.get("type"))
        item = event.get("item_id")
        rank, stage, images = seen.get(item, (-1, "", 0))
        if etype.startswith(_WORKING):
            if rank == 3:
                return False
            continue
        if not _is_progress(event):
            continue
        now = etype.rsplit(".", 1)[1]
        if rank == 3 and now != stage:
            return False
        if _STAGE_RANK[now] < rank:
            return False
        if now == "partial_image":
            if event.get("partial_image_index") != images:
                return False
            images += 1
        seen[item] = (max(rank, _STAGE_RANK[now]), now, images)
    return True


def _rule_progress_event(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    return _floating_only(
        original, mutant, _is_progress, same_multiset=False, inside=_inside_own_item
    ) and _progress_in_order(mutant)


# Rule "annotation among its part's deltas". An `output_text.annotation.added` carries its own
# `start_index` / `end_index` into the part's final text and its `annotation_index`; SPEC §2.6
# orders a part's deltas against its `content_part.added` / `.done`, not against its annotations.
# A mutant that only moves annotations within their own open part — every annotation present
# once, unchanged, still in annotation_index order, after the part's `content_part.added` and
# before its `content_part.done` — says the same thing. Dropping, repeating or reordering
# annotations is not covered (the judge catches those: `stream.text.annotations_match`).
def _is_annotation(event: Event) -> bool:
    return event.get("type") == "response.output_text.annotation.added"


def _inside_own_part(events: Sequence[Event], position: int) -> bool:
    event = events[position]
    where = (event.get("output_index"), event.get("content_index"))

    def at(etype: str) -> list[int]:
        return [
            i
            for i, e in enumerate(events)
            if e.get("type") == etype and (e.get("output_index"), e.get("content_index")) == where
        ]

    added, done = at("response.content_part.added"), at("response.content_part.done")
    return len(added) == 1 and len(done) == 1 and added[0] < position < done[0]


def _rule_annotation_position(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    if not _floating_only(
        original, mutant, _is_annotation, same_multiset=True, inside=_inside_own_part
    ):
        return False
    order = [_strip(e) for e in mutant if _is_annotation(e)]
    return order == [_strip(e) for e in original if _is_annotation(e)]


# Rule "error event before response.failed". SPEC §1: an `error` is followed by exactly one
# `response.failed`, whose `response.error` carries the same `{code, message}`; no SPEC rule makes
# the `error` event itself required before `response.failed`. Dropping an `error` that is
# immediately followed by a `response.failed` restating its code and message leaves the failure
# and its cause announced, by the event every client already handles.
def _error_fields(event: Event) -> tuple[Any, Any]:
    nested = event.get("error")
    body: Event = nested if isinstance(nested, dict) else event
    return body.get("code"), body.get("message")


def _rule_error_restated(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    if len(mutant) != len(original) - 1 or not _numbered_like(original, mutant):
        return False
    stripped = [_strip(e) for e in mutant]
    for k, event in enumerate(original[:-1]):
        if event.get("type") != "error":
            continue
        failed = original[k + 1]
        if failed.get("type") != "response.failed":
            continue
        restated = failed.get("response", {}).get("error") or {}
        if _error_fields(event) != (restated.get("code"), restated.get("message")):
            continue
        if [_strip(e) for e in (*original[:k], *original[k + 1 :])] == stripped:
            return True
    return False


# Rule "a value whole in its .done". docs/spec.md §2.8 (issue #32): a single-valued stream
# (arguments, custom tool input, MCP arguments, interpreter code, patch diffs, shell commands) may
# deliver its value whole in its `.done` with no delta at all — OpenAI's Codex backend sends
# function-call arguments so (pi #2745). Dropping the *only* delta of such a value leaves exactly
# that stream. Dropping one of several deltas is not covered (the deltas no longer join to the
# `.done`: `stream.text.deltas_equal_done`).
_SINGLE_VALUED = (
    "response.function_call_arguments.", "response.custom_tool_call_input.",
    "response.mcp_call_arguments.", "response.code_interpreter_call_code.",
    "response.apply_patch_call_operation_diff.", "response.shell_call_command.",
)  # fmt: skip


def _value_key(event: Event) -> tuple[Any, ...] | None:
    etype = str(event.get("type"))
    if not etype.endswith(".delta") or not etype.startswith(_SINGLE_VALUED):
        return None
    return etype, event.get("item_id"), event.get("output_index"), event.get("command_index")


def _rule_value_whole_in_done(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    if len(mutant) != len(original) - 1 or not _numbered_like(original, mutant):
        return False
    stripped = [_strip(e) for e in mutant]
    for k, event in enumerate(original):
        key = _value_key(event)
        if key is None or sum(_value_key(e) == key for e in original) != 1:
            continue
        if [_strip(e) for e in (*original[:k], *original[k + 1 :])] == stripped:
            return True
    return False


# Rule "a listing the terminal output closes". docs/spec.md §2.9 (issue #32): with several MCP
# servers OpenAI sends `output_item.done` only for the last `mcp_list_tools`; the terminal output
# closes a listing left without one when it holds an item of that id and type at the listing's
# `output_index`. Dropping such a listing's `output_item.done`, when the terminal output holds it
# there, leaves exactly that stream. Any other item type's `output_item.done` is not covered.
def _listing_done(event: Event) -> bool:
    item = event.get("item")
    return (
        event.get("type") == "response.output_item.done"
        and isinstance(item, dict)
        and item.get("type") == "mcp_list_tools"
    )


def _terminal_holds(events: Sequence[Event], event: Event) -> bool:
    item, index = event["item"], event.get("output_index")
    for terminal in events:
        if terminal.get("type") not in ("response.completed", "response.incomplete"):
            continue
        output = (terminal.get("response") or {}).get("output")
        if isinstance(output, list) and isinstance(index, int) and 0 <= index < len(output):
            final = output[index]
            return isinstance(final, dict) and (final.get("id"), final.get("type")) == (
                item.get("id"),
                item.get("type"),
            )
    return False


def _rule_listing_closed_by_terminal(original: Sequence[Event], mutant: Sequence[Event]) -> bool:
    if len(mutant) != len(original) - 1 or not _numbered_like(original, mutant):
        return False
    stripped = [_strip(e) for e in mutant]
    for k, event in enumerate(original):
        if not _listing_done(event) or not _terminal_holds(original, event):
            continue
        if [_strip(e) for e in (*original[:k], *original[k + 1 :])] == stripped:
            return True
    return False


EQUIVALENCE_RULES: dict[str, Callable[[Sequence[Event], Sequence[Event]], bool]] = {
    "opaque field": _rule_opaque_field,
    "usage detail within bounds": _rule_usage_detail_within_bounds,
    "hosted-tool progress event": _rule_progress_event,
    "annotation among its part's deltas": _rule_annotation_position,
    "error event before response.failed": _rule_error_restated,
    "a value whole in its .done": _rule_value_whole_in_done,
    "a listing the terminal output closes": _rule_listing_closed_by_terminal,
}


def equivalence(original: Sequence[Event], mutant: Sequence[Event]) -> str | None:
    """The name of the rule that makes ``mutant`` equivalent to ``original``, or None."""
    for name, rule in EQUIVALENCE_RULES.items():
        if rule(original, mutant):
            return name
    return None


# ---------------------------------------------------------------------------- the run


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    operator: str
    family: str
    equivalent: str | None
    caught: bool
    check_ids: tuple[str, ...]  # the MUST/SHOULD checks that fired


@pytest.fixture(scope="module")
def recordings() -> list[Recording]:
    return load_recordings()


@pytest.fixture(scope="module")
def outcomes(recordings: list[Recording]) -> list[Outcome]:
    originals = {r.name: r.events for r in recordings}
    out = []
    for mutant in generate(recordings):
        violations = judge(mutant.events)
        out.append(_outcome(mutant, originals[mutant.recording], violations))
    return out


def _outcome(mutant: Mutant, original: Sequence[Event], violations: list[Any]) -> Outcome:
    failing = sorted({v.check_id for v in violations if v.level in (Level.MUST, Level.SHOULD)})
    return Outcome(
        name=mutant.name,
        operator=mutant.operator,
        family=mutant.family,
        equivalent=equivalence(original, mutant.events),
        caught=caught(violations),
        check_ids=tuple(failing),
    )


def _report(outcomes: list[Outcome]) -> dict[str, Any]:
    per_operator: dict[str, dict[str, Any]] = {}
    for op in OPERATORS:
        mine = [o for o in outcomes if o.operator == op.name]
        counted = [o for o in mine if o.equivalent is None]
        killed = sum(o.caught for o in counted)
        per_operator[op.name] = {
            "family": op.family,
            "mutants": len(mine),
            "equivalent": len(mine) - len(counted),
            "counted": len(counted),
            "killed": killed,
            "kill_rate": killed / len(counted) if counted else None,
        }
    counted = [o for o in outcomes if o.equivalent is None]
    killed = sum(o.caught for o in counted)
    rules: dict[str, int] = {}
    for o in outcomes:
        if o.equivalent is not None:
            rules[o.equivalent] = rules.get(o.equivalent, 0) + 1
    return {
        "mutants": len(outcomes),
        "equivalent": len(outcomes) - len(counted),
        "counted": len(counted),
        "killed": killed,
        "kill_rate": killed / len(counted) if counted else None,
        "equivalent_by_rule": rules,
        "per_operator": per_operator,
        "survivors": [o.name for o in counted if not o.caught],
    }


def _table(report: dict[str, Any]) -> str:
    lines = [f"{'operator':24} {'family':10} {'mutants':>7} {'equiv':>6} {'killed':>13}  rate"]
    for name, row in report["per_operator"].items():
        rate = "-" if row["kill_rate"] is None else f"{row['kill_rate']:.1%}"
        lines.append(
            f"{name:24} {row['family']:10} {row['mutants']:>7} {row['equivalent']:>6} "
            f"{row['killed']:>6}/{row['counted']:<6} {rate}"
        )
    lines.append(
        f"{'TOTAL':24} {'':10} {report['mutants']:>7} {report['equivalent']:>6} "
        f"{report['killed']:>6}/{report['counted']:<6} {report['kill_rate']:.2%}"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------- expected IDs

# The checks each operator's mutants must fire (at least one of them): a mutant counts as caught
# by the rule it breaks, not by whatever else happens to fire. The structural
# operators break the order of whatever event they hit, so their set is the ordering rules.
_ORDER = frozenset({
    "stream.lifecycle.created_first", "stream.lifecycle.in_progress_second",
    "stream.lifecycle.unique", "stream.lifecycle.terminal_present",
    "stream.lifecycle.after_terminal", "stream.sequence.start", "stream.item.added_before_use",
    "stream.item.added_once", "stream.item.done_once", "stream.item.closed_before_terminal",
    "stream.item.no_interleave", "stream.output_index.contiguous", "stream.output.equals_items",
    "stream.part.added_before_use", "stream.part.order", "stream.part.closed",
    "stream.part.content_index", "stream.summary.part_added", "stream.summary.order",
    "stream.summary.index", "stream.arguments.order", "stream.arguments.added_first",
    "stream.text.deltas_equal_done", "stream.text.annotations_match",
    "stream.error.followed_by_failed",
    # docs/spec.md §1.7: a hosted call's progress order and partial image numbering
    "stream.hosted.progress_order", "stream.image.partial_image_index",
})  # fmt: skip
EXPECTED: dict[str, frozenset[str]] = {
    "drop_event": _ORDER,
    "duplicate_event": _ORDER,
    "swap_adjacent": _ORDER,
    "move_event": _ORDER,
    "truncate": frozenset({"stream.lifecycle.terminal_present"}),
    "seq_plus_one": frozenset({"stream.sequence.contiguous"}),
    "seq_minus_one": frozenset({"stream.sequence.contiguous"}),
    "seq_repeat": frozenset({"stream.sequence.contiguous"}),
    "seq_remove": frozenset({"stream.sequence.present"}),
    "response_id": frozenset({"stream.response.id_stable"}),
    "item_id_added": frozenset({"stream.item.done_matches_added"}),
    "item_id_done": frozenset({"stream.item.done_matches_added"}),
    "inner_item_id": frozenset({"stream.item.item_id_matches"}),
    "output_index": frozenset(
        {
            "stream.item.added_before_use",
            "stream.output_index.contiguous",
            "stream.item.added_once",
            "stream.item.done_once",
            "stream.output.equals_items",
            "stream.item.done_matches_added",
            "stream.item.item_id_matches",
        }
    ),
    "content_index": frozenset({"stream.part.content_index"}),
    "summary_index": frozenset({"stream.summary.index"}),
    "delta_text": frozenset({"stream.text.deltas_equal_done"}),
    "done_text": frozenset({"stream.text.deltas_equal_done"}),
    "part_done_text": frozenset({"stream.text.done_equals_part"}),
    "item_done_text": frozenset({"stream.item.content_matches", "stream.output.equals_items"}),
    "terminal_output_text": frozenset({"stream.output.equals_items"}),
    "item_text_consistent": frozenset({"stream.item.content_matches"}),
    "terminal_status": frozenset({"stream.response.terminal_status"}),
    "terminal_item_status": frozenset({"stream.output.equals_items"}),
    "done_item_status": frozenset({"stream.output.equals_items"}),
    "item_type": frozenset({"stream.item.done_matches_added"}),
    "terminal_event_type": frozenset({"stream.response.terminal_status"}),
    "usage_count": frozenset({"usage.total", "usage.integers"}),
    "usage_zero": frozenset({"usage.output_nonzero"}),
    "usage_drop_details": frozenset({"usage.details_present"}),
    "created_at": frozenset({"stream.response.created_at_stable"}),
    "opaque_field": frozenset(),  # every mutant of it is equivalent (opaque fields are exempt)
}


# ---------------------------------------------------------------------------- tests


def test_every_mutant_fires_its_operator_check(outcomes: list[Outcome]) -> None:
    """A counted mutant is caught by a check its operator breaks (``EXPECTED``), not merely by
    some violation."""
    assert set(EXPECTED) == {op.name for op in OPERATORS}
    missed = [
        (o.name, o.check_ids)
        for o in outcomes
        if o.equivalent is None and not with_family(set(o.check_ids)) & EXPECTED[o.operator]
    ]
    assert missed == [], missed[:20]
    fired = with_family({cid for o in outcomes if o.equivalent is None for cid in o.check_ids})
    named = set().union(*EXPECTED.values())
    assert named <= fired, f"expected IDs no mutant fires: {sorted(named - fired)}"


def test_recordings_are_clean(recordings: list[Recording]) -> None:
    """The kill rate means something only if every unmutated recording passes the judge."""
    assert [r.name for r in recordings if caught(judge(r.events))] == []


def test_every_operator_strikes(outcomes: list[Outcome], recordings: list[Recording]) -> None:
    """Every operator yields mutants, and every recording is mutated by every family that
    applies to any stream (structure, sequence, ids, statuses, usage)."""
    assert {o.operator for o in outcomes} == {op.name for op in OPERATORS}
    for recording in recordings:
        families = {o.family for o in outcomes if o.name.startswith(recording.name + " / ")}
        assert {"structure", "sequence", "ids", "status"} <= families, recording.name


def test_kill_rate_is_total(
    outcomes: list[Outcome],
    tmp_path_factory: pytest.TempPathFactory,
    record_property: Callable[[str, object], None],
) -> None:
    report = _report(outcomes)
    path = tmp_path_factory.getbasetemp() / "mutation-report.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    record_property("kill_rate", report["kill_rate"])
    record_property("mutants_counted", report["counted"])
    print(f"\nmutation kill rate (report: {path})\n{_table(report)}")
    # A few thousand mutants keep the run fast and still reach every operator and recording.
    assert 2_000 <= report["mutants"] <= 12_000
    assert report["survivors"] == [], "\n" + _table(report)


def test_equivalent_mutants_pass_the_judge(outcomes: list[Outcome]) -> None:
    """An equivalence rule claims the mutant means what the recording means; if the judge flags
    one, either the rule or the judge is wrong."""
    flagged = [(o.name, o.equivalent, o.check_ids) for o in outcomes if o.equivalent and o.caught]
    assert flagged == []


def test_generation_is_deterministic(recordings: list[Recording]) -> None:
    sample = recordings[:3]
    first = [m.name for m in generate(sample)]
    assert first == [m.name for m in generate(sample)]
    assert first
