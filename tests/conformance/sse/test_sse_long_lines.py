"""A long line read in many chunks (a big event's `data:` line) is interpreted where it lies
(`SSEDecoder._end_long_line`), not joined to the chunk that ends it: the same events, counts and
errors as the line rules give it, in every chunking."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sse_streams import common_heavy_blocks, decode_split, expected_events, random_streams

from conformance.sse import SSEDecoder, SSEEvent, SSELimitError
from conformance.sse import decoder as decoder_module
from conformance.sse.framing import SSEStreamValidator

BIG = 100_000  # well past the threshold (32 KiB)


@contextmanager
def every_partial_line_is_long() -> Iterator[None]:
    """Every partial line ended by a later chunk takes the long-line path."""
    with mock.patch.object(decoder_module, "_LONG_LINE", 1):
        yield


@contextmanager
def counting_long_lines() -> Iterator[list[int]]:
    calls: list[int] = []
    original = SSEDecoder._end_long_line

    def spy(self: SSEDecoder, chunk: bytes | bytearray) -> bytes | bytearray:
        calls.append(len(self._partial))
        return original(self, chunk)

    with mock.patch.object(SSEDecoder, "_end_long_line", spy):
        yield calls


def decode_state(stream: bytes, chunk: int | None, **limits: int) -> tuple[object, ...]:
    """Events, comments and bytes seen (or the limit error's fields) of ``stream`` fed whole
    (``chunk`` None: no partial line, the line rules alone) or ``chunk`` bytes at a time."""
    decoder = SSEDecoder(**limits)
    events: list[SSEEvent] = []
    try:
        if chunk is None:
            events += decoder.feed(stream)
        else:
            for start in range(0, len(stream), chunk):
                events += decoder.feed(stream[start : start + chunk])
        events += decoder.close()
    except SSELimitError as error:
        # (Not the events returned before: fed whole, the error comes before any of them.)
        return ("error", error.kind, error.limit, error.actual, error.index)
    return (events, decoder.comments, decoder.bytes_seen)


# --- properties: with every partial line "long", every chunking gives the rules' events --------


@settings(deadline=None, max_examples=300)
@given(random_streams(), st.lists(st.integers(0, 10_000), max_size=12))
def test_random_streams_in_random_chunks(
    case: tuple[bytes, list[SSEEvent], int], cuts: list[int]
) -> None:
    stream, expected, largest = case
    cuts = [cut % (len(stream) + 1) for cut in cuts]
    with every_partial_line_is_long():
        assert decode_split(stream, cuts) == expected
        assert decode_split(stream, cuts, max_event_bytes=max(largest, 1)) == expected
        if largest > 1:
            with pytest.raises(SSELimitError) as info:
                decode_split(stream, cuts, max_event_bytes=largest - 1)
            assert info.value.kind == "event_size"


@settings(deadline=None, max_examples=200)
@given(common_heavy_blocks(), st.lists(st.integers(0, 10_000), max_size=8))
def test_runs_of_common_blocks_in_random_chunks(blocks: list[list[str]], cuts: list[int]) -> None:
    stream = b"".join(line.encode() + b"\n" for block in blocks for line in [*block, ""])
    with every_partial_line_is_long():
        assert decode_split(stream, [cut % (len(stream) + 1) for cut in cuts]) == expected_events(
            blocks
        )


# --- real sizes: each kind of long line, fed 1 KiB at a time, against the stream fed whole ------

_TEXT = "é世🙂 plain text " * (BIG // 16)  # multibyte characters cut by the chunk boundaries
LONG_LINES = {
    "data": b"data: " + b"x" * BIG + b"\n\n",
    "data, no space": b"data:" + b"x" * BIG + b"\n\n",
    "data, two spaces": b"data:  " + b"x" * BIG + b"\n\n",
    "data, multibyte": b"data: " + _TEXT.encode() + b"\n\n",
    "data, invalid UTF-8": b"data: " + (b"ab\xe2\x82 \xff" * (BIG // 6)) + b"\n\n",
    "event and data": b"event: response.completed\ndata: " + b"y" * BIG + b"\n\n",
    "long event name": b"event: " + b"e" * BIG + b"\ndata: {}\n\n",
    "two long data lines": b"data: " + b"a" * BIG + b"\ndata: " + b"b" * BIG + b"\n\n",
    "long id": b"id: " + b"i" * BIG + b"\ndata: 1\n\n",
    "long id with NUL": b"id: " + b"i" * BIG + b"\x00\ndata: 1\n\n",
    "long retry": b"retry: " + b"7" * BIG + b"\ndata: 1\n\n",
    "long comment": b":" + b"c" * BIG + b"\ndata: 1\n\n",
    "long unknown field": b"datum: " + b"x" * BIG + b"\ndata: 1\n\n",
    "long line without colon": b"data" + b"x" * BIG + b"\ndata: 1\n\n",
    "CRLF": b"event: e\r\ndata: " + b"z" * BIG + b"\r\n\r\n",
    "CR": b"data: " + b"z" * BIG + b"\r\rdata: 2\r\r",
    "then more events": b"data: " + b"x" * BIG + b"\n\nevent: e\ndata: {}\n\n: ping\n\n",
    "unterminated": b"data: " + b"x" * BIG,
    "ended at close": b"data: " + b"x" * BIG + b"\n",
}


@pytest.mark.parametrize("chunk", [1024, 1000, 4099])
@pytest.mark.parametrize("name", list(LONG_LINES))
def test_a_long_line_decodes_as_the_rules_say(name: str, chunk: int) -> None:
    stream = LONG_LINES[name]
    with counting_long_lines() as calls:
        assert decode_state(stream, chunk) == decode_state(stream, None)
    # The path is taken (not for a line the stream never ends: close() ends that one).
    assert calls if name != "unterminated" else not calls


def test_the_long_line_values() -> None:
    # Independently of the line rules' code: what the fields hold.
    decoded = decode_state(LONG_LINES["data, two spaces"], 1024)
    assert decoded[0] == [SSEEvent(" " + "x" * BIG, index=0)]
    decoded = decode_state(LONG_LINES["data, multibyte"], 1024)
    assert decoded[0] == [SSEEvent(_TEXT, index=0)]
    decoded = decode_state(LONG_LINES["long retry"], 1024)  # past int()'s digits: ignored
    assert decoded[0] == [SSEEvent("1", index=0)]
    decoded = decode_state(LONG_LINES["long id with NUL"], 1024)
    assert decoded[0] == [SSEEvent("1", index=0)]
    decoded = decode_state(LONG_LINES["long comment"], 1024)
    assert decoded[1] == 1
    assert decode_state(b"retry: 1" + b"0" * 40_000 + b"\n", 1024)[0] == []


def test_a_short_partial_line_is_joined() -> None:
    # The near miss: a line under the threshold takes the join path.
    stream = b"data: " + b"x" * 20_000 + b"\n\n"
    with counting_long_lines() as calls:
        assert decode_state(stream, 1024) == decode_state(stream, None)
    assert calls == []


@pytest.mark.parametrize("chunk", [1024, 777])
@pytest.mark.parametrize("slack", [-1, 0, 1])
def test_the_size_bound_at_a_long_line(chunk: int, slack: int) -> None:
    # The event's size (lines and line ends) against a bound one byte short, exact, one over: the
    # same error, with the same fields, as the line rules give, or the same events.
    stream = b"data: 1\n\nevent: e\ndata: " + b"x" * BIG + b"\n\n"
    size = len(b"event: e\ndata: ") + BIG + 1
    limit = size + slack
    fed_whole = decode_state(stream, None, max_event_bytes=limit)
    assert decode_state(stream, chunk, max_event_bytes=limit) == fed_whole
    assert (fed_whole[0] == "error") == (slack < 0)


def test_the_judge_reads_a_big_event_in_small_reads() -> None:
    text = "word " * (BIG // 5)
    response = (
        '{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m",'
        '"output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant",'
        '"content":[{"type":"output_text","text":"' + text + '","annotations":[]}]}]}'
    )
    stream = (
        b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
        b'"response":{"id":"resp_1","object":"response","created_at":1,"status":"in_progress",'
        b'"model":"m","output":[]}}\n\n'
        b"event: response.completed\ndata: "
        + ('{"type":"response.completed","sequence_number":1,"response":' + response + "}").encode()
        + b"\n\n"
    )

    def judge(chunk: int | None) -> list[tuple[str, str]]:
        validator = SSEStreamValidator()
        if chunk is None:
            validator.feed(stream)
        else:
            for start in range(0, len(stream), chunk):
                validator.feed(stream[start : start + chunk])
        return sorted((v.check_id, v.message) for v in validator.close())

    with counting_long_lines() as calls:
        assert judge(1024) == judge(None)
    assert calls
