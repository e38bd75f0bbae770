"""Real WebSocket clients against the mock: the openai SDK's ``responses.connect()`` (sync and
async, several responses and lanes) and the Agents SDK's ``OpenAIResponsesWSModel`` in a Runner
with a function tool. Every frame the SDK received is judged (``recv_bytes`` gives them raw).

Not here: the in-process fixture (``responses_mock_inprocess``). The SDK opens its WebSocket with
the ``websockets`` library on a real socket, not through the ``httpx2`` transport the in-process
handle replaces, so WebSocket mode needs the loopback fixtures.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from conformance.catalog.registry import Level
from conformance.websocket import SessionValidator
from mock_server.testing import LoopbackMock

agents = pytest.importorskip("agents")

TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _failing(judge: SessionValidator) -> list[str]:
    judge.close()
    return [v.format() for v in judge.all_violations() if v.level is not Level.INFO]


def test_sdk_sync_connect_several_responses_and_lanes(responses_mock: LoopbackMock) -> None:
    client = responses_mock.client()
    judge = SessionValidator()
    with client.responses.connect() as conn:

        def create(**body: object) -> None:
            judge.client(json.dumps({"type": "response.create", **body}))
            conn.response.create(**body)  # type: ignore[arg-type]

        create(model="mock", input="first")
        create(model="mock", input="second")
        create(model="mock", input="on lane a", stream_id="a")
        create(model="mock", input="on lane b", stream_id="b")
        finals = {}
        while len(finals) < 4:
            raw = conn.recv_bytes()
            judge.server(raw.decode())
            event = conn.parse_event(raw)
            if event.type in TERMINAL:
                finals[event.response.id] = (getattr(event, "stream_id", None), event.response)
    lanes = sorted(str(lane) for lane, _ in finals.values())
    assert lanes == ["None", "None", "a", "b"]
    assert all(r.status == "completed" and r.output_text for _, r in finals.values())
    assert _failing(judge) == []


def test_sdk_async_connect_chain_across_lanes(responses_mock: LoopbackMock) -> None:
    async def run() -> list[str]:
        judge = SessionValidator()
        client = responses_mock.async_client()
        async with client, client.responses.connect() as conn:

            async def turn(**body: object) -> object:
                judge.client(json.dumps({"type": "response.create", **body}))
                await conn.response.create(**body)  # type: ignore[arg-type]
                while True:
                    raw = await conn.recv_bytes()
                    judge.server(raw.decode())
                    event = conn.parse_event(raw)
                    if event.type in TERMINAL:
                        return event.response

            first = await turn(model="mock", input="My name is Ada.", stream_id="main")
            second = await turn(
                model="mock",
                input="What is my name?",
                stream_id="fork",
                previous_response_id=first.id,  # type: ignore[attr-defined]
            )
            assert second.previous_response_id == first.id  # type: ignore[attr-defined]
        return _failing(judge)

    assert asyncio.run(run()) == []


def test_agents_sdk_websocket_model_in_a_runner_with_a_function_tool(
    responses_mock: LoopbackMock,
) -> None:
    import openai

    ws_model = getattr(agents, "OpenAIResponsesWSModel", None)
    if ws_model is None:  # pragma: no cover - openai-agents before WebSocket mode
        from agents.models.openai_responses import OpenAIResponsesWSModel as ws_model
    agents.set_tracing_disabled(True)
    seen: list[str] = []

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        seen.append(city)
        return f"Sunny in {city}, 21C"

    async def run(streamed: bool) -> str:
        async with openai.AsyncOpenAI(base_url=responses_mock.base_url, api_key="unused") as client:
            model = ws_model(model="mock", openai_client=client)
            agent = agents.Agent(
                name="weather", instructions="Be brief.", tools=[get_weather], model=model
            )
            prompt = "What's the weather in Paris?"
            if not streamed:
                answer = str((await agents.Runner.run(agent, prompt)).final_output)
            else:
                result = agents.Runner.run_streamed(agent, prompt)
                async for _event in result.stream_events():
                    pass
                answer = str(result.final_output)
            await model.close() if hasattr(model, "close") else None
            return answer

    before = len(responses_mock.requests)
    for streamed in (False, True):
        answer = asyncio.run(run(streamed))
        assert answer.startswith(f'The tool returned: "Sunny in {seen[-1]}, 21C".')
    assert len(seen) == 2
    # Both turns of each run (the call, then the tool output) went over the socket.
    assert [r.method for r in responses_mock.requests[before:]] == ["WS"] * 4
