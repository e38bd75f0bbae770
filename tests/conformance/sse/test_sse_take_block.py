"""`SSEDecoder.take_block` takes a chunk exactly as `feed_records` would, or leaves it alone.

The framing layer (`SSEStreamValidator.feed`) offers each chunk to `take_block` with the head of
the event it expects (`event: <name>\\ndata: `) and falls back to `feed_records` on None; a
decoder driven so must give the same records, the same counters and the same errors, in any
chunking of any stream, as one given every chunk through `feed_records`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.sse import SSEDecoder, SSELimitError

_HEADS = [b"event: d\ndata: ", b"event: e\ndata: ", b"event:  d\ndata: ", b"event: \ndata: "]
_PIECES = [
    b"event: d\ndata: {}\n\n",
    b"event: d\ndata: x\n\n",
    b"event: e\ndata: y\n\n",
    b"event: d\ndata:  z\n\n",
    b"event:d\ndata: x\n\n",
    b"event: d\ndata:x\n\n",
    b"event:  d\ndata: x\n\n",
    b"event: \ndata: x\n\n",
    b"event: d\r\ndata: x\r\n\r\n",
    b"event: d\ndata: x\r\n\r",
    b"\n",
    b"event: d\ndata: a\ndata: b\n\n",
    b"event: d\nid: 1\ndata: x\n\n",
    b": keep-alive\n\n",
    b"data: x\n\n",
    b"\xef\xbb\xbf",
    b"event: d\ndata: " + b"x" * 40 + b"\n\n",
    b"event: d\n",
    b"data: half",
    b"\r",
]


def _run(chunks: list[bytes], heads: list[bytes] | None, **limits: int) -> list[Any]:
    decoder = SSEDecoder(**limits)
    out: list[Any] = []
    for i, chunk in enumerate(chunks):
        try:
            if heads is not None:
                data = decoder.take_block(chunk, heads[i % len(heads)])
                if data is not None:
                    head = heads[i % len(heads)]
                    out.append(("records", [(head[7 : head.index(b"\n")], data)]))
                    out.append(("seen", decoder.bytes_seen, decoder.comments))
                    continue
            out.append(("records", decoder.feed_records(chunk)))
        except SSELimitError as exc:
            out.append(("error", exc.kind, exc.limit, exc.actual, exc.index))
        out.append(("seen", decoder.bytes_seen, decoder.comments))
    try:
        out.append(("close", decoder.close_records()))
    except SSELimitError as exc:
        out.append(("error", exc.kind, exc.limit, exc.actual, exc.index))
    return out


def _flat(results: list[Any]) -> list[Any]:
    # `take_block` returns one record where `feed_records` returns a list: compare the records
    # in order, and the counters after each chunk.
    flat: list[Any] = []
    for entry in results:
        if entry[0] in ("records", "close"):
            flat += [("record", tuple(r)) for r in entry[1]]
        else:
            flat.append(entry)
    return flat


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=14),
    st.lists(st.sampled_from(_HEADS), min_size=1, max_size=3),
    st.sampled_from([{}, {"max_events": 3}, {"max_event_bytes": 30}]),
)
def test_take_block_decodes_as_feed_records(
    chunks: list[bytes], heads: list[bytes], limits: dict[str, int]
) -> None:
    reference = _flat(_run(chunks, None, **limits))
    assert _flat(_run(chunks, heads, **limits)) == _flat(reference)


def test_take_block_takes_the_common_chunk() -> None:
    # Guard: were it never to take a chunk, the test above would prove nothing.
    decoder = SSEDecoder()
    head = b"event: d\ndata: "
    assert decoder.take_block(b"event: d\ndata: 1\n\n", head) is None  # nothing fed yet
    assert decoder.feed_records(b"event: d\ndata: 0\n\n") == [(b"d", b"0")]
    assert decoder.take_block(b"event: d\ndata: 1\n\n", head) == b"1"
    assert decoder.take_block(b"event: e\ndata: 2\n\n", head) is None  # another event
    assert decoder.take_block(b"event: d\ndata: 2\n\nevent: d\ndata: 3\n\n", head) is None
    assert decoder.take_block(b"event: d\ndata: 2\r\n\r\n", head) is None  # CR: normalised first
    assert decoder.bytes_seen == 36
    assert decoder.close_records() == []
    assert decoder.take_block(b"event: d\ndata: 1\n\n", head) is None  # closed
