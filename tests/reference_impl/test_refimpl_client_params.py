"""Fields real clients send that the protocol layer used to refuse or drop, found by capturing the
clients against the mock (conformance/clients/captured, docs/client-catalogue.md):

- ``safety_identifier`` on ``POST /v1/responses/compact`` and ``POST /v1/conversations`` (openai
  3.63's ``responses.compact`` and ``conversations.create`` take it: conformance/clients/captured/
  openai-python/compact.json, conversations.json); the compacted response echoes it and
  ``service_tier`` (the SDK's ``CompactedResponse`` has both);
- ``phase`` on a replayed assistant message (the SDK's ``EasyInputMessage.phase``: "preserve and
  resend phase on all assistant messages"): kept on the stored item, a value outside the SDK's
  enum refused.

Driven in process through the mock (the protocol layer of reference_impl with a deterministic
engine); the reference server serves the same routes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.conversations import Conversation
from openai.types.responses import CompactedResponse

from mock_server.app import MockSettings
from mock_server.testing import InProcessMock


@pytest.fixture
def mock() -> Iterator[InProcessMock]:
    handle = InProcessMock(MockSettings(frozen_time=1_700_000_000))
    yield handle
    handle.close()


@pytest.fixture
def client(mock: InProcessMock) -> openai.OpenAI:
    return mock.client(max_retries=0)


def test_compact_takes_safety_identifier_and_echoes_it(client: openai.OpenAI) -> None:
    compacted = client.responses.compact(
        model="mock-text",
        input=[{"role": "user", "content": "Remember PLUM."}],
        safety_identifier="user-1234",
        service_tier="flex",
    )
    assert isinstance(compacted, CompactedResponse)
    assert compacted.safety_identifier == "user-1234"
    assert compacted.service_tier == "flex"
    assert [item.type for item in compacted.output][-1] == "compaction"


def test_compact_without_them_echoes_nothing_new(client: openai.OpenAI) -> None:
    raw = client.responses.with_raw_response.compact(
        model="mock-text", input=[{"role": "user", "content": "Remember PLUM."}]
    )
    body = raw.http_response.json()
    assert "safety_identifier" not in body and "service_tier" not in body


@pytest.mark.parametrize("path", ["/v1/responses/compact", "/v1/conversations"])
def test_a_safety_identifier_that_is_not_a_string_is_refused(
    client: openai.OpenAI, path: str
) -> None:
    body: dict[str, Any] = {"safety_identifier": 1234}
    if path.endswith("compact"):
        body |= {"model": "mock-text", "input": "hi"}
    with pytest.raises(openai.BadRequestError) as caught:
        client.post(path.removeprefix("/v1"), body=body, cast_to=object)
    error = caught.value.body
    assert isinstance(error, dict)
    assert (error["param"], error["code"]) == ("safety_identifier", "invalid_type")


def test_conversations_create_takes_safety_identifier(client: openai.OpenAI) -> None:
    conversation = client.conversations.create(
        items=[{"type": "message", "role": "user", "content": "Hi"}],
        metadata={"topic": "demo"},
        safety_identifier="user-1234",
    )
    assert isinstance(conversation, Conversation)
    assert conversation.metadata == {"topic": "demo"}
    items = client.conversations.items.list(conversation.id)
    assert [item.type for item in items.data] == ["message"]


def test_conversations_still_refuse_an_unknown_field(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.post("/conversations", body={"safety_id": "x"}, cast_to=object)
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["code"] == "unknown_parameter"


def _assistant(text: str, phase: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
        "phase": phase,
    }


def test_phase_on_replayed_assistant_messages_is_kept(client: openai.OpenAI) -> None:
    response = client.responses.create(
        model="mock-text",
        input=[
            {"role": "user", "content": "Check the build."},
            _assistant("Looking at the logs.", "commentary"),
            _assistant("The build is green.", "final_answer"),
            {"role": "assistant", "content": "Plain text turn.", "phase": "final_answer"},
            {"role": "user", "content": "Thanks.", "phase": None},
        ],
        store=True,
    )
    items = client.responses.input_items.list(response.id, order="asc").data
    phases = [
        (item.type, getattr(item, "role", None), getattr(item, "phase", None)) for item in items
    ]
    assert phases == [
        ("message", "user", None),
        ("message", "assistant", "commentary"),
        ("message", "assistant", "final_answer"),
        ("message", "assistant", "final_answer"),
        ("message", "user", None),
    ]


def test_a_phase_outside_the_enum_is_refused(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(
            model="mock-text",
            input=[{"role": "user", "content": "Hi"}, _assistant("x", "thinking")],  # type: ignore[list-item]
        )
    assert isinstance(caught.value.body, dict)
    assert (caught.value.body["param"], caught.value.body["code"]) == (
        "input[1].phase",
        "invalid_value",
    )
