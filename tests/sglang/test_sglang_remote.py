"""The remote backend: the engine against a running SGLang server's native ``/generate``, tool
calls through SGLang's qwen25 parser, usage from ``meta_info``, and an abort that
SGLang honours."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

pytest.importorskip("sglang", reason="SGLang is not installed (tox -e sglang installs it)")

import httpx2
from sglang_support import SpyBackend, Stack

from reference_impl.engine import (
    Final,
    FunctionTool,
    GenerationRequest,
    Message,
    TextDelta,
    ToolCallDelta,
)
from reference_impl.sglang.backends import HTTPBackend
from reference_impl.sglang.engine import SGLangConfig, SGLangEngine

WEATHER = FunctionTool(
    "get_weather",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city", "unit"],
    },
    "Get the weather.",
)


def _engine(stack: Stack) -> tuple[SGLangEngine, SpyBackend]:
    native = stack.native["tools"]
    http = HTTPBackend(native.base_url)
    info = http.server_info()
    spy = SpyBackend(http)
    config = SGLangConfig(
        model_path=str(stack.models["tools"]), tool_call_parser=info["tool_call_parser"]
    )
    return SGLangEngine(spy, config), spy  # type: ignore[arg-type]


async def _collect(engine: SGLangEngine, request: GenerationRequest) -> list[Any]:
    return [chunk async for chunk in engine.generate(request)]


def test_remote_generate_parses_parallel_tool_calls(stack: Stack) -> None:
    request = GenerationRequest("m", [Message("user", "weather?")], tools=[WEATHER])

    async def run() -> tuple[list[Any], int]:
        engine, _spy = _engine(stack)
        try:
            return await _collect(engine, request), await engine.count_input_tokens(request)
        finally:
            await engine.close()

    chunks, counted = asyncio.run(run())
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        if isinstance(chunk, ToolCallDelta):
            call = calls.setdefault(chunk.index, {"name": chunk.name or "", "arguments": ""})
            call["arguments"] += chunk.arguments
    assert [c["name"] for c in calls.values()] == ["get_weather", "get_weather"]
    assert calls[0]["arguments"] == '{"city": "Paris", "unit": "celsius"}'
    assert calls[1]["arguments"] == '{"city": "Tokyo", "unit": "celsius"}'
    final = chunks[-1]
    assert isinstance(final, Final) and final.finish_reason == "tool_calls"
    assert final.input_tokens == counted
    assert final.output_tokens == 9  # the scripted pieces + EOS, from SGLang's meta_info


def _running(base_url: str) -> int:
    loads = httpx2.get(f"{base_url}/v1/loads", params={"include": "core"}, timeout=10).json()
    return sum(int(load.get("num_running_reqs") or 0) for load in loads.get("loads") or ())


def test_remote_close_aborts_the_sglang_request(stack: Stack) -> None:
    request = GenerationRequest("m", [Message("user", "Tell me a story")], max_output_tokens=3000)
    native = stack.native["tools"].base_url

    async def read_some() -> tuple[str, SpyBackend, int]:
        engine, spy = _engine(stack)
        stream = engine.generate(request)
        text = ""
        try:
            async for chunk in stream:
                if isinstance(chunk, TextDelta):
                    text += chunk.text
                    if len(text) > 40:
                        break
            running = 0
            deadline = time.monotonic() + 5  # the load snapshot trails the scheduler a little
            while not running and time.monotonic() < deadline:
                running = await asyncio.to_thread(_running, native)  # the story is generating
            await stream.aclose()  # what the app does when the client goes away
        finally:
            await engine.close()
        return text, spy, running

    text, spy, running = asyncio.run(read_some())
    assert text.startswith("Once upon a time")
    assert running == 1
    assert spy.aborted == spy.started
    deadline = time.monotonic() + 10
    while _running(native) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _running(native) == 0, "SGLang kept generating after the stream was closed"
