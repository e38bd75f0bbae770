"""Other clients people point at Responses servers, used as their docs show, against the mock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mock_server.testing import LoopbackMock

agents = pytest.importorskip("agents")
langchain_openai = pytest.importorskip("langchain_openai")


def test_openai_agents_runner_with_a_function_tool(responses_mock: LoopbackMock) -> None:
    import openai

    agents.set_tracing_disabled(True)
    seen: list[str] = []

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        seen.append(city)
        return f"Sunny in {city}, 21C"

    async def run(prompt: str, streamed: bool) -> str:
        async with openai.AsyncOpenAI(base_url=responses_mock.base_url, api_key="unused") as client:
            model = agents.OpenAIResponsesModel(model="mock", openai_client=client)
            agent = agents.Agent(
                name="weather", instructions="Be brief.", tools=[get_weather], model=model
            )
            if not streamed:
                return str((await agents.Runner.run(agent, prompt)).final_output)
            result = agents.Runner.run_streamed(agent, prompt)
            async for _event in result.stream_events():
                pass
            return str(result.final_output)

    for streamed in (False, True):
        answer = asyncio.run(run("What's the weather in Paris?", streamed))
        assert answer.startswith(f'The tool returned: "Sunny in {seen[-1]}, 21C".')
    assert len(seen) == 2


def test_langchain_chat_openai_responses_api(responses_mock: LoopbackMock) -> None:
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return f"Sunny in {city}"

    import httpx2

    # Our own HTTP client, closed here: LangChain's cached default one outlives the test.
    with httpx2.Client() as http:
        llm = langchain_openai.ChatOpenAI(
            model="mock",
            base_url=responses_mock.base_url,
            api_key="unused",
            use_responses_api=True,
            http_client=http,
        )
        _langchain_round_trip(llm, get_weather)


def _langchain_round_trip(llm: Any, get_weather: Any) -> None:
    from langchain_core.messages import HumanMessage, ToolMessage

    assert 'You said: "Hello there"' in llm.invoke("Hello there").text
    streamed = "".join(chunk.text for chunk in llm.stream("Hello stream"))
    assert streamed.startswith('You said: "Hello stream"')
    bound = llm.bind_tools([get_weather])
    question = HumanMessage("Weather in Paris?")
    ai = bound.invoke([question])
    (call,) = ai.tool_calls
    assert call["name"] == "get_weather" and set(call["args"]) == {"city"}
    result = ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])
    final = bound.invoke([question, ai, result])
    assert final.text.startswith(f'The tool returned: "Sunny in {call["args"]["city"]}".')
