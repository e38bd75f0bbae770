"""The judge's SSE decoder (conformance/sse/decoder.py): WHATWG HTML §9.2.6 rules in any chunking, the two
deviations the judge needs, the bounds, and the recorded OpenAI corpus round-tripped through SSE."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sse_streams import (
    common_heavy_blocks,
    decode_in_chunks,
    decode_split,
    expected_events,
    random_streams,
)

from conformance.sse import SSEDecoder, SSEEvent, SSELimitError, decode_sse

STREAMS = sorted(
    (Path(__file__).parents[2] / "data" / "openai-recorded" / "streams").glob("*.jsonl")
)


def ev(data: str, event: str | None = None, index: int = 0, **fields: object) -> SSEEvent:
    return SSEEvent(data, event, index=index, **fields)  # type: ignore[arg-type]


# --- single rules ---------------------------------------------------------------------------------

RULES: list[tuple[str, bytes, list[SSEEvent]]] = [
    ("lf", b"event: a\ndata: x\n\n", [ev("x", "a")]),
    ("crlf", b"event: a\r\ndata: x\r\n\r\n", [ev("x", "a")]),
    ("cr", b"event: a\rdata: x\r\r", [ev("x", "a")]),
    ("mixed-line-ends", b"event: a\rdata: x\r\ndata: y\n\r", [ev("x\ny", "a")]),
    ("lf-then-cr-is-two-line-ends", b"data: x\n\r", [ev("x")]),
    ("crlf-then-cr", b"data: x\r\n\rdata: y\n\n", [ev("x"), ev("y", index=1)]),
    ("multi-line-data", b"data: a\ndata: b\ndata: c\n\n", [ev("a\nb\nc")]),
    ("empty-data-line-joins", b"data: a\ndata:\ndata: b\n\n", [ev("a\n\nb")]),
    ("no-space-after-colon", b"event:a\ndata:x\n\n", [ev("x", "a")]),
    ("only-one-space-removed", b"event:  a\ndata:  x\n\n", [ev(" x", " a")]),
    ("tab-is-not-a-space", b"data:\tx\n\n", [ev("\tx")]),
    ("colon-in-value", b'event: acme:delta\ndata: {"a": 1}\n\n', [ev('{"a": 1}', "acme:delta")]),
    ("field-without-colon-data", b"data\n\n", [ev("")]),
    ("field-without-colon-event", b"event\ndata: x\n\n", [ev("x", "")]),
    ("empty-data-dispatches", b"data:\n\n", [ev("")]),
    ("empty-event-is-empty-string", b"event:\ndata: x\n\n", [ev("x", "")]),
    ("last-event-line-wins", b"event: a\nevent: b\ndata: x\n\n", [ev("x", "b")]),
    ("unknown-field-ignored", b"foo: bar\nDATA: no\ndata: x\nEvent: no\n\n", [ev("x")]),
    ("space-before-colon-is-another-field", b"data : no\ndata: x\n\n", [ev("x")]),
    ("data-only-stream", b"data: a\n\ndata: b\n\n", [ev("a"), ev("b", index=1)]),
    ("id", b"id: 42\ndata: x\n\n", [ev("x", id="42")]),
    ("empty-id", b"id\ndata: x\n\n", [ev("x", id="")]),
    ("id-with-nul-ignored", b"id: 4\x002\ndata: x\n\n", [ev("x")]),
    ("id-with-nul-keeps-earlier-id", b"id: 1\nid: 2\x00\ndata: x\n\n", [ev("x", id="1")]),
    (
        "id-not-carried-to-next-event",
        b"id: 1\ndata: x\n\ndata: y\n\n",
        [ev("x", id="1"), ev("y", index=1)],
    ),
    ("id-only-block-dispatches-nothing", b"id: 1\n\ndata: y\n\n", [ev("y")]),
    ("retry", b"retry: 1500\ndata: x\n\n", [ev("x", retry=1500)]),
    ("retry-zero", b"retry: 0\ndata: x\n\n", [ev("x", retry=0)]),
    ("retry-not-digits", b"retry: 15s\ndata: x\n\n", [ev("x")]),
    ("retry-negative", b"retry: -1\ndata: x\n\n", [ev("x")]),
    ("retry-empty", b"retry:\ndata: x\n\n", [ev("x")]),
    ("retry-two-spaces", b"retry:  5\ndata: x\n\n", [ev("x")]),
    ("retry-non-ascii-digits", "retry: ١٢\ndata: x\n\n".encode(), [ev("x")]),
    ("retry-too-many-digits", b"retry: " + b"9" * 5000 + b"\ndata: x\n\n", [ev("x")]),
    ("retry-invalid-keeps-earlier", b"retry: 7\nretry: x\ndata: x\n\n", [ev("x", retry=7)]),
    ("comment", b": hello\ndata: x\n\n", [ev("x")]),
    ("comment-inside-event", b"event: a\n: keep-alive\ndata: x\n\n", [ev("x", "a")]),
    ("keep-alive-dispatches-nothing", b": ping\n\n: ping\n\n", []),
    ("empty-comment", b":\n\ndata: x\n\n", [ev("x")]),
    ("event-only-block-dispatches-nothing", b"event: lonely\n\n", []),
    ("event-type-reset-by-empty-block", b"event: lonely\n\ndata: x\n\n", [ev("x")]),
    ("extra-blank-lines", b"\n\ndata: a\n\n\n\n\ndata: b\n\n\n", [ev("a"), ev("b", index=1)]),
    ("done", b"data: [DONE]\n\n", [ev("[DONE]")]),
    ("bom-skipped", b"\xef\xbb\xbfdata: x\n\n", [ev("x")]),
    ("only-one-bom-skipped", b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n", [ev("y")]),
    ("bom-inside-data-kept", b"data: \xef\xbb\xbfx\n\n", [ev("\ufeffx")]),
    ("final-event-without-blank-line", b"data: a\n\ndata: b\n", [ev("a"), ev("b", index=1)]),
    ("final-event-without-line-end", b"data: a\n\nevent: e\ndata: b", [ev("a"), ev("b", "e", 1)]),
    ("final-line-without-end-joins", b"data: a\ndata: b", [ev("a\nb")]),
    ("final-event-after-cr", b"data: a\r", [ev("a")]),
    ("final-comment-only", b"data: a\n\n: bye", [ev("a")]),
    ("empty-stream", b"", []),
    ("only-bom", b"\xef\xbb\xbf", []),
    ("utf-8", "data: café 世 🙂\n\n".encode(), [ev("café 世 🙂")]),
    (
        "unicode-line-separators-are-not-line-ends",
        b"data: " + '{"t":"a\u2028b\u2029c\x85d\x0be\x0cf\x1cg"}'.encode() + b"\n\n",
        [ev('{"t":"a\u2028b\u2029c\x85d\x0be\x0cf\x1cg"}')],
    ),
    ("invalid-utf-8-replaced", b"event: \xff\ndata: a\xfeb\n\n", [ev("a\ufffdb", "\ufffd")]),
    ("truncated-sequence-before-line-end", b"data: \xe4\xb8\ndata: x\n\n", [ev("\ufffd\nx")]),
    (
        "index-counts-dispatched-events",
        b"data: a\n\nevent: x\n\ndata: b\n\n",
        [ev("a"), ev("b", index=1)],
    ),
]


@pytest.mark.parametrize(("stream", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_rule(stream: bytes, expected: list[SSEEvent]) -> None:
    assert decode_sse(stream) == expected


@pytest.mark.parametrize(("stream", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_rule_one_byte_at_a_time(stream: bytes, expected: list[SSEEvent]) -> None:
    assert decode_in_chunks(stream, 1) == expected


@pytest.mark.parametrize(("stream", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_rule_every_split_in_two(stream: bytes, expected: list[SSEEvent]) -> None:
    for cut in range(len(stream) + 1):
        assert decode_split(stream, [cut]) == expected, f"split at {cut}"


def test_keep_alives_are_counted_not_dispatched() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b": ping\n\n:\n\n: ping\n") == []
    assert decoder.comments == 3
    assert decoder.feed(b"data: x\n\n") == [ev("x")]
    assert decoder.close() == []
    assert decoder.comments == 3


def test_bytes_seen_counts_everything_fed() -> None:
    decoder = SSEDecoder()
    chunks = (b"\xef\xbb", b"\xbfdata: x\r", b"\n", b"", b"\r\n: c", b"\n")
    for chunk in chunks:
        decoder.feed(chunk)
    assert decoder.bytes_seen == sum(map(len, chunks)) == 18


def test_cr_dispatches_at_once() -> None:
    # A CR ends its line without waiting for a possible LF.
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\r") == []
    assert decoder.feed(b"\r") == [ev("x")]


@pytest.mark.parametrize("between", [[], [b""], [b"", b""]], ids=["direct", "empty", "two-empty"])
def test_crlf_split_across_chunks_is_one_line_end(between: list[bytes]) -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b"data: x\r")
    for chunk in between:
        events += decoder.feed(chunk)
    # Were the LF a second line end, "x" would be dispatched alone here.
    events += decoder.feed(b"\ndata: y\r")
    assert events == []
    assert decoder.feed(b"\n") == []  # the second half of "y"'s CRLF, not a blank line
    assert decoder.feed(b"\r") == [ev("x\ny")]
    assert decoder.feed(b"\n") == []  # the second half of the blank line's CRLF
    assert decoder.close() == []


def test_bom_split_across_chunks() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"\xef") == []
    assert decoder.feed(b"\xbb") == []
    assert decoder.feed(b"\xbfdata: x\n\n") == [ev("x")]


def test_bom_prefix_that_is_not_a_bom_is_data() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"\xef")
    events = decoder.feed(b"data: x\n\ndata: y\n\n")
    # b"\xefdata" is a field name of its own (with U+FFFD): ignored.
    assert events == [ev("y")]


@pytest.mark.parametrize("text", ["é", "世", "🙂", "a\u2028b", "\u2029", "\x85"])
def test_multibyte_character_split_across_chunks(text: str) -> None:
    stream = f"event: {text}\ndata: {text}{text}\n\n".encode()
    for cut in range(len(stream) + 1):
        for second in range(cut, len(stream) + 1):
            assert decode_split(stream, [cut, second]) == [ev(text * 2, text)], (cut, second)


def test_bytearray_chunks() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(bytearray(b"event: a\r\ndata: x\r\n"))
    events += decoder.feed(bytearray(b"\r\ndata: y"))
    assert events + decoder.close() == [ev("x", "a"), ev("y", index=1)]


def test_close_is_idempotent_and_ends_the_stream() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: x")
    assert decoder.close() == [ev("x")]
    assert decoder.close() == []
    with pytest.raises(RuntimeError):
        decoder.feed(b"data: y\n\n")


def test_close_does_not_dispatch_a_block_without_data() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\n\nevent: e\nid: 3\nretry: 5") == [ev("x")]
    assert decoder.close() == []


def test_decode_sse_is_feed_then_close() -> None:
    stream = b"data: a\n\ndata: b"
    decoder = SSEDecoder()
    assert decode_sse(stream) == decoder.feed(stream) + decoder.close()


# --- every chunking of one rich stream ------------------------------------------------------------

RICH = (
    b"\xef\xbb\xbf"
    b": keep-alive\n"
    b"event: response.created\n"
    b'data: {"type":"response.created","text":"caf\xc3\xa9 \xe4\xb8\x96 \xf0\x9f\x99\x82"}\n'
    b"\n"
    b"event: response.output_text.delta\r\n"
    b'data: {"delta":"a\xe2\x80\xa8b\xe2\x80\xa9c\xc2\x85d"}\r\n'
    b"\r\n"
    b"data: line one\r"
    b"data: line two\r"
    b"data:\r"
    b"data:  indented \xf0\x9f\x99\x82\r"
    b"\r"
    b"data: crlf then cr\r\n"
    b"\r"
    b":\n"
    b"id: 7\n"
    b"retry: 1500\n"
    b"event: x\n"
    b": inside\r\n"
    b"data: with id\n"
    b"\n"
    b"event: no-data\n"
    b"\n"
    b"data: [DONE]\n"
    b"\n"
    b"data: final without blank line"
)
RICH_EVENTS = [
    ev('{"type":"response.created","text":"café 世 🙂"}', "response.created", 0),
    ev('{"delta":"a\u2028b\u2029c\x85d"}', "response.output_text.delta", 1),
    ev("line one\nline two\n\n indented 🙂", index=2),
    ev("crlf then cr", index=3),
    ev("with id", "x", 4, id="7", retry=1500),
    ev("[DONE]", index=5),
    ev("final without blank line", index=6),
]
RICH_VARIANTS = {
    "no-final-line-end": RICH,
    "final-line-end": RICH + b"\n",
    "final-crlf": RICH + b"\r\n",
    "final-blank-line": RICH + b"\n\n",
}
# Below the stream's length but above its largest event: big chunks take the exact size walk.
EXACT_PATH_LIMIT = 200


@pytest.mark.parametrize("variant", RICH_VARIANTS)
@pytest.mark.parametrize(
    "limit", [None, EXACT_PATH_LIMIT], ids=["default-limit", "exact-size-path"]
)
def test_every_chunk_size_gives_the_same_events(
    variant: str, limit: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = RICH_VARIANTS[variant]
    walks = 0
    check_size = SSEDecoder._check_size

    def counting_check_size(self: SSEDecoder, buf: bytes, cut: int) -> None:
        nonlocal walks
        walks += 1
        check_size(self, buf, cut)

    monkeypatch.setattr(SSEDecoder, "_check_size", counting_check_size)
    limits = {} if limit is None else {"max_event_bytes": limit}
    for size in range(1, len(stream) + 1):
        decoder = SSEDecoder(**limits)
        events: list[SSEEvent] = []
        for start in range(0, len(stream), size):
            events += decoder.feed(stream[start : start + size])
        events += decoder.close()
        assert events == RICH_EVENTS, f"chunk size {size}"
        assert decoder.comments == 3, f"chunk size {size}"
        assert decoder.bytes_seen == len(stream)
    assert (walks > 0) is (limit is not None)


# --- bounds ---------------------------------------------------------------------------------------


def test_event_larger_than_the_limit_raises() -> None:
    with pytest.raises(SSELimitError) as info:
        decode_sse(b"data: a\n\ndata: b\n\ndata: " + b"x" * 100 + b"\n\n", max_event_bytes=64)
    error = info.value
    assert (error.kind, error.limit, error.index) == ("event_size", 64, 2)
    assert error.actual > 64
    assert str(error).startswith("event #2 exceeds 64 bytes")


def test_the_default_size_limit_is_16_mib() -> None:
    with pytest.raises(SSELimitError, match="event #0 exceeds 16777216 bytes"):
        decode_sse(b"data: " + b"x" * (16 * 1024 * 1024) + b"\n\n")


@pytest.mark.parametrize("chunk", [1, 7, 64, 1024])
def test_event_size_counts_lines_and_line_ends(chunk: int) -> None:
    # Sizes count each line and its line end (one byte, CRLF included), comments too, the BOM not.
    stream = b"\xef\xbb\xbf: c\r\ndata: 1\r\ndata: 23\r\n\r\n"  # 4 + 8 + 9 = 21 bytes
    assert decode_in_chunks(stream, chunk, max_event_bytes=21) == [ev("1\n23")]
    with pytest.raises(SSELimitError) as info:
        decode_in_chunks(stream, chunk, max_event_bytes=20)
    assert (info.value.kind, info.value.index) == ("event_size", 0)


@pytest.mark.parametrize("chunk", [1, 3, 100, 10_000])
def test_blank_lines_reset_the_size(chunk: int) -> None:
    stream = b"event: a\ndata: 0123456789\n\n" * 500  # 14 KB in events of 9 + 17 bytes
    events = decode_in_chunks(stream, chunk, max_event_bytes=26)
    assert len(events) == 500


@pytest.mark.parametrize("chunk", [1, 1024, 4096])
def test_a_line_that_never_ends_raises_instead_of_growing(chunk: int) -> None:
    limit = 64 * 1024
    decoder = SSEDecoder(max_event_bytes=limit)
    decoder.feed(b"data: ")
    fed = 6
    with pytest.raises(SSELimitError) as info:
        for _ in range(limit // chunk + 1):
            fed += chunk
            decoder.feed(b"x" * chunk)
    assert info.value.kind == "event_size"
    assert fed - chunk <= limit < fed  # raised by the first chunk that crossed the bound


def test_an_event_that_never_ends_raises() -> None:
    decoder = SSEDecoder(max_event_bytes=10_000)
    with pytest.raises(SSELimitError) as info:
        for _ in range(10_000):
            decoder.feed(b"data: more of the same event\n")
    assert (info.value.kind, info.value.index) == ("event_size", 0)


@pytest.mark.parametrize("chunk", [1, 5, 10_000])
@pytest.mark.parametrize(
    "event", [b"data: x\n\n", b"event: e\ndata: x\n\n", b"data: x\ndata: y\n\n"], ids=repr
)
def test_event_count_limit(chunk: int, event: bytes) -> None:
    assert len(decode_in_chunks(event * 3, chunk, max_events=3)) == 3
    with pytest.raises(SSELimitError) as info:
        decode_in_chunks(event * 4, chunk, max_events=3)
    error = info.value
    assert (error.kind, error.limit, error.actual, error.index) == ("event_count", 3, 4, 3)
    assert "event #3" in str(error)


def test_event_count_limit_counts_the_final_unterminated_event() -> None:
    decoder = SSEDecoder(max_events=1)
    assert decoder.feed(b"data: a\n\ndata: b") == [ev("a")]
    with pytest.raises(SSELimitError):
        decoder.close()


@pytest.mark.parametrize(
    ("limits", "stream"),
    [({"max_event_bytes": 8}, b"data: 123456789"), ({"max_events": 0}, b"data: x\n\n")],
    ids=["event_size", "event_count"],
)
def test_the_decoder_is_finished_after_a_limit_error(limits: dict[str, int], stream: bytes) -> None:
    decoder = SSEDecoder(**limits)
    with pytest.raises(SSELimitError) as first:
        decoder.feed(stream)
    for chunk in (b"data: y\n\n", None, b""):
        with pytest.raises(SSELimitError) as info:
            decoder.close() if chunk is None else decoder.feed(chunk)
        assert (info.value.kind, info.value.actual) == (first.value.kind, first.value.actual)


def test_limit_error_pickles() -> None:
    error = SSELimitError("event_size", 10, 11, 3)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.kind, copy.limit, copy.actual, copy.index, str(copy)) == (
        "event_size",
        10,
        11,
        3,
        str(error),
    )


@pytest.mark.parametrize("limits", [{"max_event_bytes": 0}, {"max_events": -1}])
def test_invalid_limits(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        SSEDecoder(**limits)


# --- property: chunking never changes the events --------------------------------------------------


@settings(deadline=None, max_examples=300)
@given(random_streams(), st.lists(st.integers(0, 10_000), max_size=12))
def test_random_chunking_of_random_streams(
    case: tuple[bytes, list[SSEEvent], int], cuts: list[int]
) -> None:
    stream, expected, _ = case
    cuts = [cut % (len(stream) + 1) for cut in cuts]
    assert decode_sse(stream) == expected
    assert decode_split(stream, cuts) == expected


@settings(deadline=None, max_examples=200)
@given(random_streams(), st.lists(st.integers(0, 10_000), max_size=12))
def test_random_streams_at_the_size_bound(
    case: tuple[bytes, list[SSEEvent], int], cuts: list[int]
) -> None:
    # The bound is exact in every chunking: the largest event fits a limit of its own size, and
    # one byte less raises (the exact walk and the offsets of the fast path must agree).
    stream, expected, largest = case
    cuts = [cut % (len(stream) + 1) for cut in cuts]
    assert decode_split(stream, cuts, max_event_bytes=max(largest, 1)) == expected
    if largest > 1:
        with pytest.raises(SSELimitError) as info:
            decode_split(stream, cuts, max_event_bytes=largest - 1)
        assert info.value.kind == "event_size"


# --- the recorded OpenAI corpus -------------------------------------------------------------------


def test_corpus_is_there() -> None:
    assert len(STREAMS) == 48


@pytest.mark.parametrize("chunk", [None, 65536, 1024, 7])
@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_corpus_round_trips(path: Path, chunk: int | None) -> None:
    lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
    stream = b"".join(
        b"event: " + json.loads(line)["type"].encode() + b"\ndata: " + line + b"\n\n"
        for line in lines
    )
    events = decode_sse(stream) if chunk is None else decode_in_chunks(stream, chunk)
    assert [e.data for e in events] == [line.decode() for line in lines]
    assert [e.event for e in events] == [json.loads(line)["type"] for line in lines]
    assert [e.index for e in events] == list(range(len(lines)))


# --- property: runs of common blocks (the decoder's fast split) decode as the rules say -----------


@settings(deadline=None, max_examples=300)
@given(common_heavy_blocks(), st.lists(st.integers(0, 10_000), max_size=8))
def test_runs_of_common_blocks(blocks: list[list[str]], cuts: list[int]) -> None:
    stream = b"".join(line.encode() + b"\n" for block in blocks for line in [*block, ""])
    expected = expected_events(blocks)
    assert decode_sse(stream) == expected
    assert decode_split(stream, [cut % (len(stream) + 1) for cut in cuts]) == expected


def test_invalid_utf8_in_a_common_block_is_replaced_as_in_any_other() -> None:
    bad = b'event: e\xff\ndata: {"a": "\xe2\x82"}\n\n'
    events = decode_sse(bad + bad.replace(b"event: ", b"event:"))
    assert [e.event for e in events] == ["e\ufffd", "e\ufffd"]
    assert [e.data for e in events] == ['{"a": "\ufffd"}', '{"a": "\ufffd"}']
