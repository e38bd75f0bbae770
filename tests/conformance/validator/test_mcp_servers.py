"""Several MCP servers in one response (issue #32, docs/spec.md §2.9): OpenAI sends
`output_item.done` only for the last `mcp_list_tools`; each listing is in the terminal output at
its `output_index`. The terminal output closes such a listing, paired by `output_index` — a
listing it does not hold at that index, another item type left open, and a terminal output in
another order still fail."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance import catalog as C
from conformance.examples.build import numbered, response
from conformance.validator import StreamValidator

CLOSED, EQUALS = C.ITEM_CLOSED_BEFORE_TERMINAL.id, C.OUTPUT_EQUALS_ITEMS.id
Event = dict[str, Any]


def _listing(label: str) -> Event:
    return {
        "id": f"mcpl_{label}",
        "type": "mcp_list_tools",
        "server_label": label,
        "tools": [{"name": "search", "input_schema": {"type": "object"}, "annotations": None}],
    }


def _message() -> Event:
    return {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi", "annotations": [], "logprobs": []}],
    }


def _list_events(index: int, item: Event, *, done: bool) -> list[Event]:
    opened = dict(item, tools=[])
    ids = {"output_index": index, "item_id": item["id"]}
    events: list[Event] = [
        {"type": "response.output_item.added", "output_index": index, "item": opened},
        {"type": "response.mcp_list_tools.in_progress", **ids},
        {"type": "response.mcp_list_tools.completed", **ids},
    ]
    if done:
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def _message_events(index: int, *, done: bool = True) -> list[Event]:
    item = _message()
    opened = dict(item, status="in_progress", content=[])
    part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    ids = {"item_id": "msg_1", "output_index": index, "content_index": 0}
    events: list[Event] = [
        {"type": "response.output_item.added", "output_index": index, "item": opened},
        {"type": "response.content_part.added", **ids, "part": part},
        {"type": "response.output_text.delta", **ids, "delta": "Hi", "logprobs": []},
        {"type": "response.output_text.done", **ids, "text": "Hi", "logprobs": []},
        {"type": "response.content_part.done", **ids, "part": item["content"][0]},
    ]
    if done:
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def _stream(
    labels: tuple[str, ...] = ("exa", "docs", "github"),
    *,
    done_for: tuple[str, ...] = ("github",),
    output: list[Event] | None = None,
    message_done: bool = True,
) -> list[Event]:
    listings = [_listing(label) for label in labels]
    body: list[Event] = []
    for index, item in enumerate(listings):
        body += _list_events(index, item, done=item["server_label"] in done_for)
    body += _message_events(len(listings), done=message_done)
    final = [*listings, _message()] if output is None else output
    events = [
        {"type": "response.created", "response": response()},
        {"type": "response.in_progress", "response": response()},
        *body,
        {"type": "response.completed", "response": response("completed", final)},
    ]
    return numbered(copy.deepcopy(events))


def _ids(events: list[Event]) -> list[str]:
    validator = StreamValidator()
    found = [v for e in events for v in validator.feed(e)] + validator.close()
    return [v.check_id for v in found]


@pytest.mark.parametrize("done_for", [("github",), ("exa", "docs", "github"), ()])
def test_listings_the_terminal_output_holds_are_closed(done_for: tuple[str, ...]) -> None:
    assert _ids(_stream(done_for=done_for)) == []


def test_a_listing_missing_from_the_terminal_output_is_still_open() -> None:
    output = [_listing("docs"), _listing("github"), _message()]
    ids = _ids(_stream(output=output))
    assert CLOSED in ids and EQUALS in ids


def test_paired_by_output_index_not_by_type() -> None:
    # The two undone listings swapped in the terminal output: each index holds a listing, but
    # not the one added there.
    output = [_listing("docs"), _listing("exa"), _listing("github"), _message()]
    assert CLOSED in _ids(_stream(output=output))


def test_another_item_type_left_open_still_fails() -> None:
    # A message is what clients build their history from (Codex: `output_item.done` alone).
    assert CLOSED in _ids(_stream(message_done=False))


def test_a_single_server_stream_is_unchanged() -> None:
    assert _ids(_stream(("exa",), done_for=("exa",))) == []
    assert CLOSED in _ids(_stream(("exa",), done_for=(), output=[_message()]))
