"""The Python clients' flows scripts/capture_clients.py records: ``python_flows.py CLIENT FLOW``.

Each flow uses the client the way its documentation shows, against OPENAI_BASE_URL (the recording
mock). Tool loops are driven by an agent script in the ``x-mock-script`` header
(mock_server/agent_script.py); the catalogue drops that header. Exits non-zero when the client
raised: a refusal by the mock is part of what the capture shows.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

TOOL_LOOP = json.dumps(
    [{"call": ["get_weather"], "arguments": {"city": "Paris"}}, {"say": "Sunny."}]
)
HEADERS = {"x-mock-script": TOOL_LOOP}
MODEL = "gpt-5.4"

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


# --- openai-python ---------------------------------------------------------------------------


def openai_python(flow: str) -> None:
    import openai
    from pydantic import BaseModel

    client = openai.OpenAI(max_retries=0)
    if flow == "stream":
        with client.responses.stream(
            model=MODEL, input="Say hello.", instructions="Be brief."
        ) as s:
            for _ in s:
                pass
            first = s.get_final_response()
        with client.responses.create(
            model=MODEL, input="And again.", previous_response_id=first.id, stream=True
        ) as events:
            for _ in events:
                pass
    elif flow == "parse":

        class City(BaseModel):
            name: str
            country: str

        client.responses.parse(model=MODEL, input="A city in France.", text_format=City)
    elif flow == "background":
        started = client.responses.create(model=MODEL, input="Write a haiku.", background=True)
        for _ in range(50):
            got = client.responses.retrieve(started.id)
            if got.status not in ("queued", "in_progress"):
                break
    elif flow == "connect":
        with client.responses.connect() as connection:
            connection.response.create(model=MODEL, input="Say hello.", store=False)
            for event in connection:
                if event.type in ("response.completed", "response.failed", "error"):
                    break
    elif flow == "compact":
        client.responses.compact(
            model=MODEL,
            input=[{"role": "user", "content": "Remember PLUM."}],
            safety_identifier="user-1234",
            prompt_cache_key="cache-1",
        )
    elif flow == "conversations":
        conversation = client.conversations.create(
            items=[{"type": "message", "role": "user", "content": "Hi"}],
            metadata={"topic": "demo"},
            safety_identifier="user-1234",
        )
        client.responses.create(model=MODEL, input="Say hello.", conversation=conversation.id)
        client.conversations.items.list(conversation.id)
    elif flow == "function-tools":
        first = client.responses.create(
            model=MODEL,
            input="Weather in Paris?",
            tools=[WEATHER_TOOL],  # type: ignore[list-item]
            extra_headers=HEADERS,
            prompt_cache_key="app-cache-1",
            prompt_cache_retention="24h",
            safety_identifier="user-1234",
            service_tier="auto",
            truncation="auto",
            text={"verbosity": "low"},
            reasoning={"effort": "low", "summary": "auto"},
            include=["reasoning.encrypted_content"],
            store=False,
        )
        calls = [i for i in first.output if i.type == "function_call"]
        replay: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
        replay += [i.model_dump(exclude_none=True) for i in first.output]
        replay += [
            {"type": "function_call_output", "call_id": c.call_id, "output": "sunny"} for c in calls
        ]
        client.responses.create(
            model=MODEL,
            input=replay,
            tools=[WEATHER_TOOL],  # type: ignore[list-item]
            extra_headers=HEADERS,
            include=["reasoning.encrypted_content"],
            store=False,
        )
    else:
        raise SystemExit(f"unknown flow {flow}")


# --- the OpenAI Agents SDK -------------------------------------------------------------------


def agents_sdk(flow: str) -> None:
    from agents import (
        Agent,
        ModelSettings,
        OpenAIConversationsSession,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai.types.shared import Reasoning

    set_tracing_disabled(True)

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}."

    settings = ModelSettings(extra_headers=HEADERS)
    if flow == "model-settings":
        settings = ModelSettings(
            temperature=0.3,
            top_p=0.9,
            max_tokens=512,
            parallel_tool_calls=True,
            tool_choice="auto",
            truncation="auto",
            store=False,
            reasoning=Reasoning(effort="low", summary="auto"),
            verbosity="low",
            metadata={"app": "capture"},
            prompt_cache_retention="24h",
            top_logprobs=2,
            include_usage=True,
            response_include=["reasoning.encrypted_content"],
            extra_headers=HEADERS,
        )
    agent = Agent(
        name="Weather",
        instructions="Answer with the weather tool.",
        model=MODEL,
        tools=[get_weather],
        model_settings=settings,
    )
    if flow in ("runner-tools", "model-settings"):
        Runner.run_sync(agent, "Weather in Paris?")
    elif flow == "streamed":

        async def streamed() -> None:
            result = Runner.run_streamed(agent, "Weather in Paris?")
            async for _ in result.stream_events():
                pass

        asyncio.run(streamed())
    elif flow == "conversations-session":

        async def session() -> None:
            conversation = OpenAIConversationsSession()
            await Runner.run(agent, "Weather in Paris?", session=conversation)
            await Runner.run(agent, "And in Rome?", session=conversation)

        asyncio.run(session())
    else:
        raise SystemExit(f"unknown flow {flow}")


# --- LangChain -------------------------------------------------------------------------------


def langchain(flow: str) -> None:
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_openai import ChatOpenAI

    if flow == "invoke-tools":
        llm = ChatOpenAI(
            model=MODEL, use_responses_api=True, default_headers=HEADERS, max_retries=0
        )
        bound = llm.bind_tools([WEATHER_TOOL | {"type": "function"}])
        messages: list[Any] = [HumanMessage("Weather in Paris?")]
        first = bound.invoke(messages)
        messages.append(first)
        for call in first.tool_calls:
            messages.append(ToolMessage("sunny", tool_call_id=call["id"]))
        bound.invoke(messages)
    elif flow == "stream-reasoning":
        llm = ChatOpenAI(
            model=MODEL,
            use_responses_api=True,
            reasoning={"effort": "low", "summary": "auto"},
            output_version="responses/v1",
            max_retries=0,
        )
        for _ in llm.stream("Say hello."):
            pass
    else:
        raise SystemExit(f"unknown flow {flow}")


if __name__ == "__main__":
    client_name, flow_name = sys.argv[1], sys.argv[2]
    {"openai-python": openai_python, "agents-sdk": agents_sdk, "langchain": langchain}[client_name](
        flow_name
    )
