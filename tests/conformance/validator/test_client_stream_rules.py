"""The stream rules clients enforce (docs/spec.md §7.8–§7.10): call identity
from `output_item.added` to `.done`, logprobs on text deltas (value, count, deltas = done), and the
Open Responses profile's event types and lifecycle fields. Each failing example is a real
recording edited into the defect; each near miss is the recording, or the recording edited just
short of it. Every stream is judged both as event objects and as SSE bytes (the typed fast path).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conformance import SSEStreamValidator, StreamValidator, failing

DATA = Path(__file__).parents[2] / "data"
LOGPROBS_STREAM = (
    DATA / "openai-recorded-2" / "streams"
    / "pai.test_openai.test_openai_instructions_with_responses_logprobs_streaming.0.sse"
)  # fmt: skip
OR = ("core", "openresponses")


def jsonl(name: str) -> list[dict[str, Any]]:
    lines = (DATA / "openai-recorded" / "streams" / f"{name}.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line]


def sse_events(path: Path) -> list[dict[str, Any]]:
    out = []
    for block in path.read_text().replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data and data[0] != "[DONE]":
            out.append(json.loads("\n".join(data)))
    return copy.deepcopy(out)


def as_sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(
        b"event: " + str(e.get("type")).encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
        for e in events
    )


def ids(events: list[dict[str, Any]], profiles: tuple[str, ...] = ("core",)) -> set[str]:
    """The failing check IDs, judged as objects and as SSE bytes: both must agree."""
    validator = StreamValidator(profiles=profiles)
    for event in events:
        validator.feed(event)
    validator.close()
    objects = {v.check_id for v in failing(validator.violations, strict=True)}
    sse = SSEStreamValidator(profiles=profiles)
    body = as_sse(events)
    if "openresponses" in profiles:
        body += b"data: [DONE]\n\n"
    for i in range(0, len(body), 4096):
        sse.feed(body[i : i + 4096])
    sse.close()
    framed = {v.check_id for v in failing(sse.violations, strict=True)}
    assert objects == framed, (objects, framed)
    return objects


def _items(events: list[dict[str, Any]], etype: str) -> list[dict[str, Any]]:
    return [e["item"] for e in events if e["type"] == etype]


# --- stream.item.call_identity_stable (C1) --------------------------------------------------------


@pytest.mark.parametrize("key", ["call_id", "name"])
def test_call_identity_changed_between_added_and_done_fails(key: str) -> None:
    events = jsonl("azure-tool-call.1")
    assert ids(events) == set()
    done = next(e for e in events if e["type"] == "response.output_item.done")
    done["item"][key] += "_renamed"
    events[-1]["response"]["output"][-1][key] += "_renamed"
    assert ids(events) == {"stream.item.call_identity_stable"}


def test_call_identity_near_miss_other_fields_change() -> None:
    # `status` and `arguments` are meant to change from `added` to `done`; identity is not.
    events = jsonl("azure-tool-call.1")
    added, done = (
        _items(events, "response.output_item.added")[0],
        _items(events, "response.output_item.done")[0],
    )
    assert (added["call_id"], added["name"]) == (done["call_id"], done["name"])
    assert added["status"] != done["status"] and added["arguments"] != done["arguments"]
    assert ids(events) == set()


def test_recorded_identity_changes_are_only_client_tool_searches() -> None:
    # Every recorded item keeps the `call_id` and `name` it opened with (157 function calls, MCP
    # calls and approvals, shell, patch and program items), except OpenAI's client-executed tool
    # search, which re-issues its `call_id` in `.done` (docs/spec.md §7.9).
    changed = set()
    for path in sorted((DATA / "openai-recorded" / "streams").glob("*.jsonl")):
        events = jsonl(path.stem)
        added = {e["output_index"]: e["item"] for e in events if e["type"].endswith("item.added")}
        for event in events:
            if event["type"] == "response.output_item.done" and event["output_index"] in added:
                first = added[event["output_index"]]
                for key in ("call_id", "name"):
                    want = first.get(key)
                    if isinstance(want, str) and want and event["item"].get(key) != want:
                        changed.add((path.stem, first["type"], key))
    assert changed == {
        ("openai-client-tool-search.1", "tool_search_call", "call_id"),
        ("azure-client-tool-search.1.part1", "tool_search_call", "call_id"),
    }
    assert ids(jsonl("openai-client-tool-search.1")) == set()


def test_a_tool_search_may_reissue_its_call_id_but_not_a_shell_call() -> None:
    events = jsonl("openai-shell-tool.1.part1")
    assert ids(events) == set()
    done = next(
        e for e in events
        if e["type"] == "response.output_item.done" and e["item"]["type"] == "shell_call"
    )  # fmt: skip
    done["item"]["call_id"] = "call_reissued"
    for item in events[-1]["response"]["output"]:
        if item["id"] == done["item"]["id"]:
            item["call_id"] = "call_reissued"
    assert ids(events) == {"stream.item.call_identity_stable"}


# --- stream.logprobs.deltas_equal_done and the logprob values on deltas (C3) ---------------------


def test_recorded_logprob_stream_passes() -> None:
    events = sse_events(LOGPROBS_STREAM)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert deltas and all(d["logprobs"] for d in deltas)
    assert ids(events) == set()


def test_delta_logprobs_that_differ_from_done_fail() -> None:
    events = sse_events(LOGPROBS_STREAM)
    delta = next(e for e in events if e["type"] == "response.output_text.delta")
    delta["logprobs"][0]["logprob"] = -2.5
    assert ids(events) == {"stream.logprobs.deltas_equal_done"}


def test_a_delta_token_missing_from_done_fails() -> None:
    events = sse_events(LOGPROBS_STREAM)
    done = next(e for e in events if e["type"] == "response.output_text.done")
    del done["logprobs"][-1]
    assert ids(events) == {"stream.logprobs.deltas_equal_done"}


def test_done_without_logprobs_is_not_compared() -> None:
    # OpenAI's own `content_part.done` carries `logprobs: []` after deltas that had some; an
    # empty list on `.done` says nothing to compare (docs/spec.md §7.8).
    events = sse_events(LOGPROBS_STREAM)
    done = next(e for e in events if e["type"] == "response.output_text.done")
    done["logprobs"] = []
    assert ids(events) == set()


def test_positive_logprob_on_a_delta_fails() -> None:
    events = sse_events(LOGPROBS_STREAM)
    delta = next(e for e in events if e["type"] == "response.output_text.delta")
    done = next(e for e in events if e["type"] == "response.output_text.done")
    assert delta["logprobs"][0] == done["logprobs"][0]
    delta["logprobs"][0]["logprob"] = done["logprobs"][0]["logprob"] = 0.75  # equal, but > 0
    assert ids(events) == {"response.logprobs.nonpositive"}


def test_more_alternatives_on_a_delta_than_top_logprobs_fails() -> None:
    events = sse_events(LOGPROBS_STREAM)
    assert events[0]["response"]["top_logprobs"] == 0
    alternatives = [{"token": "A", "logprob": -1.0, "bytes": [65]}]
    for event in events:
        if event["type"] == "response.output_text.delta":
            event["logprobs"][0]["top_logprobs"] = alternatives
    done = next(e for e in events if e["type"] == "response.output_text.done")
    for entry in done["logprobs"]:
        entry["top_logprobs"] = alternatives
    assert ids(events) == {"response.logprobs.top_count"}
    for event in events:  # the near miss: the response says one alternative was asked for
        if isinstance(event.get("response"), dict):
            event["response"]["top_logprobs"] = 1
    assert ids(events) == set()


# --- Open Responses: event.type.openresponses, lifecycle fields on every lifecycle event (C4) ----


def _or_stream() -> list[dict[str, Any]]:
    """A text stream whose lifecycle objects carry every `ResponseResource` field."""
    from conformance.examples import build

    return build.text_stream()


def test_open_responses_text_stream_passes() -> None:
    assert ids(_or_stream(), OR) == set()


def test_event_outside_open_responses_fails_under_the_profile() -> None:
    events = _or_stream()
    keep_alive = {"type": "response.keepalive", "sequence_number": 0}
    events.insert(2, keep_alive)
    for i, event in enumerate(events):
        event["sequence_number"] = i
    assert ids(events, OR) == {"event.type.openresponses"}
    assert ids(events) == set()  # core: an unknown type is INFO


def test_vendor_prefixed_extension_event_passes_under_the_profile() -> None:
    events = _or_stream()
    events.insert(2, {"type": "acme:trace_event", "sequence_number": 0, "phase": "x"})
    for i, event in enumerate(events):
        event["sequence_number"] = i
    assert ids(events, OR) == set()


def test_openai_hosted_tool_events_fail_under_the_profile() -> None:
    events = jsonl("openai-web-search-tool.1")
    hosted = {e["type"] for e in events if e["type"].startswith("response.web_search_call.")}
    assert hosted
    assert "event.type.openresponses" in ids(events, OR)


def test_lifecycle_fields_are_required_on_created_too() -> None:
    events = _or_stream()
    del events[0]["response"]["safety_identifier"]
    assert ids(events, OR) == {"response.openresponses.required_fields"}
    assert ids(events) == set()
