"""Every ``include[]`` value is honoured: a request that gives the value something to act on
carries what the value adds, and the same request without it does not ("every
``include[]`` value honoured or rejected"; the values are the SDK's ``ResponseIncludable``).

The table is keyed by the SDK's own enum, so a value a newer SDK adds fails
``test_every_value_has_a_row`` until it is handled here. ``web_search_call.results`` is the one
value with nothing to add: OpenAI's schema gives a ``web_search_call`` item no field for results
(``WebSearchToolCall``: ``id``, ``status``, ``action`` — whose ``sources`` the other web-search
value adds), so it is accepted and documented as adding nothing (docs/state.md)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from openai.types.responses.response_includable import ResponseIncludable

from mock_server.app import MockSettings
from mock_server.testing import IN_PROCESS_URL, InProcessMock

Body = dict[str, Any]
Found = Callable[[httpx2.Client, Body], bool]


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    mock = InProcessMock(MockSettings(seed=5, frozen_time=1_700_000_000))
    with httpx2.Client(transport=mock.transport, base_url=IN_PROCESS_URL) as client:
        yield client
    mock.close()


def _create(http: httpx2.Client, body: Body) -> Body:
    response = http.post("/v1/responses", json={"model": "mock", **body})
    assert response.status_code == 200, response.text
    data: Body = response.json()
    return data


def _items(http: httpx2.Client, body: Body, kind: str) -> list[Body]:
    items = [i for i in _create(http, body)["output"] if i["type"] == kind]
    assert items, f"the request made no {kind} item"
    return items


def _encrypted_reasoning(http: httpx2.Client, body: Body) -> bool:
    return any(i.get("encrypted_content") for i in _items(http, body, "reasoning"))


def _logprobs(http: httpx2.Client, body: Body) -> bool:
    parts = [p for m in _items(http, body, "message") for p in m["content"]]
    return any(p.get("logprobs") for p in parts)


def _sources(http: httpx2.Client, body: Body) -> bool:
    return any("sources" in c["action"] for c in _items(http, body, "web_search_call"))


def _results(kind: str, field: str) -> Found:
    def found(http: httpx2.Client, body: Body) -> bool:
        return any(c.get(field) is not None for c in _items(http, body, kind))

    return found


def _listed(kind: str, find: Callable[[Body], Any]) -> Found:
    """The input item of ``kind`` as ``input_items`` lists it, with the URL the value asks for."""

    def found(http: httpx2.Client, body: Body) -> bool:
        created = _create(http, {**body, "include": []})  # the include goes on the listing
        query = {"include[]": body["include"]} if body.get("include") else {}
        listed = http.get(f"/v1/responses/{created['id']}/input_items", params=query).json()
        return any(i["type"] == kind and find(i) for i in listed["data"])

    return found


IMAGE = "https://example.com/lighthouse.png"
SEARCH = "Search the web: what is the tallest building in Paris?"
COMPUTER_TURN: list[Body] = [
    {"role": "user", "content": "Take a screenshot."},
    {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
     "action": {"type": "screenshot"}, "pending_safety_checks": []},
    {"type": "computer_call_output", "call_id": "call_1",
     "output": {"type": "computer_screenshot", "image_url": IMAGE}},
]  # fmt: skip

# value → (a request that gives it something to act on, does the output carry what it adds?,
# is what it adds absent without it?)
ROWS: dict[str, tuple[Body, Found, bool]] = {
    "reasoning.encrypted_content": (
        {"input": "Think, then say hi.", "store": False, "reasoning": {"effort": "low"}},
        _encrypted_reasoning, True,
    ),
    "message.output_text.logprobs": ({"input": "Say hi.", "top_logprobs": 2}, _logprobs, True),
    "web_search_call.action.sources": (
        {"input": SEARCH, "tools": [{"type": "web_search"}]}, _sources, True,
    ),
    "file_search_call.results": (
        {"input": "Search the files about lighthouses.",
         "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]},
        _results("file_search_call", "results"), True,
    ),
    "code_interpreter_call.outputs": (
        {"input": "Run Python: print(2 + 2).",
         "tools": [{"type": "code_interpreter", "container": {"type": "auto"}}]},
        _results("code_interpreter_call", "outputs"), True,
    ),
    # Input items keep the URL they were sent with, so the listing has it with or without.
    "message.input_image.image_url": (
        {"input": [{"role": "user", "content": [
            {"type": "input_text", "text": "What is this?"},
            {"type": "input_image", "image_url": IMAGE, "detail": "auto"}]}]},
        _listed("message", lambda i: any(c.get("image_url") == IMAGE for c in i["content"])),
        False,
    ),
    "computer_call_output.output.image_url": (
        {"input": COMPUTER_TURN, "tools": [{"type": "computer_use_preview", "display_width": 800,
                                            "display_height": 600, "environment": "browser"}]},
        _listed("computer_call_output", lambda i: i["output"].get("image_url") == IMAGE), False,
    ),
}  # fmt: skip
NOTHING_TO_ADD = frozenset({"web_search_call.results"})


def test_every_value_has_a_row() -> None:
    sdk = set(typing.get_args(ResponseIncludable))
    assert sdk == set(ROWS) | NOTHING_TO_ADD, "a new include[] value: honour it here"


@pytest.mark.parametrize("value", sorted(ROWS))
def test_the_value_adds_what_it_names(http: httpx2.Client, value: str) -> None:
    body, found, absent_without = ROWS[value]
    assert found(http, {**body, "include": [value]}), f"{value}: nothing added"
    if absent_without:
        assert not found(http, {**body, "include": []}), f"{value}: added without being asked"


def test_web_search_results_is_accepted_and_adds_no_field(http: httpx2.Client) -> None:
    body = {"input": SEARCH, "tools": [{"type": "web_search"}]}
    with_it = _items(http, {**body, "include": ["web_search_call.results"]}, "web_search_call")
    without = _items(http, body, "web_search_call")
    assert [sorted(c) for c in with_it] == [sorted(c) for c in without]
