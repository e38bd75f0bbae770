"""The OpenAI Agents SDK (``openai-agents``, in the test extra) keeping state on the mock
(docs/state.md): a Runner with a function tool over several turns, its history in an
``OpenAIConversationsSession`` (the Conversations API) and in an
``OpenAIResponsesCompactionSession`` (``POST /v1/responses/compact`` after every turn, the
compacted window sent back as input). The mock is driven by an agent script (header)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from mock_server.app import MockSettings
from mock_server.testing import LoopbackMock

agents = pytest.importorskip("agents")
openai = pytest.importorskip("openai")

SCRIPT = {
    "rules": [
        {
            "when": "weather",
            "steps": [
                {"call": "get_weather", "arguments": {"city": "Paris"}},
                {"scenario": "auto"},  # answers from the tool's output
            ],
        },
        {"steps": []},  # the mock's reply: recall of a code word, "Reply only with OK."
    ]
}
TURNS = (
    "Remember this code word: PLUM. Reply only with OK.",
    "What is the weather in Paris?",
    "Reply only with YES.",
    "What was the code word I asked you to remember?",
)


@pytest.fixture
def mock() -> Iterator[LoopbackMock]:
    with LoopbackMock(MockSettings(frozen_time=1_700_000_000)) as server:
        yield server


def _agent(client: Any, seen: list[str]) -> Any:
    agents.set_tracing_disabled(True)

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        seen.append(city)
        return f"Sunny in {city}, 21C"

    model = agents.OpenAIResponsesModel(model="gpt-4.1", openai_client=client)
    settings = agents.ModelSettings(extra_headers={"x-mock-script": json.dumps(SCRIPT)})
    return agents.Agent(
        name="assistant",
        instructions="Be brief.",
        tools=[get_weather],
        model=model,
        model_settings=settings,
    )


async def _turns(agent: Any, session: Any) -> list[str]:
    answers = []
    for prompt in TURNS:
        result = await agents.Runner.run(agent, prompt, session=session)
        answers.append(str(result.final_output))
    return answers


def _check_answers(answers: list[str], seen: list[str]) -> None:
    assert answers[0] == "OK"
    assert answers[1].startswith('The tool returned: "Sunny in Paris, 21C".')
    assert answers[2] == "YES"
    assert answers[3] == "The code word was PLUM."  # from three turns back
    assert seen == ["Paris"]


def test_conversations_session_runner_with_a_tool(mock: LoopbackMock) -> None:
    from agents.memory import OpenAIConversationsSession

    seen: list[str] = []

    async def run() -> tuple[list[str], list[Any], str]:
        async with openai.AsyncOpenAI(base_url=mock.base_url, api_key="unused") as client:
            session = OpenAIConversationsSession(openai_client=client)
            answers = await _turns(_agent(client, seen), session)
            items = await session.get_items()
            cid = await session._get_session_id()
            await session.clear_session()
            return answers, items, cid

    answers, items, cid = asyncio.run(run())
    _check_answers(answers, seen)
    kinds = [item.get("type") or item.get("role") for item in items]
    # every turn's input and output, in order: 4 user messages, 4 answers, one call and its output
    assert kinds.count("function_call") == 1 and kinds.count("function_call_output") == 1
    users = [i for i in items if i.get("role") == "user"]
    assert [u["content"] for u in users] == [[{"type": "input_text", "text": t}] for t in TURNS]
    paths = [(r.method, r.path) for r in mock.requests]
    assert ("POST", "/v1/conversations") in paths
    assert ("POST", f"/v1/conversations/{cid}/items") in paths
    assert all(
        r.json().get("store") is not False for r in mock.requests if r.path == "/v1/responses"
    )


def test_compaction_session_runner_with_a_tool(mock: LoopbackMock) -> None:
    from agents import SQLiteSession
    from agents.memory import OpenAIResponsesCompactionSession

    seen: list[str] = []

    async def run() -> tuple[list[str], list[Any]]:
        async with openai.AsyncOpenAI(base_url=mock.base_url, api_key="unused") as client:
            session = OpenAIResponsesCompactionSession(
                session_id="conformance",
                underlying_session=SQLiteSession("conformance"),
                client=client,
                compaction_mode="input",
                should_trigger_compaction=lambda context: True,  # after every turn
            )
            answers = await _turns(_agent(client, seen), session)
            return answers, await session.get_items()

    answers, items = asyncio.run(run())
    _check_answers(answers, seen)
    compactions = [r for r in mock.requests if r.path == "/v1/responses/compact"]
    assert len(compactions) == len(TURNS)
    assert any(item.get("type") == "compaction" for item in items)
    # the last turn's input carried the compaction item the mock made, not the raw history
    last = [r.json() for r in mock.requests if r.path == "/v1/responses"][-1]
    assert any(i.get("type") == "compaction" for i in last["input"])
