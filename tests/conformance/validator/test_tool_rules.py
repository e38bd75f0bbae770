"""Per-tool stream rules (conformance/validator/tool_rules.py): each check ID fires on a minimal mutant of a
real recording and stays quiet on a near miss; the real omissions stay accepted."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance import catalog as C
from conformance.validator import StreamValidator

CORPUS = Path(__file__).resolve().parents[2] / "data" / "openai-recorded" / "streams"

Event = dict[str, Any]


def _load(name: str) -> list[Event]:
    path = CORPUS / f"{name}.jsonl"
    if not path.is_file():
        pytest.skip(f"recording {name} not present")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _ids(events: list[Event]) -> set[str]:
    validator = StreamValidator()
    found = [v for e in events for v in validator.feed(e)] + validator.close()
    return {v.check_id for v in found}


def _renumber(events: list[Event]) -> list[Event]:
    start = events[0]["sequence_number"]
    for i, e in enumerate(events):
        e["sequence_number"] = start + i
    return events


def _first(events: list[Event], etype: str, n: int = 0) -> int:
    return [i for i, e in enumerate(events) if e["type"] == etype][n]


NEW = {
    C.HOSTED_PROGRESS_ORDER.id,
    C.HOSTED_FAILED_STATUS.id,
    C.IMAGE_PARTIAL_INDEX.id,
    C.ANNOTATION_OFFSETS.id,
}


@pytest.mark.parametrize(
    "name",
    [
        "openai-web-search-tool.1",
        "azure-web-search-preview-tool.1",  # no web_search_call.completed: a stage may be missing
        "openai-file-search-tool.1",
        "openai-code-interpreter-tool.1",
        "openai-image-generation-tool.1",
        "azure-image-generation-tool.1",
        "openai-mcp-tool.1",
        "openai-mcp-tool-approval.4",  # mcp_call.in_progress twice, around the argument deltas
    ],
)
def test_recordings_pass_the_tool_rules(name: str) -> None:
    assert not _ids(_load(name)) & NEW


def _swap_progress(events: list[Event]) -> list[Event]:
    # searching before in_progress
    a = _first(events, "response.web_search_call.in_progress")
    b = _first(events, "response.web_search_call.searching")
    events[a], events[b] = events[b], events[a]
    return _renumber(events)


def _progress_after_end(events: list[Event]) -> list[Event]:
    end = _first(events, "response.code_interpreter_call.completed")
    again = copy.deepcopy(events[_first(events, "response.code_interpreter_call.interpreting")])
    events.insert(end + 1, again)
    return _renumber(events)


def _code_after_end(events: list[Event]) -> list[Event]:
    code = events.pop(_first(events, "response.code_interpreter_call_code.done"))
    events.insert(_first(events, "response.code_interpreter_call.completed") + 1, code)
    return _renumber(events)


def _failed_event_completed_item(events: list[Event]) -> list[Event]:
    i = _first(events, "response.mcp_call.completed")
    events[i]["type"] = "response.mcp_call.failed"
    return events


def _completed_event_failed_item(events: list[Event]) -> list[Event]:
    i = _first(events, "response.mcp_call.completed")
    item_id = events[i]["item_id"]
    for e in events:
        item = e.get("item")
        if e["type"] == "response.output_item.done" and item and item.get("id") == item_id:
            item["status"] = "failed"
            item["error"] = "mcp server error"
    return events


def _partial_index_from_one(events: list[Event]) -> list[Event]:
    i = _first(events, "response.image_generation_call.partial_image")
    events[i]["partial_image_index"] = 1
    return events


def _last_message_part(events: list[Event]) -> dict[str, Any]:
    """The first content part of the last message's ``output_item.done``."""
    done = [
        e
        for e in events
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "message"
    ]
    part: dict[str, Any] = done[-1]["item"]["content"][0]
    return part


def _citation_past_text(events: list[Event]) -> list[Event]:
    part = _last_message_part(events)
    part["annotations"][0]["end_index"] = len(part["text"]) + 5
    return events


def _citation_at_text_end(events: list[Event]) -> list[Event]:
    """Near miss: end_index exactly len(text) is inside."""
    part = _last_message_part(events)
    part["annotations"][0]["end_index"] = len(part["text"])
    return events


def _partial_image_repeated_stage(events: list[Event]) -> list[Event]:
    """Near miss: generating sent twice (a repeated stage is allowed)."""
    i = _first(events, "response.image_generation_call.generating")
    events.insert(i + 1, copy.deepcopy(events[i]))
    return _renumber(events)


def _mcp_failed_both(events: list[Event]) -> list[Event]:
    """Near miss: `.failed` and the item's status `failed` agree."""
    events = _failed_event_completed_item(events)
    return _completed_event_failed_item_keep_type(events)


def _completed_event_failed_item_keep_type(events: list[Event]) -> list[Event]:
    i = _first(events, "response.mcp_call.failed")
    item_id = events[i]["item_id"]
    for e in events:
        item = e.get("item")
        if e["type"] == "response.output_item.done" and item and item.get("id") == item_id:
            item["status"] = "failed"
            item["error"] = "mcp server error"
    for e in events:
        if e["type"] == "response.completed":
            for item in e["response"]["output"]:
                if item.get("id") == item_id:
                    item["status"] = "failed"
                    item["error"] = "mcp server error"
    return events


FIRES: list[tuple[str, str, Callable[[list[Event]], list[Event]]]] = [
    (C.HOSTED_PROGRESS_ORDER.id, "openai-web-search-tool.1", _swap_progress),
    (C.HOSTED_PROGRESS_ORDER.id, "openai-code-interpreter-tool.1", _progress_after_end),
    (C.HOSTED_PROGRESS_ORDER.id, "openai-code-interpreter-tool.1", _code_after_end),
    (C.HOSTED_FAILED_STATUS.id, "openai-mcp-tool.1", _failed_event_completed_item),
    (C.HOSTED_FAILED_STATUS.id, "openai-mcp-tool.1", _completed_event_failed_item),
    (C.IMAGE_PARTIAL_INDEX.id, "openai-image-generation-tool.1", _partial_index_from_one),
    (C.ANNOTATION_OFFSETS.id, "openai-web-search-tool.1", _citation_past_text),
]


@pytest.mark.parametrize(("check_id", "name", "mutate"), FIRES, ids=[f[2].__name__ for f in FIRES])
def test_mutant_fires_its_check(
    check_id: str, name: str, mutate: Callable[[list[Event]], list[Event]]
) -> None:
    assert check_id not in _ids(_load(name))
    assert check_id in _ids(mutate(_load(name)))


NEAR_MISSES: list[tuple[str, str, Callable[[list[Event]], list[Event]]]] = [
    (C.ANNOTATION_OFFSETS.id, "openai-web-search-tool.1", _citation_at_text_end),
    (C.HOSTED_PROGRESS_ORDER.id, "openai-image-generation-tool.1", _partial_image_repeated_stage),
    (C.HOSTED_FAILED_STATUS.id, "openai-mcp-tool.1", _mcp_failed_both),
]


@pytest.mark.parametrize(
    ("check_id", "name", "mutate"), NEAR_MISSES, ids=[f[2].__name__ for f in NEAR_MISSES]
)
def test_near_miss_passes(
    check_id: str, name: str, mutate: Callable[[list[Event]], list[Event]]
) -> None:
    assert check_id not in _ids(mutate(_load(name)))
