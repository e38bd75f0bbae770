"""Compaction: `POST /v1/responses/compact`, `context_management` and `compaction_trigger` on
create; the compaction item sent back as input stands for the history it replaced
(docs/state.md). Streams with a compaction item pass the judge with every profile, strictly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import orjson
import pytest
from openai.types.responses import CompactedResponse, Response, ResponseInputItemParam
from pydantic import TypeAdapter

from conformance.bodies.objects import validate_response_body
from conformance.sse.framing import SSEStreamValidator
from conformance.validator import PROFILES
from mock_server.app import MockSettings
from mock_server.testing import IN_PROCESS_URL, InProcessMock

# Compaction is OpenAI's alone (`response.compaction.*` is no Open Responses event): judged under
# every other profile (docs/spec.md §7.10).
ALL_PROFILES = sorted(PROFILES - {"openresponses"})


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def assistant(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


HISTORY = [user("My name is Ada."), assistant("Hello Ada."), user("I live in Paris.")]


class Mock:
    def __init__(self, **settings: Any) -> None:
        self.handle = InProcessMock(MockSettings(seed=4, frozen_time=1_700_000_000, **settings))
        self.http = httpx2.Client(transport=self.handle.transport, base_url=IN_PROCESS_URL)

    def post(self, path: str, body: dict[str, Any]) -> httpx2.Response:
        return self.http.post(path, json=body)

    def seen(self) -> list[tuple[str, str]]:
        return [(m.role, m.content) for m in self.handle.generations[-1].messages]


@pytest.fixture
def mock() -> Iterator[Mock]:
    m = Mock()
    yield m
    m.http.close()
    m.handle.close()


def strict(violations: list[Any]) -> list[str]:
    return [v.format() for v in violations if v.level.name in ("MUST", "SHOULD")]


def events_of(raw: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in raw.split(b"\n") if line.startswith(b"data: {")]


def test_compact_answers_the_user_messages_and_one_compaction_item(mock: Mock) -> None:
    response = mock.post("/v1/responses/compact", {"model": "mock-text", "input": HISTORY})
    assert response.status_code == 200, response.text
    body = response.json()
    # The SDK types `output` as output items, whose messages are the assistant's; the user
    # messages are input messages (the SDK's own docs: "all user messages, then a compaction").
    compacted = CompactedResponse.model_validate({**body, "output": body["output"][-1:]})
    for message in body["output"][:-1]:
        TypeAdapter(ResponseInputItemParam).validate_python(message)
    assert compacted.object == "response.compaction" and compacted.created_at == 1_700_000_000
    kinds = [(i["type"], i.get("role")) for i in body["output"]]
    assert kinds == [("message", "user"), ("message", "user"), ("compaction", None)]
    item = body["output"][-1]
    assert item["id"].startswith("cmp_") and len(item["encrypted_content"]) > 40
    counted = mock.post("/v1/responses/input_tokens", {"model": "mock-text", "input": HISTORY})
    usage = body["usage"]
    assert usage["input_tokens"] == counted.json()["input_tokens"] > 0
    assert usage["output_tokens"] == 0 and usage["total_tokens"] == usage["input_tokens"]


def test_continuing_from_the_compacted_output_sees_the_whole_history(mock: Mock) -> None:
    output = mock.post("/v1/responses/compact", {"model": "mock-text", "input": HISTORY}).json()[
        "output"
    ]
    turn = mock.post(
        "/v1/responses",
        {"model": "mock-text", "store": False, "input": [*output, user("Where do I live?")]},
    )
    assert turn.status_code == 200, turn.text
    assert mock.seen() == [
        ("user", "My name is Ada."),
        ("assistant", "Hello Ada."),
        ("user", "I live in Paris."),
        ("user", "Where do I live?"),
    ]
    # the compaction alone is enough: what comes before it is replaced
    mock.post("/v1/responses", {"model": "mock-text", "input": [output[-1], user("Again?")]})
    assert mock.seen()[-2:] == [("user", "I live in Paris."), ("user", "Again?")]
    assert len(mock.seen()) == 4


def test_compact_through_previous_response_id(mock: Mock) -> None:
    first = mock.post("/v1/responses", {"model": "mock-text", "input": HISTORY}).json()
    compacted = mock.post(
        "/v1/responses/compact",
        {"model": "mock-text", "previous_response_id": first["id"], "input": "And?"},
    )
    assert compacted.status_code == 200, compacted.text
    output = compacted.json()["output"]
    assert [i["type"] for i in output] == ["message", "message", "message", "compaction"]
    mock.post("/v1/responses", {"model": "mock-text", "input": [output[-1], user("Next")]})
    roles = [r for r, _ in mock.seen()]
    assert roles == ["user", "assistant", "user", "assistant", "user", "user"]


def test_a_bad_compaction_is_refused(mock: Mock) -> None:
    output = mock.post("/v1/responses/compact", {"model": "mock-text", "input": HISTORY}).json()[
        "output"
    ]
    blob = output[-1]["encrypted_content"]
    for bad in (blob[:-2] + ("AA" if blob[-2:] != "AA" else "BB"), "x", blob[5:]):
        refused = mock.post(
            "/v1/responses",
            {"model": "mock-text", "input": [{**output[-1], "encrypted_content": bad}]},
        )
        assert refused.status_code == 400
        assert refused.json()["error"]["code"] == "invalid_encrypted_content"
    reasoning = mock.post(
        "/v1/responses",
        {
            "model": "mock-auto",
            "input": "Why?",
            "reasoning": {"effort": "low"},
            "include": ["reasoning.encrypted_content"],
        },
    ).json()["output"][0]
    posing = {"type": "compaction", "encrypted_content": reasoning["encrypted_content"]}
    refused = mock.post("/v1/responses", {"model": "mock-text", "input": [posing]})
    assert (
        refused.status_code == 400
        and refused.json()["error"]["code"] == "invalid_encrypted_content"
    )
    other = Mock(state_secret="another key")
    try:
        assert (
            other.post("/v1/responses", {"model": "mock-text", "input": [output[-1]]}).status_code
            == 400
        )
    finally:
        other.http.close()
        other.handle.close()
    unknown = mock.post(
        "/v1/responses/compact", {"model": "mock-text", "input": HISTORY, "tools": []}
    )
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "unknown_parameter"
    assert (
        mock.post("/v1/responses/compact", {"input": HISTORY}).json()["error"]["param"] == "model"
    )


@pytest.mark.parametrize("stream", [False, True])
def test_context_management_over_the_threshold_ends_with_a_compaction(
    mock: Mock, stream: bool
) -> None:
    body = {
        "model": "mock-text",
        "input": HISTORY,
        "store": False,
        "context_management": [{"type": "compaction", "compact_threshold": 5}],
        "stream": stream,
    }
    response = mock.post("/v1/responses", body)
    assert response.status_code == 200, response.text
    if stream:
        validator = SSEStreamValidator(profiles=ALL_PROFILES)
        violations = validator.feed(response.content) + validator.close()
        assert not strict(violations)
        events = events_of(response.content)
        final = events[-1]["response"]
        assert "response.compaction.compacting" not in [e["type"] for e in events]
    else:
        final = response.json()
        assert not strict(validate_response_body(final, profiles=ALL_PROFILES))
    Response.model_validate(final)
    assert [i["type"] for i in final["output"]] == ["message", "compaction"]
    answer, compaction = final["output"]
    # next turn from the compaction alone: the history and the answer it replaced
    mock.post(
        "/v1/responses",
        {
            "model": "mock-text",
            "store": False,
            "input": [*HISTORY, answer, compaction, user("Next")],
        },
    )
    seen = mock.seen()
    assert seen[:3] == [
        ("user", "My name is Ada."),
        ("assistant", "Hello Ada."),
        ("user", "I live in Paris."),
    ]
    assert seen[3][0] == "assistant" and seen[3][1] == answer["content"][0]["text"]
    assert seen[4:] == [("user", "Next")]


def test_under_the_threshold_nothing_is_compacted(mock: Mock) -> None:
    body = {
        "model": "mock-text",
        "input": "Hi",
        "context_management": [{"type": "compaction", "compact_threshold": 100000}],
    }
    assert [i["type"] for i in mock.post("/v1/responses", body).json()["output"]] == ["message"]


def test_a_compaction_trigger_compacts_and_says_so_in_the_stream(mock: Mock) -> None:
    body = {
        "model": "mock-text",
        "input": [*HISTORY, {"type": "compaction_trigger"}],
        "stream": True,
    }
    response = mock.post("/v1/responses", body)
    assert response.status_code == 200, response.text
    events = events_of(response.content)
    types = [e["type"] for e in events]
    at = types.index("response.compaction.compacting")
    assert (
        types[at - 1] == "response.output_item.added"
        and types[at + 1] == "response.output_item.done"
    )
    compacting = events[at]
    assert compacting["item_id"] == events[at + 1]["item"]["id"]
    assert compacting["output_index"] == events[at + 1]["output_index"]
    validator = SSEStreamValidator(profiles=ALL_PROFILES)
    assert not strict(validator.feed(response.content) + validator.close())


@pytest.mark.parametrize(
    ("value", "param", "code"),
    [
        ({"type": "compaction"}, "context_management", "invalid_type"),
        ([{"type": "truncate"}], "context_management[0].type", "invalid_value"),
        ([{}], "context_management[0].type", "missing_required_parameter"),
        (
            [{"type": "compaction", "compact_threshold": "5"}],
            "context_management[0].compact_threshold",
            "invalid_type",
        ),
        (
            [{"type": "compaction", "compact_threshold": 0}],
            "context_management[0].compact_threshold",
            "integer_below_min_value",
        ),
    ],
)
def test_malformed_context_management(mock: Mock, value: Any, param: str, code: str) -> None:
    response = mock.post(
        "/v1/responses", {"model": "mock-text", "input": "x", "context_management": value}
    )
    assert response.status_code == 400
    assert (response.json()["error"]["param"], response.json()["error"]["code"]) == (param, code)


def test_the_sdk_compacts() -> None:
    handle = InProcessMock(MockSettings(frozen_time=1_700_000_000))
    try:
        client = handle.client()
        compacted = client.responses.compact(model="mock-text", input=HISTORY)  # type: ignore[arg-type]
        assert compacted.output[-1].type == "compaction"
        follow = client.responses.create(
            model="mock-text",
            input=[*(i.to_dict(warnings=False) for i in compacted.output), user("?")],  # type: ignore[misc]
        )
        assert follow.status == "completed"
    finally:
        handle.close()
