"""The real vcrpy cassettes (tests/data/cassettes/, pydantic-ai) replayed through the mock to the
openai SDK, in their recorded order: background streams and their polls, conversation
continuations (streamed, and with a tool call), web search streams, reasoning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from cassettes import Exchange, read_cassette
from conformance.cli import main as conformance_main
from mock_server.app import MockSettings
from mock_server.replay import ReplaySettings
from mock_server.testing import LoopbackMock

DATA = Path(__file__).resolve().parents[1] / "data" / "cassettes" / "pydantic-ai"
CASSETTES = sorted(DATA.glob("*.yaml"))


def _drive(client: openai.OpenAI, exchange: Exchange) -> Any:
    """The SDK call that sends this exchange's request; what the SDK made of the answer."""
    body = json.loads(exchange.request_body) if exchange.request_body else {}
    parts = exchange.path.strip("/").split("/")[1:]
    if exchange.method == "POST" and parts == ["responses"]:
        if body.get("stream"):
            return [event.type for event in client.responses.create(**body)]
        return client.responses.create(**body).model_dump(
            mode="json", exclude_unset=True, warnings=False
        )
    if exchange.method == "GET" and parts[0] == "responses" and len(parts) == 2:
        stream = dict(exchange.query_params).get("stream") == "true"
        return client.responses.retrieve(parts[1], stream=stream).model_dump(
            mode="json", exclude_unset=True, warnings=False
        )
    if exchange.method == "POST" and parts == ["conversations"]:
        return client.conversations.create(**body).model_dump(
            mode="json", exclude_unset=True, warnings=False
        )
    if exchange.method == "DELETE" and parts[0] == "conversations":
        return client.conversations.delete(parts[1]).model_dump(
            mode="json", exclude_unset=True, warnings=False
        )
    raise AssertionError(f"no SDK call for {exchange.label}")


def _expected(exchange: Exchange) -> Any:
    if exchange.is_sse:
        return [
            json.loads(line[6:])["type"]
            for line in exchange.body.decode().splitlines()
            if line.startswith("data: {")
        ]
    return json.loads(exchange.body)


@pytest.mark.parametrize("path", CASSETTES, ids=[p.stem for p in CASSETTES])
def test_a_real_cassette_replays_to_the_sdk_in_recorded_order(path: Path, tmp_path: Path) -> None:
    exchanges = read_cassette(path)
    replay = ReplaySettings(str(path), timing=0.0)
    served_to = tmp_path / "served"  # what the SDK was sent, recorded again, for the judge
    settings = MockSettings(replay=replay, record=str(served_to))
    with LoopbackMock(settings) as mock, mock.client(max_retries=0) as client:
        for exchange in exchanges:
            # the SDK parsed exactly what was recorded: each event, each body field
            assert _drive(client, exchange) == _expected(exchange), exchange.label
        served = [(r.method, r.path) for r in mock.requests]
    assert served == [(e.method, e.path) for e in exchanges]
    assert [e.body for e in read_cassette(served_to)] == [e.body for e in exchanges]
    assert conformance_main(["check", "--strict", str(served_to)]) == 0


def test_the_cassettes_cover_polls_and_conversations() -> None:
    kinds = {
        (e.method, e.path.split("/")[2], bool(e.query)) for p in CASSETTES for e in read_cassette(p)
    }
    assert ("GET", "responses", True) in kinds  # a background response polled
    assert ("POST", "conversations", False) in kinds and ("DELETE", "conversations", False) in kinds
    continuations = [
        e
        for p in CASSETTES
        for e in read_cassette(p)
        if e.request_body and "conversation" in json.loads(e.request_body)
    ]
    assert len(continuations) >= 3
