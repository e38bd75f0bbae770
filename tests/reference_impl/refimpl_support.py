"""Test doubles for the protocol layer: a scripted engine and helpers to read SSE bytes."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import openai
import orjson

from reference_impl.engine import (
    Chunk,
    EngineError,
    Final,
    GenerationRequest,
    TextDelta,
)
from reference_impl.ids import IdSource


class FrozenIds:
    """Ids derived from the request body (minus ``stream``) and a per-request counter: the same
    request gives the same ids, so a stream and a non-stream answer can be compared byte for byte."""

    def scope(self, body: Mapping[str, Any]) -> IdSource:
        seed = abs(hash(repr(sorted((k, repr(v)) for k, v in body.items() if k != "stream"))))
        counter = itertools.count()
        return lambda prefix: f"{prefix}_{seed:x}{next(counter):04d}"


ServeFn = Callable[..., Any]
"""The ``serve`` fixture: ``serve(engine, **create_app_options)`` → a running ServerThread."""


@dataclass(frozen=True)
class WaitFor:
    """A script step: block (politely) until ``gate`` is set — lets a test hold a stream open."""

    gate: threading.Event


Step = Chunk | EngineError | WaitFor


def text_script(*pieces: str, input_tokens: int = 5) -> list[Step]:
    return [*(TextDelta(p) for p in pieces), Final("stop", input_tokens, len(pieces))]


class ScriptedEngine:
    """Answers each request with the next queued script (a list of chunks); records what it saw.

    An :class:`EngineError` in a script is raised at that point; :class:`WaitFor` pauses there.
    With no script queued it answers "ok".
    """

    def __init__(self, *scripts: Sequence[Step], models: Sequence[str] = ("test-model",)) -> None:
        self.scripts: deque[Sequence[Step]] = deque(scripts)
        self.requests: list[GenerationRequest] = []
        self.closed = 0
        self.models = tuple(models)

    def push(self, *scripts: Sequence[Step]) -> None:
        self.scripts.extend(scripts)

    def generate(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        script = self.scripts.popleft() if self.scripts else text_script("ok")
        return self._run(script)

    async def _run(self, script: Iterable[Step]) -> AsyncIterator[Chunk]:
        try:
            for step in script:
                if isinstance(step, EngineError):
                    raise step
                if isinstance(step, WaitFor):
                    while not step.gate.is_set():
                        await asyncio.sleep(0.002)
                    continue
                yield step
        finally:
            self.closed += 1

    async def count_input_tokens(self, request: GenerationRequest) -> int:
        return sum(len(m.content.split()) + 1 for m in request.messages)

    def model_ids(self) -> Sequence[str]:
        return self.models


class EndlessEngine(ScriptedEngine):
    """Streams text forever (a little at a time) until closed; ``closed`` counts ``aclose``."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.closed_event = threading.Event()

    def generate(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        return self._endless()

    async def _endless(self) -> AsyncIterator[Chunk]:
        try:
            self.started.set()
            while True:
                yield TextDelta("tick ")
                await asyncio.sleep(0.002)
        finally:
            self.closed += 1
            self.closed_event.set()


def parse_sse(data: bytes) -> tuple[list[dict[str, Any]], list[str], bool]:
    """(events, their `event:` names, whether `[DONE]` ended the stream) from raw SSE bytes."""
    events: list[dict[str, Any]] = []
    names: list[str] = []
    done = False
    for frame in data.decode().split("\n\n"):
        if not frame.strip():
            continue
        name = None
        payload = []
        for line in frame.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                payload.append(value)
            else:
                raise AssertionError(f"unexpected SSE line {line!r}")
        body = "\n".join(payload)
        if body == "[DONE]":
            done = True
            continue
        assert not done, "an event followed [DONE]"
        events.append(orjson.loads(body))
        names.append(name or "")
    return events, names, done


def final_usage(output_tokens: int = 3, **kw: int) -> Final:
    return Final("stop", kw.pop("input_tokens", 5), output_tokens, **kw)


def scripts() -> dict[str, list[Step]]:
    """One engine script per kind of stream the protocol layer must produce."""
    from reference_impl.engine import (
        HostedToolCall,
        ReasoningDelta,
        ReasoningItem,
        RefusalDelta,
        ToolCallDelta,
    )

    return {
        "text": text_script("Hello", ", ", "world", "! A longer delta than sixteen chars."),
        "reasoning_summary": [
            ReasoningDelta("Thinking ", summary_index=0),
            ReasoningDelta("hard.", summary_index=0),
            ReasoningDelta("Second part.", summary_index=1),
            TextDelta("Answer."),
            Final("stop", 9, 12, reasoning_tokens=8),
        ],
        "reasoning_raw": [
            ReasoningDelta("raw ", kind="raw"),
            ReasoningDelta("thoughts", kind="raw"),
            TextDelta("Done."),
            Final("stop", 9, 6, reasoning_tokens=3),
        ],
        # reasoning.effort without reasoning.summary: the item shows no text ([REC]).
        "reasoning_hidden": [
            ReasoningItem(),
            ToolCallDelta(0, '{"city":"Rome"}', name="get_weather"),
            ReasoningItem(),
            TextDelta("Sunny."),
            Final("stop", 9, 40, reasoning_tokens=32),
        ],
        "refusal": [RefusalDelta("I can't "), RefusalDelta("help with that."), Final("stop", 4, 5)],
        "function_call": [
            ToolCallDelta(0, '{"city":', name="get_weather", call_id="call_abc"),
            ToolCallDelta(0, '"Paris"}'),
            Final("tool_calls", 20, 8),
        ],
        "parallel_calls": [
            ToolCallDelta(0, '{"city":"Paris"}', name="get_weather"),
            ToolCallDelta(1, "", name="get_time"),
            ToolCallDelta(1, '{"tz":"CET"}'),
            Final("tool_calls", 20, 16),
        ],
        "text_then_tool": [
            TextDelta("Let me check."),
            ToolCallDelta(0, '{"city":"Oslo"}', name="get_weather"),
            Final("tool_calls", 12, 9),
        ],
        "web_search": [
            HostedToolCall("web_search_call", {"type": "search", "query": "news"}),
            TextDelta("Here is the news."),
            Final("stop", 30, 6),
        ],
        "cut_off": [TextDelta("This is cut"), TextDelta(" off"), Final("length", 5, 16)],
        "content_filter": [TextDelta("Some"), Final("content_filter", 5, 1)],
        "failure_midstream": [
            TextDelta("partial"),
            EngineError("the engine broke", "server_error"),
        ],
        "failure_final": [Final("error", 5, 0, error_code="server_error", error_message="boom")],
    }


def check_stream(events: list[dict[str, Any]], *, first_seq: int = 0) -> None:
    """The invariants of SPEC §2 the tests rely on (the judge's validator checks them all)."""
    assert [e["sequence_number"] for e in events] == list(range(first_seq, first_seq + len(events)))
    lifecycle = [e for e in events if "response" in e]
    assert len({e["response"]["id"] for e in lifecycle}) == 1
    assert len({e["response"]["created_at"] for e in lifecycle}) == 1
    terminal = events[-1]
    assert terminal["type"] in ("response.completed", "response.incomplete", "response.failed")
    for e in lifecycle[:-1]:
        assert e["response"]["status"] in ("queued", "in_progress")
        assert e["response"]["output"] == [] and e["response"]["usage"] is None
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    added = [e for e in events if e["type"] == "response.output_item.added"]
    assert [e["output_index"] for e in added] == list(range(len(added)))
    assert terminal["response"]["output"] == done
    deltas: dict[tuple[str, Any], str] = {}
    for e in events:
        if e["type"].endswith(".delta"):
            key = (e["item_id"], e.get("content_index", e.get("summary_index")))
            deltas[key] = deltas.get(key, "") + e["delta"]
            assert "obfuscation" not in e or e["type"] in _OBFUSCATED
        elif e["type"].endswith(".done") and e["type"] not in _NO_VALUE_DONE:
            key = (e["item_id"], e.get("content_index", e.get("summary_index")))
            value = e.get("text", e.get("refusal", e.get("arguments")))
            assert deltas.get(key, "") == value
            assert "obfuscation" not in e


_OBFUSCATED = {
    "response.output_text.delta",
    "response.function_call_arguments.delta",
    "response.reasoning_summary_text.delta",
}
_NO_VALUE_DONE = {
    "response.output_item.done",
    "response.content_part.done",
    "response.reasoning_summary_part.done",
}


def sdk_client(server: Any, **options: Any) -> openai.OpenAI:
    """The official SDK pointed at a running :class:`~reference_impl.server.ServerThread`."""
    options.setdefault("api_key", "test")
    options.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=server.base_url + "/v1", **options)
