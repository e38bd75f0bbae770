"""The validator's fast path for delta events judges exactly as the full path does.

`StreamValidator.feed` hands most deltas to a fast handler that either proves the event breaks no
rule or leaves everything untouched for the full path. Any difference in verdicts between the two
would be a hole only the fast path has, so every mutant of every recording is judged both ways.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest
from mutations import Event, Recording, generate, load_recordings, renumbered

from conformance import SSEStreamValidator
from conformance.sse import decoder as sse_decoder
from conformance.validator import StreamValidator


def _verdicts(events: list[dict[str, Any]], *, fast: bool) -> list[tuple[Any, ...]]:
    validator = StreamValidator(fast=fast)
    for event in events:
        validator.feed(event)
    validator.close()
    return [(v.check_id, v.event_index, v.path, v.expected, v.actual) for v in validator.violations]


def test_fast_path_is_taken() -> None:
    # Guard against the fast path silently never running (then this file would prove nothing).
    recording = next(r for r in load_recordings() if r.name.startswith("azure-text"))
    validator = StreamValidator()
    reference = StreamValidator(fast=False)
    for event in recording.events:
        validator.feed(event)
        reference.feed(event)
    assert not validator.close() and not validator.violations
    assert not reference.close() and not reference.violations
    deltas = sum(e["type"] == "response.output_text.delta" for e in recording.events)
    assert validator.fast_judged == deltas > 0
    assert reference.fast_judged == 0


# Deltas of a content or summary part: real recordings hold runs of them.
_PART_DELTAS = frozenset({
    "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta",
    "response.reasoning_summary_text.delta",
})  # fmt: skip


def split_deltas(recording: Recording) -> Recording:
    """The same stream with each delta of a value (arguments, code, a command, a diff) sent as
    two (``"ls -a"`` as ``"ls"``, ``" -a"``), renumbered: what a server that flushes smaller
    pieces sends, so it breaks no rule. Real recordings often stream a hosted call's code or
    arguments in one delta, so the deltas after a value's first (the ones the fast path
    routes) occur in them only here."""
    out: list[Event] = []
    for event in recording.events:
        delta = event.get("delta")
        etype = event.get("type")
        if (
            isinstance(etype, str)
            and etype.endswith(".delta")
            and etype not in _PART_DELTAS
            and isinstance(delta, str)
            and len(delta) >= 2
        ):
            cut = len(delta) // 2
            out += [{**event, "delta": delta[:cut]}, {**event, "delta": delta[cut:]}]
        else:
            out.append(event)
    return Recording(recording.name + "+split", tuple(renumbered(out)))


def _with_split_deltas() -> list[Any]:
    """The recordings, and again each one that streams a value, its deltas split in two."""
    recordings = load_recordings()
    split = [split_deltas(r) for r in recordings]
    return recordings + [s for s, r in zip(split, recordings, strict=True) if s.events != r.events]


def test_split_deltas_break_no_rule() -> None:
    # The near miss of every delta mutant: smaller pieces of the same value are judged alike.
    changed = 0
    for recording in load_recordings():
        split = split_deltas(recording)
        changed += split.events != recording.events
        for fast in (True, False):
            whole = {c for c, *_ in _verdicts(list(recording.events), fast=fast)}
            assert {c for c, *_ in _verdicts(list(split.events), fast=fast)} == whole, split.name
    assert changed >= 10


def test_fast_and_full_paths_agree_on_every_mutant() -> None:
    recordings = _with_split_deltas()
    compared = 0
    for recording in recordings:
        events = list(recording.events)
        assert _verdicts(events, fast=True) == _verdicts(events, fast=False)
    for mutant in generate(recordings):
        fast, full = _verdicts(mutant.events, fast=True), _verdicts(mutant.events, fast=False)
        assert fast == full, mutant.name
        compared += 1
    assert compared > 2000


# --- the typed path: delta bytes decoded straight into typed objects ---------------------------
#
# `SSEStreamValidator` decodes a delta that continues the current route with a typed decoder
# (`SchemaValidator.event_decoder`), which parses and checks the schema in one step; the reference
# is `fast=False`: every event parsed into a dict and judged in full. Both must judge every
# mutant, and every byte-level oddity of JSON, alike — also when the caller keeps the events or
# takes each delta (`keep_events`, `on_delta`), which must not change a verdict or an event.


def _sse(events: list[Any]) -> bytes:
    return b"".join(
        b"event: "
        + (
            e.get("type") if isinstance(e, dict) and isinstance(e.get("type"), str) else "x"
        ).encode()
        + b"\ndata: "
        + orjson.dumps(e)
        + b"\n\n"
        for e in events
    )


def _sse_verdicts(
    body: bytes, *, typed: bool, chunk: int = 1 << 16, keep: bool = False
) -> list[tuple[Any, ...]]:
    judge = SSEStreamValidator(fast=typed, keep_events=keep)
    for i in range(0, len(body), chunk):
        judge.feed(body[i : i + chunk])
    judge.close()
    return [(v.check_id, v.event_index, v.path, v.expected, v.actual) for v in judge.violations]


def _per_event(events: list[Any]) -> list[bytes]:
    return [_sse([e]) for e in events]


def test_typed_path_is_taken() -> None:
    recording = next(r for r in load_recordings() if r.name.startswith("azure-text"))
    events = list(recording.events)
    deltas = sum(e["type"] == "response.output_text.delta" for e in events)
    # Whole body at once, and one event per chunk (the lane of `SSEStreamValidator.feed`).
    for chunks in ([_sse(events)], _per_event(events)):
        seen: list[tuple[str, Any]] = []
        judge = SSEStreamValidator(keep_events=True, on_delta=lambda t, d, s=seen: s.append((t, d)))
        for chunk in chunks:
            judge.feed(chunk)
        judge.close()
        assert not judge.violations
        # Every delta was judged without a dict (the typed path), yet kept and handed over.
        assert judge.validator.fast_judged == deltas > 0
        assert judge.validator.events == len(events)
        assert judge.events == events
        assert seen == [(e["type"], e.get("delta")) for e in events if e["type"].endswith(".delta")]
    reference = SSEStreamValidator(fast=False)
    reference.feed(_sse(events))
    reference.close()
    assert reference.validator.fast_judged == 0 and not reference.violations


def test_typed_and_reference_paths_agree_on_every_mutant() -> None:
    recordings = _with_split_deltas()
    compared = 0
    for recording in recordings:
        body = _sse(list(recording.events))
        assert _sse_verdicts(body, typed=True) == _sse_verdicts(body, typed=False)
    for n, mutant in enumerate(generate(recordings)):
        body = _sse(mutant.events)
        typed, reference = _sse_verdicts(body, typed=True), _sse_verdicts(body, typed=False)
        assert typed == reference, mutant.name
        if n % 7 == 0:
            # One event per chunk (the lane), keeping the events: the same verdicts.
            judge = SSEStreamValidator(keep_events=True)
            for chunk in _per_event(mutant.events):
                judge.feed(chunk)
            judge.close()
            lane = [
                (v.check_id, v.event_index, v.path, v.expected, v.actual) for v in judge.violations
            ]
            assert lane == reference, mutant.name
        compared += 1
    assert compared > 2000


_DELTA = (
    b'{"type":"response.output_text.delta","content_index":0,"delta":"DELTA","item_id":"ITEM",'
    b'"logprobs":[],"obfuscation":"abc","output_index":0,"sequence_number":SEQ}'
)
# Byte-level variants of one delta's JSON, each applied to the whole payload: every way the typed
# decoder and orjson/json could part company (types, numbers, strings, duplicates, escapes).
_EDITS: list[tuple[bytes, bytes]] = [
    (b'"delta":"DELTA"', b'"delta":"a\\u00e9\\ud83d\\ude00\\n"'),  # escapes, a surrogate pair
    (b'"delta":"DELTA"', b'"delta":"\\ud800"'),  # a lone surrogate escape
    (b'"delta":"DELTA"', b'"delta":"\xff\xfe"'),  # invalid UTF-8 in a checked string
    (b'"obfuscation":"abc"', b'"obfuscation":"\xff"'),  # invalid UTF-8 in a skipped one
    (b'"obfuscation":"abc"', b'"obfuscation":"\xed\xa0\x80"'),  # UTF-8 of a surrogate
    (b'"obfuscation":"abc"', b'"obfuscation":1e400'),  # a float out of range
    (b'"obfuscation":"abc"', b'"obfuscation":NaN'),
    (b'"obfuscation":"abc"', b'"obfuscation":"a\x01b"'),  # a raw control character
    (b'"obfuscation":"abc"', b'"obfuscation":[1,]'),
    (b'"obfuscation":"abc"', b'"obfuscation":' + b"[" * 2000 + b"]" * 2000),
    (b'"content_index":0', b'"content_index":0.0'),
    (b'"content_index":0', b'"content_index":-0'),
    (b'"content_index":0', b'"content_index":false'),
    (b'"content_index":0', b'"content_index":1e0'),
    (b'"content_index":0', b'"content_index":00'),
    (b'"output_index":0', b'"output_index":0,"output_index":1'),  # duplicates: the last counts
    (b'"output_index":0', b'"output_index":1,"output_index":0'),
    (b'"output_index":0', b'"output_index":"0","output_index":0'),
    (b'"delta":"DELTA"', b'"delta":"DELTA","delta":null'),
    (b'"delta":"DELTA"', b'"\\u0064elta":"DELTA"'),  # an escaped key
    (b'"delta":"DELTA"', b'"delta":"DELTA","command_index":0'),
    (b'"logprobs":[]', b'"logprobs":[{"token":"a","logprob":-1,"top_logprobs":[]}]'),
    (b'"logprobs":[]', b'"logprobs":[{"token":"a","logprob":true,"top_logprobs":[]}]'),
    (b'"logprobs":[]', b'"logprobs":[{"token":"a","logprob":-1,"top_logprobs":[{"logprob":1}]}]'),
    (b'"logprobs":[]', b'"logprobs":[{"token":"a","logprob":-1,"top_logprobs":[{"token":1}]}]'),
    (b'"logprobs":[]', b'"logprobs":[{"token":"a"}]'),
    (b'"logprobs":[]', b'"logprobs":null'),
    (b'"sequence_number":SEQ', b'"sequence_number":SEQ.0'),
    (b'"sequence_number":SEQ', b'"sequence_number":SEQ00000000000000000000000'),
    (b'"type":"response.output_text.delta"', b'"type":"response.output_text.delta "'),
    (b'"type":"response.output_text.delta"', b'"type":"response.output_text.\\u0064elta"'),
    (b'{"type"', b' \t{"type"'),  # whitespace around the object
    (b'"sequence_number":SEQ}', b'"sequence_number":SEQ} '),
    (b'"sequence_number":SEQ}', b'"sequence_number":SEQ}x'),
    (b'"item_id":"ITEM"', b'"item_id":"ITEM","item_id":"ITEM"'),
    (b'"item_id":"ITEM"', b'"item_id":null'),
]


def test_typed_and_reference_paths_agree_on_json_oddities() -> None:
    recording = next(r for r in load_recordings() if r.name.startswith("azure-text"))
    events = list(recording.events)
    deltas = [i for i, e in enumerate(events) if e["type"] == "response.output_text.delta"]
    item_id = events[deltas[0]]["item_id"].encode()
    for old, new in _EDITS:
        for position in (deltas[0], deltas[len(deltas) // 2], deltas[-1]):
            payloads = [orjson.dumps(e) for e in events]
            seq = str(events[position]["sequence_number"]).encode()
            template = _DELTA.replace(old, new)
            payloads[position] = (
                template.replace(b"SEQ", seq).replace(b"ITEM", item_id).replace(b"DELTA", b"x")
            )
            # The item's finished text must still match for the delta to be judged on its own.
            body = b"".join(
                b"event: " + e["type"].encode() + b"\ndata: " + p + b"\n\n"
                for e, p in zip(events, payloads, strict=True)
            )
            for chunk in (1 << 16, 97):
                typed = _sse_verdicts(body, typed=True, chunk=chunk)
                reference = _sse_verdicts(body, typed=False, chunk=chunk)
                assert typed == reference, (new, position, chunk)


def test_lane_keeps_the_decoder_limits() -> None:
    # The lane takes one-event chunks without calling the decoder (`SSEDecoder.lane_room`,
    # `count_taken`): under an event-count or event-size bound, one event per chunk must give
    # the verdicts and the abort that the reference path (no lane) gives, at bounds around
    # the stream.
    recording = max(
        load_recordings(), key=lambda r: sum(e["type"].endswith(".delta") for e in r.events)
    )
    events = list(recording.events)
    first = next(i for i, e in enumerate(events) if e["type"].endswith(".delta"))
    chunks = _per_event(events)
    sizes = sorted({len(c) for c in chunks})

    def run(parts: list[bytes], fast: bool = True, **limits: int) -> tuple[Any, ...]:
        judge = SSEStreamValidator(fast=fast, **limits)
        for part in parts:
            judge.feed(part)
        judge.close()
        found = [(v.check_id, v.event_index, v.actual) for v in judge.violations]
        return (found, judge.aborted, judge.validator.events, judge.validator.fast_judged > 0)

    for limits in (
        *(
            {"max_events": n}
            for n in (1, 2, first + 1, first + 3, first + 10, len(events) - 1, len(events))
        ),
        *({"max_event_bytes": n} for n in (sizes[0], sizes[len(sizes) // 2], sizes[-1] - 1)),
    ):
        reference = run(chunks, fast=False, **limits)
        lane = run(chunks, **limits)
        assert lane[:3] == reference[:3], limits
    # Guard: without limits the lane judges the deltas typed.
    assert run(chunks)[3]


def test_lane_leaves_every_other_chunk_to_the_decoder() -> None:
    # The lane's own test of a chunk (`SSEStreamValidator.feed`): a chunk that continues a run
    # of deltas but is not one canonical block of that type (a CR or a second line in the data,
    # one LF short, a truncated head, a bytearray, two blocks at once) goes to the decoder,
    # with the verdicts the reference path gives for the same chunks.
    recording = max(
        load_recordings(), key=lambda r: sum(e["type"].endswith(".delta") for e in r.events)
    )
    chunks = _per_event(list(recording.events))
    first = next(i for i, c in enumerate(chunks) if b".delta\n" in c.split(b"\n", 1)[0] + b"\n")
    at = first + 3  # a delta that continues a run
    block = chunks[at]
    head, _, rest = block.partition(b"\ndata: ")
    head += b"\ndata: "
    variants: dict[str, list[bytes]] = {
        "cr-in-data": [head + rest[:-2].replace(b'"delta"', b'"delta"\r', 1) + b"\n\n"],
        "crlf-ends": [head + rest[:-2] + b"\r\n\r\n"],
        "lf-in-data": [head + rest[:5] + b"\ndata: " + rest[5:]],
        "one-lf-short": [block[:-1], b"\n"],
        "head-only": [head[:5], head[5:] + rest],
        "bytearray": [bytearray(block)],
        "two-at-once": [block + chunks[at + 1]],
        "empty-data": [head + b"\n\n"],
    }
    for name, replacement in variants.items():
        parts = chunks[:at] + replacement + chunks[at + 1 + (name == "two-at-once") :]

        def run(fast: bool, parts: list[bytes] = parts) -> list[tuple[Any, ...]]:
            judge = SSEStreamValidator(fast=fast)
            for part in parts:
                judge.feed(part)
            judge.close()
            return [(v.check_id, v.event_index, v.path, v.actual) for v in judge.violations]

        assert run(True) == run(False), name


def test_no_lane_after_close_or_abort() -> None:
    # A stream that ends on a run of deltas leaves the lane set; once closed (or aborted) every
    # later chunk is ignored, a continuing delta too.
    recording = max(
        load_recordings(), key=lambda r: sum(e["type"].endswith(".delta") for e in r.events)
    )
    chunks = _per_event(list(recording.events))
    at = next(i for i, c in enumerate(chunks) if b".delta\n" in c.split(b"\n", 1)[0] + b"\n") + 3
    for limits in ({}, {"max_events": at - 1}):
        judge = SSEStreamValidator(**limits)
        for chunk in chunks[:at]:
            judge.feed(chunk)
        if limits:
            assert judge.aborted is not None
        else:
            judge.close()
        before = (judge.validator.events, list(judge.violations), judge.tallied)
        assert judge.feed(chunks[at]) == []
        assert (judge.validator.events, list(judge.violations), judge.tallied) == before


# --- the tool rules a delta is subject to -----------------------------------------------------
#
# A hosted call's streamed value (code, MCP arguments) after the call's `.completed` / `.failed`
# breaks its progress order (`stream.hosted.progress_order`, conformance/sections/s1_7_hosted_tools.py). The fast
# routes once skipped the tool rules, so such late deltas passed on every fast path.

_RESPONSE = {
    "id": "resp_1", "object": "response", "created_at": 1, "status": "in_progress",
    "model": "m", "output": [], "parallel_tool_calls": True, "tool_choice": "auto",
    "tools": [], "temperature": 1.0, "top_p": 1.0, "metadata": {}, "error": None,
    "incomplete_details": None, "instructions": None, "usage": None,
}  # fmt: skip
_CALLS = {
    "code_interpreter_call": (
        {"id": "ci_1", "type": "code_interpreter_call", "status": "in_progress", "code": "",
         "container_id": "c", "outputs": None},
        "response.code_interpreter_call_code.delta",
    ),
    "mcp_call": (
        {"id": "mcp_1", "type": "mcp_call", "status": "in_progress", "arguments": "",
         "name": "f", "server_label": "s"},
        "response.mcp_call_arguments.delta",
    ),
}  # fmt: skip


def _late_deltas(kind: str, end: str) -> list[dict[str, Any]]:
    item, delta = _CALLS[kind]
    named = {"output_index": 0, "item_id": item["id"]}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": _RESPONSE},
        {"type": "response.in_progress", "response": _RESPONSE},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": f"response.{kind}.in_progress", **named},
        {"type": delta, **named, "delta": "a"},
        {"type": f"response.{kind}.{end}", **named},
        {"type": delta, **named, "delta": "b"},
        {"type": delta, **named, "delta": "c"},
    ]
    return [{**event, "sequence_number": i} for i, event in enumerate(events)]


def _framed_verdicts(events: list[dict[str, Any]], *, fast: bool, per_event: bool) -> list[Any]:
    body = [
        b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events
    ]
    sse = SSEStreamValidator(fast=fast)
    for chunk in body if per_event else [b"".join(body)]:
        sse.feed(chunk)
    sse.close()
    return [(v.check_id, v.event_index) for v in sse.validator.violations]


@pytest.mark.parametrize(
    ("kind", "end"),
    [("code_interpreter_call", "completed"), ("mcp_call", "completed"), ("mcp_call", "failed")],
)
def test_a_late_hosted_delta_is_caught_on_every_path(kind: str, end: str) -> None:
    events = _late_deltas(kind, end)
    late = [("stream.hosted.progress_order", 6), ("stream.hosted.progress_order", 7)]
    reference = _verdicts(events, fast=False)
    assert [(c, i) for c, i, *_ in reference if c.startswith("stream.hosted")] == late
    assert _verdicts(events, fast=True) == reference  # the dict fast path
    for per_event in (False, True):  # the typed hot loop, and the one-event lane
        got = _framed_verdicts(events, fast=True, per_event=per_event)
        assert got == _framed_verdicts(events, fast=False, per_event=per_event)
        assert [v for v in got if v[0].startswith("stream.hosted")] == late


def test_hosted_deltas_before_the_end_stay_on_the_fast_path() -> None:
    # The near miss: the same deltas before `.completed` break nothing, and take the fast path.
    item, delta = _CALLS["code_interpreter_call"]
    events = _late_deltas("code_interpreter_call", "completed")[:5]
    more = {"type": delta, "output_index": 0, "item_id": item["id"], "delta": "z"}
    events += [{**more, "sequence_number": 5 + i} for i in range(3)]
    validator = StreamValidator()
    for event in events:
        validator.feed(event)
    assert not validator.violations
    assert validator.fast_judged == 3


# --- shell commands: value streams keyed by `command_index`, each opened by `.added` ----------

_SHELL = {"id": "sh_1", "type": "shell_call", "status": "in_progress", "call_id": "c1",
          "action": {"commands": [], "max_output_length": None, "timeout_ms": None}}  # fmt: skip


def _shell(*steps: tuple[str, int, str]) -> list[dict[str, Any]]:
    """A stream of one shell call; each step is (event suffix, command_index, delta)."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": _RESPONSE},
        {"type": "response.in_progress", "response": _RESPONSE},
        {"type": "response.output_item.added", "output_index": 0, "item": _SHELL},
    ]
    for suffix, ci, text in steps:
        event: dict[str, Any] = {
            "type": f"response.shell_call_command.{suffix}",
            "output_index": 0,
            "command_index": ci,
        }
        event["command" if suffix != "delta" else "delta"] = text
        events.append(event)
    return [{**event, "sequence_number": i} for i, event in enumerate(events)]


def _all_paths(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The verdicts of the reference path, asserting every other path gives them too; less the
    missing terminal event (these streams stop before their end)."""
    reference = _verdicts(events, fast=False)
    assert _verdicts(events, fast=True) == reference
    for per_event in (False, True):
        got = _framed_verdicts(events, fast=True, per_event=per_event)
        assert got == _framed_verdicts(events, fast=False, per_event=per_event)
        assert got == [(c, i) for c, i, *_ in reference]
    return [(c, i) for c, i, *_ in reference if c != "stream.lifecycle.terminal_present"]


def test_shell_command_deltas_take_the_fast_path() -> None:
    events = _shell(("added", 0, ""), ("delta", 0, "ls"), ("delta", 0, " -l"), ("delta", 0, " /"))
    assert _all_paths(events) == []
    validator = StreamValidator()
    for event in events:
        validator.feed(event)
    assert validator.fast_judged == 3  # `.added` opened the value: every delta continues it
    sse = SSEStreamValidator()
    sse.feed(_sse(events))
    assert sse.validator.fast_judged == 3


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        # a delta after its command's `.done`
        ([("added", 0, ""), ("delta", 0, "a"), ("delta", 0, "b"), ("done", 0, "ab"),
          ("delta", 0, "c")], [("stream.arguments.order", 7)]),
        # a second command's deltas before its `.added`
        ([("added", 0, ""), ("delta", 0, "a"), ("delta", 0, "b"), ("delta", 1, "c"),
          ("delta", 1, "d")], [("stream.arguments.added_first", 6)]),
        # the near miss: deltas to the older of two open commands break nothing
        ([("added", 0, ""), ("delta", 0, "a"), ("added", 1, ""), ("delta", 1, "b"),
          ("delta", 1, "c"), ("delta", 0, "d"), ("delta", 0, "e"), ("done", 0, "ade"),
          ("done", 1, "bc")], []),
    ],
)  # fmt: skip
def test_shell_command_deltas_off_the_route(
    steps: list[tuple[str, int, str]], expected: list[tuple[str, int]]
) -> None:
    assert _all_paths(_shell(*steps)) == expected


def test_a_shell_delta_that_names_an_item_is_judged_on_the_full_path() -> None:
    events = _shell(("added", 0, ""), ("delta", 0, "a"), ("delta", 0, "b"), ("delta", 0, "c"))
    events[5]["item_id"] = "sh_2"  # the second delta names another item
    events[6]["item_id"] = "sh_1"  # the third names its own: no finding
    assert _all_paths(events) == [("stream.item.item_id_matches", 5)]


# --- the second corpus: 390 real streams, judged on every path -------------------------------

_CORPUS2 = Path(__file__).parents[2] / "data" / "openai-recorded-2"


def _corpus2_streams() -> list[tuple[str, bytes, int | None]]:
    with (_CORPUS2 / "MANIFEST.tsv").open(encoding="utf-8", newline="") as f:
        rows = [row for row in csv.DictReader(f, delimiter="\t") if row["kind"] == "stream"]
    return [
        (
            row["file"],
            (_CORPUS2 / row["file"]).read_bytes(),
            int(row["resume_after"]) if row["resume_after"].strip() else None,
        )
        for row in rows
    ]


def _bytes_verdicts(
    chunks: list[bytes], *, fast: bool, resume_after: int | None
) -> tuple[list[tuple[Any, ...]], int]:
    """The verdicts, and how many events the fast paths judged."""
    judge = SSEStreamValidator(fast=fast, resume_after=resume_after)
    for chunk in chunks:
        judge.feed(chunk)
    judge.close()
    verdicts = [(v.check_id, v.event_index, v.path, v.expected, v.actual) for v in judge.violations]
    return verdicts, judge.validator.fast_judged


def test_fast_and_reference_paths_agree_on_the_second_corpus() -> None:
    # Real streams from ten projects' cassettes (legacy ones without sequence numbers, resumed
    # ones, CRLF line ends): the typed loop (64 KiB reads), the one-event lane (a read per
    # event) and a 97-byte chunking each give exactly the reference path's verdicts.
    streams = _corpus2_streams()
    assert len(streams) >= 390
    events = fast_judged = findings = 0
    for name, body, resume_after in streams:
        whole = [body[i : i + (1 << 16)] for i in range(0, len(body), 1 << 16)]
        reference, none = _bytes_verdicts(whole, fast=False, resume_after=resume_after)
        assert none == 0
        per_event = re.split(b"(?<=\n\n)|(?<=\r\n\r\n)", body)
        small = [body[i : i + 97] for i in range(0, len(body), 97)]
        for chunks in (whole, per_event, small):
            got, judged = _bytes_verdicts(chunks, fast=True, resume_after=resume_after)
            assert got == reference, name
            fast_judged += judged
        events += len(per_event)
        findings += len(reference)
    # Not vacuous: in each of the three chunkings most events took a fast path (84 % of them
    # at the time of writing), and the legacy streams hold findings (510).
    assert fast_judged > 3 * events * 2 // 3 and findings > 100


def test_every_partial_line_ended_where_it_lies_on_the_second_corpus() -> None:
    # The decoder's long-line path (`_end_long_line`, taken from 32 KiB) for every partial line:
    # each stream in 97-byte reads against the stream fed whole (no partial line at all).
    with mock.patch.object(sse_decoder, "_LONG_LINE", 1):
        for name, body, resume_after in _corpus2_streams():
            reference, _ = _bytes_verdicts([body], fast=False, resume_after=resume_after)
            small = [body[i : i + 97] for i in range(0, len(body), 97)]
            assert _bytes_verdicts(small, fast=True, resume_after=resume_after)[0] == reference, (
                name
            )
