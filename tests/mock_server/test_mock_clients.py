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


def _run_agent(responses_mock: LoopbackMock, tools: list[Any], prompt: str, streamed: bool) -> Any:
    import openai

    agents.set_tracing_disabled(True)

    async def run() -> Any:
        async with openai.AsyncOpenAI(base_url=responses_mock.base_url, api_key="unused") as client:
            model = agents.OpenAIResponsesModel(model="mock", openai_client=client)
            agent = agents.Agent(name="hosted", instructions="Be brief.", tools=tools, model=model)
            if not streamed:
                return await agents.Runner.run(agent, prompt)
            result = agents.Runner.run_streamed(agent, prompt)
            async for _event in result.stream_events():
                pass
            return result

    return asyncio.run(run())


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_openai_agents_with_a_hosted_web_search(
    responses_mock: LoopbackMock, streamed: bool
) -> None:
    result = _run_agent(responses_mock, [agents.WebSearchTool()], "Find Paris museums.", streamed)
    assert str(result.final_output).startswith('Search results for "Find Paris museums."')
    kinds = [type(item).__name__ for item in result.new_items]
    assert kinds[0] == "ToolCallItem" and kinds[-1] == "MessageOutputItem"


@pytest.mark.parametrize("approve", [True, False])
def test_openai_agents_hosted_mcp_with_an_approval(
    responses_mock: LoopbackMock, approve: bool
) -> None:
    asked: list[str] = []

    def on_approval(request: Any) -> Any:
        asked.append(request.data.name)
        return {"approve": approve}

    mcp = agents.HostedMCPTool(
        tool_config={"type": "mcp", "server_label": "idx", "server_url": "https://mcp.invalid/mcp",
                     "require_approval": "always"},
        on_approval_request=on_approval,
    )  # fmt: skip
    # The second request carries mcp_* input items: a 400 on them fails the test.
    result = _run_agent(responses_mock, [mcp], "Look up lighthouses.", False)
    assert asked == ["lookup"]
    answer = str(result.final_output)
    if approve:
        assert answer.startswith("The idx server says: Look up lighthouses.")
    else:
        assert answer == "Understood: the idx tool was not called."
