"""The framing layer's lane takes a chunk exactly as the decoder would, or leaves it alone.

`SSEStreamValidator.feed` takes a one-event chunk that continues a run of deltas itself, testing
it as the decoder's canonical block (`event: <name>\\ndata: <json>\\n\\n`, no CR, within the size
bound) and reporting what it took with `SSEDecoder.count_taken` within `SSEDecoder.lane_room`;
every other chunk goes to `SSEDecoder.feed_records`. Driven so, in any chunking of any stream
and under any limit, the judge must give what the reference path (`fast=False`: no lane, every
chunk decoded) gives: the same violations, the same abort, the same decoder counters.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st
from mutations import load_recordings

from conformance import SSEStreamValidator


def _block(event: dict[str, Any]) -> bytes:
    return b"event: " + event["type"].encode() + b"\ndata: " + orjson.dumps(event) + b"\n\n"


_RECORDING = max(
    load_recordings(), key=lambda r: sum(e["type"].endswith(".delta") for e in r.events)
)
_BLOCKS = [_block(e) for e in _RECORDING.events]
_FIRST_DELTA = next(i for i, e in enumerate(_RECORDING.events) if e["type"].endswith(".delta"))


_LONG = max(len(b) for b in _BLOCKS) + 1  # a block this long is over `max_event_bytes=_LONG - 1`


def _variants(event: dict[str, Any]) -> list[bytes | list[bytes]]:
    """A chunk as it is, or as what a server may send in its place, as one chunk or several."""
    block = _block(event)
    long = _block({**event, "delta": "x" * _LONG}) if "delta" in event else block
    head, _, rest = block.partition(b"\ndata: ")
    head += b"\ndata: "
    return [
        block,
        [block[:-1], b"\n"],  # one LF short, then the LF
        [head[:5], head[5:] + rest],  # the head cut
        head + rest[:-2] + b"\r\n\r\n",  # CRLF line ends
        head + rest[:-2] + b"\n\r",  # LF then a lone CR
        head + rest[:7] + b"\ndata: " + rest[7:],  # a second data line
        head + rest[:7] + b"\r" + rest[7:],  # a CR inside the data
        long,  # over the size bound below
        b": keep-alive\n\n" + block,  # a comment first
        block.replace(b"event: ", b"event:", 1),  # no space after the colon
        block.replace(b"\ndata: ", b"\nid: 7\ndata: ", 1),  # an id line
        block.replace(b'"sequence_number":', b'"sequence_number": ', 1),  # other JSON bytes
        head + b"[DONE]\n\n",  # [DONE] where a delta was
        head + b"\n\n",  # empty data
        bytearray(block),
    ]


def _run(chunks: list[bytes], *, fast: bool, **limits: int) -> tuple[Any, ...]:
    judge = SSEStreamValidator(fast=fast, **limits)
    for chunk in chunks:
        judge.feed(chunk)
    judge.close()
    # The lane reports what it took to the decoder before the decoder is next called (here by
    # `close`): its counters are compared then.
    counters = (judge._decoder.bytes_seen, judge._decoder.comments)
    found = [(v.check_id, v.event_index, v.path, v.expected, v.actual) for v in judge.violations]
    return found, judge.aborted, judge.validator.events, counters


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.integers(_FIRST_DELTA, len(_BLOCKS) - 1), st.integers(0, 14), max_size=6),
    st.lists(st.integers(_FIRST_DELTA, len(_BLOCKS) - 1), max_size=3),
    st.sampled_from(
        [
            {},
            {"max_events": _FIRST_DELTA + 4},
            {"max_events": len(_BLOCKS) - 2},
            {"max_event_bytes": _LONG - 1},
        ]
    ),
)
def test_lane_judges_as_the_reference_path(
    changes: dict[int, int], merged: list[int], limits: dict[str, int]
) -> None:
    chunks: list[bytes] = []
    for i, event in enumerate(_RECORDING.events):
        variant = _variants(event)[changes.get(i, 0)]
        parts = variant if isinstance(variant, list) else [variant]
        if i in merged and chunks and not isinstance(variant, list):
            chunks[-1] = bytes(chunks[-1]) + bytes(parts[0])  # two events in one chunk
        else:
            chunks += parts
    assert _run(chunks, fast=True, **limits) == _run(chunks, fast=False, **limits)


def test_the_lane_is_taken() -> None:
    # Guard: were the lane never to take a chunk, the test above would prove nothing.
    judge = SSEStreamValidator()
    for chunk in _BLOCKS:
        judge.feed(chunk)
    assert not judge.close()
    deltas = sum(e["type"].endswith(".delta") for e in _RECORDING.events)
    assert judge.validator.fast_judged == deltas > 10
    assert judge._decoder.bytes_seen == sum(len(b) for b in _BLOCKS)
