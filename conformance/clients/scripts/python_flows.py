"""The Python clients' flows: ``python python_flows.py CLIENT FLOW`` (run by the harness in a
subprocess, with the client's own interpreter; it imports nothing of this project).

Each flow uses the client as its documentation shows, against ``OPENAI_BASE_URL`` with
``OPENAI_API_KEY`` and the model ``RESPONSES_CLIENTS_MODEL``, and checks what a user would: the
answer came, the tool was called, the parsed object is there. It prints ``ok: ...`` and exits 0
when the flow worked; otherwise the client's own exception (its traceback) goes to stderr and it
exits 1 (``FlowFailed``: the client finished but the flow did not do what it should; 3).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

MODEL = os.environ.get("RESPONSES_CLIENTS_MODEL", "gpt-5.4")
ASK_WEATHER = "What's the weather in Paris? Use the get_weather tool."

WEATHER_TOOL: Any = {  # a FunctionToolParam, as a user writes it
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


class FlowFailed(Exception):
    """The client worked, but the flow did not end as it should."""


def _text(value: str | None, what: str) -> str:
    if not value or not value.strip():
        raise FlowFailed(f"{what}: no text in the answer")
    return value


# --- openai-python ---------------------------------------------------------------------------


def openai_python(flow: str) -> str:
    import openai

    client = openai.OpenAI(max_retries=0)
    if flow == "stream":
        deltas = 0
        with client.responses.stream(model=MODEL, input="Say hello in one line.") as stream:
            for event in stream:
                deltas += event.type == "response.output_text.delta"
            final = stream.get_final_response()
        _text(final.output_text, "responses.stream")
        # then chained on the streamed response at once, as the captured stream flow does
        with client.responses.stream(
            model=MODEL, input="And again.", previous_response_id=final.id
        ) as again:
            for event in again:
                deltas += event.type == "response.output_text.delta"
            chained = again.get_final_response()
        _text(chained.output_text, "responses.stream chained on the streamed response")
        return f"{deltas} text deltas, status {chained.status}, chained on {final.id}"
    if flow == "tools":
        # the parameters of the captured function-tools flow (scripts/client_capture): the
        # client:openai-python profile judges them, so the client runs with them here too
        first = client.responses.create(
            model=MODEL,
            input=ASK_WEATHER,
            tools=[WEATHER_TOOL],
            store=False,
            prompt_cache_key="app-cache-1",
            prompt_cache_retention="24h",
            safety_identifier="user-1234",
            service_tier="auto",
            truncation="auto",
            text={"verbosity": "low"},
            reasoning={"effort": "low", "summary": "auto"},
            include=["reasoning.encrypted_content"],
        )
        calls = [i for i in first.output if i.type == "function_call"]
        if not calls:
            raise FlowFailed(f"the model did not call get_weather: {first.output_text[:200]!r}")
        history: list[Any] = [{"role": "user", "content": ASK_WEATHER}]
        history += [i.model_dump(exclude_none=True) for i in first.output]
        history += [
            {"type": "function_call_output", "call_id": c.call_id, "output": "Sunny, 21 C."}
            for c in calls
        ]
        second = client.responses.create(
            model=MODEL,
            input=history,
            tools=[WEATHER_TOOL],
            store=False,
            include=["reasoning.encrypted_content"],
        )
        _text(second.output_text, "the answer after the tool output")
        return f"{len(calls)} call(s), then an answer"
    if flow == "parse":
        from pydantic import BaseModel

        class City(BaseModel):
            name: str
            country: str

        parsed = client.responses.parse(
            model=MODEL, input="Name a city in France, as JSON.", text_format=City
        )
        if not isinstance(parsed.output_parsed, City):
            raise FlowFailed(f"no parsed City: {parsed.output_text[:200]!r}")
        return f"parsed {parsed.output_parsed!r}"
    if flow == "connect":
        text = []
        with client.responses.connect() as connection:
            connection.response.create(model=MODEL, input="Say hello in one line.", store=False)
            for ws_event in connection:
                if ws_event.type == "response.output_text.delta":
                    text.append(ws_event.delta)
                if ws_event.type == "error":
                    raise FlowFailed(f"an error event: {ws_event!r}"[:600])
                if ws_event.type in (
                    "response.completed",
                    "response.failed",
                    "response.incomplete",
                ):
                    if ws_event.type != "response.completed":
                        raise FlowFailed(f"the response ended {ws_event.type}")
                    break
            else:
                raise FlowFailed("the socket ended before response.completed")
        _text("".join(text), "responses.connect()")
        return "one response over WebSocket"
    raise SystemExit(f"unknown flow {flow}")


# --- the OpenAI Agents SDK -------------------------------------------------------------------


def agents_sdk(flow: str) -> str:
    from agents import (
        Agent,
        OpenAIConversationsSession,
        Runner,
        function_tool,
        set_tracing_disabled,
    )

    set_tracing_disabled(True)
    called: list[str] = []

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        called.append(city)
        return f"Sunny in {city}, 21 C."

    agent = Agent(
        name="Assistant",
        instructions="You are a helpful assistant. Use the weather tool for the weather.",
        model=MODEL,
        tools=[get_weather],
    )
    if flow == "runner-tools":
        result = Runner.run_sync(agent, ASK_WEATHER)
        if not called:
            raise FlowFailed("the agent never ran get_weather")
        _text(str(result.final_output), "Runner.run_sync")
        return f"get_weather({called[0]!r}), then {str(result.final_output)[:80]!r}"
    if flow == "streamed":

        async def streamed() -> str:
            result = Runner.run_streamed(agent, ASK_WEATHER)
            async for _ in result.stream_events():
                pass
            return str(result.final_output)

        final = asyncio.run(streamed())
        if not called:
            raise FlowFailed("the agent never ran get_weather")
        _text(final, "Runner.run_streamed")
        return f"get_weather({called[0]!r}), streamed"
    if flow == "conversation-session":

        async def session() -> str:
            conversation = OpenAIConversationsSession()
            await Runner.run(agent, "My name is Ada. Just say hello.", session=conversation)
            result = await Runner.run(agent, "What is my name?", session=conversation)
            return str(result.final_output)

        answer = asyncio.run(session())
        if "ada" not in answer.lower():
            raise FlowFailed(f"the second turn lost the first: {answer[:200]!r}")
        return f"two turns in a conversation: {answer[:80]!r}"
    raise SystemExit(f"unknown flow {flow}")


def main(argv: list[str]) -> int:
    client, flow = argv[1], argv[2]
    run = {"openai-python": openai_python, "agents-sdk": agents_sdk}[client]
    try:
        said = run(flow)
    except FlowFailed as exc:
        print(f"flow failed: {exc}", file=sys.stderr)
        return 3
    print(f"ok: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
