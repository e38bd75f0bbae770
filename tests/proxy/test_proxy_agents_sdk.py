"""The Agents SDK through the proxy in front of the mock — a Runner with a function tool, its
history in a Conversations session, streamed and not, and WebSocket mode (``OpenAIResponsesWSModel``
and the openai SDK's ``responses.connect()``): the client unaffected, every exchange judged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from proxy_support import proxy

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
        {"steps": []},
    ]
}


def _agent(model: Any, seen: list[str], headers: bool = True) -> Any:
    agents.set_tracing_disabled(True)

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        seen.append(city)
        return f"Sunny in {city}, 21C"

    settings = agents.ModelSettings(
        extra_headers={"x-mock-script": json.dumps(SCRIPT)} if headers else None
    )
    return agents.Agent(
        name="assistant", instructions="Be brief.", tools=[get_weather], model=model,
        model_settings=settings,
    )  # fmt: skip


def test_agents_sdk_runner_through_the_proxy(mock: Any, tmp_path: Path) -> None:
    from agents.memory import OpenAIConversationsSession

    seen: list[str] = []

    async def run(base_url: str) -> list[str]:
        async with openai.AsyncOpenAI(base_url=base_url, api_key="sk-agents-canary-42") as client:
            model = agents.OpenAIResponsesModel(model="gpt-4.1", openai_client=client)
            agent = _agent(model, seen)
            session = OpenAIConversationsSession(openai_client=client)
            answers = []
            result = await agents.Runner.run(
                agent, "What is the weather in Paris?", session=session
            )
            answers.append(str(result.final_output))
            streamed = agents.Runner.run_streamed(agent, "And the weather again?", session=session)
            async for _event in streamed.stream_events():
                pass
            answers.append(str(streamed.final_output))
            await session.clear_session()
            return answers

    with proxy(mock.base_url, "--profile", "core,stateful,tools,conversations",
               report_dir=tmp_path) as run_:  # fmt: skip
        answers = asyncio.run(run(run_.base_url))
    for answer in answers:
        assert answer.startswith('The tool returned: "Sunny in Paris, 21C".'), answer
    assert seen == ["Paris", "Paris"]
    assert run_.code == 0, run_.stdout[-3000:] + run_.stderr
    lines = run_.exchange_lines()
    assert len(lines) == run_.index["proxy"]["exchanges"] >= 6
    assert all(ln.startswith("PASS ") for ln in lines), lines
    kinds = {c["id"] for c in run_.target["cases"]}
    assert {"proxy/responses.create", "proxy/responses.create.stream",
            "proxy/conversations.create", "proxy/conversations.items.create",
            "proxy/conversations.items.list"} <= kinds  # fmt: skip
    assert "sk-agents-canary-42" not in (tmp_path / "index.json").read_text()


def test_websocket_mode_through_the_proxy(mock: Any, tmp_path: Path) -> None:
    ws_model = getattr(agents, "OpenAIResponsesWSModel", None)
    if ws_model is None:  # pragma: no cover - openai-agents before WebSocket mode
        from agents.models.openai_responses import OpenAIResponsesWSModel as ws_model
    seen: list[str] = []

    async def run(base_url: str) -> str:
        async with openai.AsyncOpenAI(base_url=base_url, api_key="unused") as client:
            model = ws_model(model="mock", openai_client=client)
            agent = _agent(model, seen, headers=False)
            answer = str(
                (await agents.Runner.run(agent, "What's the weather in Paris?")).final_output
            )
            if hasattr(model, "close"):
                await model.close()
            return answer

    def sdk_connect(base_url: str) -> list[str]:
        client = openai.OpenAI(base_url=base_url, api_key="unused")
        done: list[str] = []
        with client.responses.connect() as conn:
            conn.response.create(model="mock", input="first")  # type: ignore[arg-type]
            conn.response.create(model="mock", input="on lane a", stream_id="a")  # type: ignore[arg-type,call-arg]
            while len(done) < 2:
                event = conn.parse_event(conn.recv_bytes())
                if event.type == "response.completed":
                    done.append(event.response.status)
        return done

    with proxy(mock.base_url, "--profile", "core,websocket", report_dir=tmp_path) as run_:
        answer = asyncio.run(run(run_.base_url))
        statuses = sdk_connect(run_.base_url)
    assert answer.startswith(f'The tool returned: "Sunny in {seen[-1]}, 21C".'), answer
    assert statuses == ["completed", "completed"]
    assert run_.code == 0, run_.stdout[-3000:] + run_.stderr
    ws_lines = [ln for ln in run_.exchange_lines() if "over a WebSocket" in ln]
    assert len(ws_lines) == 2 and all(ln.startswith("PASS ") for ln in ws_lines), ws_lines
    outcomes = run_.outcomes()
    assert outcomes["ws.request.answered"] == "pass"
    assert outcomes["stream.sequence.contiguous"] == "pass"
    assert outcomes["live.ws.upgrade"] == "pass"
