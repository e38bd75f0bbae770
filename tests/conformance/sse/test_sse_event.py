"""The decoder's event object, :class:`conformance.sse.SSEEvent`: frozen, hashable, compared by
field, untracked by the cyclic garbage collector, and ``is_done`` for the ``[DONE]`` sentinel."""

from __future__ import annotations

import gc

import pytest

from conformance.sse import SSEEvent, decode_sse


def test_events_are_frozen_sse_events() -> None:
    (event,) = decode_sse(b"event: a\nid: 1\nretry: 2\ndata: x\n\n")
    assert type(event) is SSEEvent
    assert event == SSEEvent("x", "a", "1", 2, 0)
    assert hash(event) == hash(SSEEvent("x", "a", "1", 2, 0))
    assert repr(event) == "SSEEvent(data='x', event='a', id='1', retry=2, index=0)"
    with pytest.raises(AttributeError):  # frozen
        event.data = "y"  # type: ignore[misc]
    (common,) = decode_sse(b"event: a\ndata: x\n\n")  # the one-block fast path
    assert type(common) is SSEEvent
    assert common == SSEEvent("x", "a")
    with pytest.raises(AttributeError):
        common.event = "b"  # type: ignore[misc]


def test_events_are_not_tracked_by_the_cyclic_gc() -> None:
    # 100k decoded events would otherwise be walked by every full collection while they live
    # (benchmarks/perf/scaling.py: decoder.comments_between_events ×100 was 1.3× linear).
    events = decode_sse(b"event: a\nid: 1\nretry: 2\ndata: x\n\nevent: b\ndata: y\n\n")
    assert len(events) == 2
    assert not any(gc.is_tracked(e) for e in events)


@pytest.mark.parametrize(
    ("data", "done"), [("[DONE]", True), (" [DONE]", False), ("[done]", False), ("{}", False)]
)
def test_is_done(data: str, done: bool) -> None:
    assert SSEEvent(data).is_done is done


def test_done_event_decodes_as_done() -> None:
    events = decode_sse(b"event: response.completed\ndata: {}\n\ndata: [DONE]\n\n")
    assert [e.is_done for e in events] == [False, True]
