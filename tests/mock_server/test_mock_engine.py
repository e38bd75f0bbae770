from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import jsonschema
import pytest

from mock_server.engine import Chunking, Latency, MockEngine
from mock_server.instructions import MAX_ASKS, asks, reply
from mock_server.scenarios import HIDDEN_REASONING_TOKENS, SCENARIOS
from reference_impl.engine import (
    Chunk,
    EngineError,
    EngineHints,
    Final,
    FunctionTool,
    GenerationRequest,
    HostedToolCall,
    Message,
    ReasoningDelta,
    ReasoningItem,
    RefusalDelta,
    TextAnnotation,
    TextDelta,
    ToolCallDelta,
)


def independent_count(text: str) -> int:
    """The tokenizer's documented rule, re-implemented by hand (not the module's regex)."""
    n, i = 0, 0
    while i < len(text):
        j = i
        while j < len(text) and text[j].isspace():
            j += 1
        if j == len(text):
            return n + 1  # trailing whitespace run
        if re.match(r"\w", text[j]):
            while j < len(text) and re.match(r"\w", text[j]):
                j += 1
        else:
            j += 1
        n, i = n + 1, j
    return n


def run(engine: MockEngine, request: GenerationRequest) -> list[Chunk | EngineError]:
    async def collect() -> list[Chunk | EngineError]:
        out: list[Chunk | EngineError] = []
        try:
            async for chunk in engine.generate(request):
                out.append(chunk)
        except EngineError as error:
            out.append(error)
        return out

    return asyncio.run(collect())


def req(
    model: str = "mock", text: str = "What is the weather in Paris?", **kw: Any
) -> GenerationRequest:
    return GenerationRequest(model=model, messages=[Message("user", text)], **kw)


def streamed_text(chunks: list[Chunk | EngineError]) -> str:
    parts = []
    for c in chunks:
        if isinstance(c, TextDelta | RefusalDelta | ReasoningDelta):
            parts.append(c.text)
        elif isinstance(c, ToolCallDelta):
            parts.append(c.arguments)
    return "".join(parts)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scenario_is_deterministic_and_counts_exactly(scenario: str) -> None:
    a = run(MockEngine(seed=7), req(f"mock-{scenario}"))
    b = run(MockEngine(seed=7), req(f"mock-{scenario}"))
    assert list(map(repr, a)) == list(map(repr, b))
    final = a[-1]
    if scenario == "failure":
        assert isinstance(final, EngineError)
        return
    assert isinstance(final, Final)
    # Output = every streamed token, counted per item; items are split where the kind changes.
    items: dict[tuple[str, int], str] = {}
    for c in a[:-1]:
        if isinstance(c, TextAnnotation):
            continue  # a citation on the text before it: no tokens of its own
        if isinstance(c, ToolCallDelta):
            key = ("call", c.index)
        elif isinstance(c, ReasoningDelta):
            key = (c.kind, c.summary_index)
        else:
            key = (type(c).__name__, 0)
        text = c.action["query"] if isinstance(c, HostedToolCall) else getattr(c, "text", None)
        text = c.arguments if isinstance(c, ToolCallDelta) else text
        items[key] = items.get(key, "") + str(text)
    assert final.output_tokens == sum(independent_count(t) for t in items.values())
    reasoning = sum(independent_count(t) for k, t in items.items() if k[0] in ("summary", "raw"))
    assert final.reasoning_tokens == reasoning
    assert final.input_tokens == asyncio.run(
        MockEngine().count_input_tokens(req(f"mock-{scenario}"))
    )
    assert final.input_tokens == 3 + 3 + independent_count("What is the weather in Paris?")


def test_seed_changes_the_text() -> None:
    assert streamed_text(run(MockEngine(seed=1), req())) != streamed_text(
        run(MockEngine(seed=2), req())
    )


def test_text_echoes_the_last_user_message() -> None:
    assert 'You said: "What is the weather in Paris?" (turn 1).' in streamed_text(
        run(MockEngine(), req("mock-text"))
    )


def test_scenario_sources_in_priority_order() -> None:
    engine = MockEngine(scenario="refusal")
    assert engine.scenario_for(req()) == "refusal"
    assert engine.scenario_for(req("mock-reasoning")) == "reasoning"
    with_meta = req("mock-reasoning", metadata={"mock_scenario": "web-search"})
    assert engine.scenario_for(with_meta) == "web-search"
    with_header = GenerationRequest(
        model="mock-reasoning",
        messages=[Message("user", "x")],
        metadata={"mock_scenario": "web-search"},
        hints=EngineHints(headers={"x-mock-scenario": "failure"}),
    )
    assert engine.scenario_for(with_header) == "failure"
    with pytest.raises(EngineError, match="Unknown mock scenario 'nope'"):
        engine.scenario_for(req(metadata={"mock_scenario": "nope"}))


def test_queue_scripts_then_falls_back() -> None:
    engine = MockEngine()
    engine.queue(
        "refusal", [TextDelta("Hello"), TextDelta(" there.")], [TextDelta("x"), EngineError("boom")]
    )
    assert isinstance(run(engine, req())[0], RefusalDelta)
    scripted = run(engine, req())
    assert scripted == [TextDelta("Hello"), TextDelta(" there."), Final("stop", 13, 3)]
    failing = run(engine, req())
    assert isinstance(failing[-1], EngineError) and failing[-1].message == "boom"
    assert isinstance(run(engine, req("mock-text"))[0], TextDelta)
    assert len(engine.requests) == 4
    with pytest.raises(ValueError):
        engine.queue("no-such-scenario")


def test_cutoff_reports_exactly_max_output_tokens() -> None:
    for budget in (16, 17, 40):
        chunks = run(MockEngine(), req(max_output_tokens=budget, reasoning_summary="auto"))
        final = chunks[-1]
        assert isinstance(final, Final)
        assert (final.finish_reason, final.output_tokens) == ("length", budget)
        assert 0 < final.reasoning_tokens <= budget


def test_large_budget_is_not_a_cutoff() -> None:
    final = run(MockEngine(), req(max_output_tokens=4000))[-1]
    assert isinstance(final, Final) and final.finish_reason == "stop"


def test_error_after_hint() -> None:
    chunks = run(
        MockEngine(),
        GenerationRequest("mock-text", [Message("user", "hi")], hints=EngineHints(error_after=3)),
    )
    assert [type(c) for c in chunks] == [TextDelta] * 3 + [EngineError]


def test_chunking_groups_tokens() -> None:
    chunks = run(MockEngine(chunking=Chunking(3, 3)), req("mock-text"))
    deltas = [c for c in chunks if isinstance(c, TextDelta)]
    assert all(independent_count(d.text) == 3 for d in deltas[:-1])
    assert Chunking.parse("2-5") == Chunking(2, 5)


WEATHER = FunctionTool(
    "lookup",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["city", "days"],
        "additionalProperties": False,
    },
    "Look up the weather in a city, for a number of days.",
)
OTHER = FunctionTool("other", {"type": "object", "properties": {}})


def test_auto_calls_a_declared_tool_and_then_answers_its_output() -> None:
    request = req(tools=[OTHER, WEATHER], tool_choice={"type": "function", "name": "lookup"})
    chunks = run(MockEngine(), request)
    call = chunks[0]
    assert isinstance(call, ToolCallDelta) and call.name == "lookup"
    jsonschema.validate(json.loads(streamed_text(chunks)), WEATHER.parameters)  # type: ignore[arg-type]
    assert isinstance(chunks[-1], Final) and chunks[-1].finish_reason == "tool_calls"
    after = GenerationRequest(
        "mock",
        [
            Message("user", "weather?"),
            Message(
                "assistant", tool_calls=({"call_id": "c1", "name": "lookup", "arguments": "{}"},)
            ),
            Message("tool", '{"temp": 21}', tool_call_id="c1"),
        ],
        tools=[WEATHER],
    )
    text = streamed_text(run(MockEngine(), after))
    assert text.startswith('The tool returned: "{"temp": 21}".')


def test_auto_tool_choice_none_and_auto_without_user_turn() -> None:
    assert isinstance(run(MockEngine(), req(tools=[WEATHER], tool_choice="none"))[0], TextDelta)
    assert isinstance(run(MockEngine(), req(tools=[WEATHER]))[0], ToolCallDelta)
    # auto: a call only when the user asks for what the tool does
    assert isinstance(run(MockEngine(), req(text="Hello!", tools=[WEATHER]))[0], TextDelta)


def test_auto_reasoning_summary_comes_first() -> None:
    chunks = run(MockEngine(), req(reasoning_summary="detailed"))
    indices = {c.summary_index for c in chunks if isinstance(c, ReasoningDelta)}
    assert isinstance(chunks[0], ReasoningDelta) and indices == {0, 1}


@pytest.mark.parametrize("effort", sorted(HIDDEN_REASONING_TOKENS))
def test_auto_effort_without_summary_is_a_reasoning_item_without_text(effort: str) -> None:
    chunks = run(MockEngine(), req(reasoning_effort=effort))
    assert isinstance(chunks[0], ReasoningItem)
    assert not any(isinstance(c, ReasoningDelta | ReasoningItem) for c in chunks[1:])
    final = chunks[-1]
    assert isinstance(final, Final) and final.finish_reason == "stop"
    low, high = HIDDEN_REASONING_TOKENS[effort]
    assert low <= final.reasoning_tokens <= high + 16  # whole sentences, up to one over
    answer = independent_count(streamed_text(chunks))
    assert final.output_tokens == final.reasoning_tokens + answer
    # With a summary asked for, the summary is the reasoning item; "none" reasons not at all.
    summarized = run(MockEngine(), req(reasoning_effort=effort, reasoning_summary="auto"))
    assert not any(isinstance(c, ReasoningItem) for c in summarized)
    assert isinstance(summarized[0], ReasoningDelta)
    unreasoned = run(MockEngine(), req(reasoning_effort="none"))
    assert isinstance(unreasoned[0], TextDelta) and unreasoned[-1].reasoning_tokens == 0  # type: ignore[union-attr]


def test_hidden_reasoning_is_cut_at_max_output_tokens() -> None:
    chunks = run(MockEngine(), req(reasoning_effort="high", max_output_tokens=20))
    assert [type(c) for c in chunks] == [ReasoningItem, Final]
    final = chunks[-1]
    assert isinstance(final, Final) and final.finish_reason == "length"
    assert final.output_tokens == final.reasoning_tokens == 20


def test_structured_output_matches_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["n", "tags"],
        "additionalProperties": False,
    }
    for scenario in ("mock", "mock-structured-output"):
        request = req(
            scenario,
            text_format={"type": "json_schema", "name": "x", "schema": schema, "strict": True},
        )
        jsonschema.validate(json.loads(streamed_text(run(MockEngine(), request))), schema)


def test_parallel_calls_respect_parallel_tool_calls() -> None:
    calls = {
        c.index
        for c in run(MockEngine(), req("mock-parallel-function-calls"))
        if isinstance(c, ToolCallDelta)
    }
    assert calls == {0, 1}
    single = req("mock-parallel-function-calls", parallel_tool_calls=False)
    assert {c.index for c in run(MockEngine(), single) if isinstance(c, ToolCallDelta)} == {0}


TWO_CITIES = (  # conformance/sections/s3_3_tool_choice.py, test_parallel_calls
    "Get the weather in Paris and in Tokyo, in celsius. Call lookup once for each city, "
    "both calls in this one turn."
)


@pytest.mark.parametrize("choice", ["auto", "required", {"type": "function", "name": "lookup"}])
def test_auto_issues_parallel_calls_for_several_asks(choice: Any) -> None:
    request = req(text=TWO_CITIES, tools=[OTHER, WEATHER], tool_choice=choice)
    chunks = run(MockEngine(), request)
    starts = [c for c in chunks if isinstance(c, ToolCallDelta) and c.name]
    # Two calls, both to the tool the user names, each with arguments valid for its schema.
    assert [(c.index, c.name) for c in starts] == [(0, "lookup"), (1, "lookup")]
    for index in (0, 1):
        args = "".join(
            c.arguments for c in chunks if isinstance(c, ToolCallDelta) and c.index == index
        )
        jsonschema.validate(json.loads(args), WEATHER.parameters)  # type: ignore[arg-type]
    assert isinstance(chunks[-1], Final) and chunks[-1].finish_reason == "tool_calls"
    serial = run(MockEngine(), req(text=TWO_CITIES, tools=[OTHER, WEATHER], tool_choice=choice,
                                    parallel_tool_calls=False))  # fmt: skip
    assert {c.index for c in serial if isinstance(c, ToolCallDelta)} == {0}
    single = run(MockEngine(), req(tools=[OTHER, WEATHER], tool_choice=choice))
    assert {c.index for c in single if isinstance(c, ToolCallDelta)} == {0}


def test_parallel_calls_without_a_named_tool_go_to_the_declared_tools_in_order() -> None:
    # Forced (required) with nothing in the user's words pointing at a tool: the declared ones
    # in order; unforced (auto), the same words ask for no tool: text.
    request = req(text="Check Oslo, Rome and Lima.", tools=[OTHER, WEATHER], tool_choice="required")
    names = [c.name for c in run(MockEngine(), request) if isinstance(c, ToolCallDelta) and c.name]
    assert names == ["other", "lookup", "other"]
    unforced = req(text="Check Oslo, Rome and Lima.", tools=[OTHER, WEATHER])
    assert isinstance(run(MockEngine(), unforced)[0], TextDelta)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What is the weather in Paris?", 1),
        (TWO_CITIES, 2),
        ("Paris and Rome. Oslo and Bern and Lima.", 3),
        ("Compare Oslo, the Hague, and Lima.", 3),
        ("Ann, Bo, Cy, Di and Ed", MAX_ASKS),
        ("Paris, Tokyo", 1),  # a list needs its "and"
        ("the and of and to and this and that", 1),  # lowercase prose (benchmark prompts)
        ("Grandstand, Android, Band.", 1),  # whole words only
    ],
)
def test_asks_counts_the_and_joined_requests_of_the_last_user_turn(
    text: str, expected: int
) -> None:
    assert asks([Message("user", text), Message("assistant", "ok")]) == expected
    assert asks([Message("user", "A and B"), Message("user", text)]) == expected
    assert asks([]) == 1


RECALL_CHAIN = [  # conformance/sections/s4_3_previous_response.py, test_chain_recall
    Message("user", "Remember this code word: QUASAR-417. Reply only with OK."),
    Message("assistant", "OK"),
    Message("user", "Reply only with the name of one colour."),
    Message("assistant", "You said: ..."),
    Message(
        "user", "What was the code word I asked you to remember? Reply with the code word only."
    ),
]


def test_auto_follows_simple_instructions() -> None:
    def answer(messages: list[Message], **kw: Any) -> str:
        chunks = run(MockEngine(), GenerationRequest("mock", messages, **kw))
        assert isinstance(chunks[-1], Final) and chunks[-1].output_tokens == independent_count(
            streamed_text(chunks)
        )
        return streamed_text(chunks)

    assert answer(RECALL_CHAIN) == "QUASAR-417"
    assert answer(RECALL_CHAIN[:1]) == "OK"
    assert answer(RECALL_CHAIN[:3]).startswith('You said: "Reply only with the name')  # not literal
    # A forced call and structured output come first; with tool_choice auto the simple request
    # is answered (it asks for no tool); a scenario other than auto does not listen.
    forced = req(text="Reply only with OK.", tools=[WEATHER], tool_choice="required")
    assert isinstance(run(MockEngine(), forced)[0], ToolCallDelta)
    assert (
        streamed_text(run(MockEngine(), req(text="Reply only with OK.", tools=[WEATHER]))) == "OK"
    )
    assert streamed_text(run(MockEngine(), req("mock-text", text="Reply only with OK."))) != "OK"


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (["Repeat the word TANGERINE."], "TANGERINE"),
        (["Respond with the word yes."], "yes"),
        (['Please reply with "done".'], "done"),
        (["Say exactly: hello."], "hello"),
        (["Note the password: open-sesame. Thanks!", "What is the password I gave you?"],
         "The password is open-sesame."),  # the question's tense
        (["My code word is X.", "What was the code word I told you?"], "Your code word was X."),
        (["Remember the code word: A1.", "Remember the code word: B2.",
          "What was the code word I told you? Only the word."], "B2"),  # the latest one
        (["What was the code word I asked you to remember?"], None),  # nothing to recall
        (["Say OK in one word."], None),
        (["Reply only with the name of one colour."], None),
        (["What is the weather in Paris today?"], None),
    ],
)  # fmt: skip
def test_reply_understands_a_few_simple_requests(turns: list[str], expected: str | None) -> None:
    assert reply([Message("user", t) for t in turns]) == expected


def _sleeps(
    monkeypatch: pytest.MonkeyPatch, engine: MockEngine, request: GenerationRequest
) -> list[float]:
    slept: list[float] = []

    async def fake_sleep(delay: float) -> None:
        slept.append(delay)

    monkeypatch.setattr("mock_server.engine._sleep", fake_sleep)
    run(engine, request)
    return slept


def test_latency_is_seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    latency = Latency(ttft=0.5, inter_token=0.01, jitter=0.002)
    request = req("mock-text")
    first = _sleeps(monkeypatch, MockEngine(latency=latency), request)
    again = _sleeps(monkeypatch, MockEngine(latency=latency), request)
    assert first == again
    deltas = [c for c in run(MockEngine(), request) if not isinstance(c, Final)]
    assert len(first) == len(deltas)
    assert 0.5 <= first[0] <= 0.502
    assert all(0.01 <= d <= 0.012 for d in first[1:])
    assert len(set(first[1:])) > 1  # jitter varies per delta
    assert _sleeps(monkeypatch, MockEngine(), request) == []  # no latency: no sleeping at all
    with pytest.raises(ValueError):
        Latency(ttft=-1)


def test_duration_offsets_spread_the_deltas_over_it() -> None:
    assert Latency(duration=1.0).offsets(4) == [0.25, 0.5, 0.75, 1.0]
    assert Latency(ttft=0.2, duration=1.0).offsets(3) == pytest.approx([0.2, 0.6, 1.0])
    assert Latency(ttft=0.2, duration=1.0).offsets(1) == [0.2]  # the final chunk at 1.0
    assert Latency(duration=1.0).offsets(0) == []
    for bad in ({"inter_token": 0.1}, {"jitter": 0.1}, {"ttft": 2.0}):
        with pytest.raises(ValueError):
            Latency(duration=1.0, **bad)
    with pytest.raises(ValueError):
        Latency(duration=-1.0)


@pytest.mark.parametrize("scenario", ["text", "long-text", "function-call", "failure"])
def test_duration_paces_the_stream_to_it(monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    clock = [100.0]  # a fake clock that only the fake sleep moves

    async def fake_sleep(delay: float) -> None:
        clock[0] += delay

    monkeypatch.setattr("mock_server.engine._sleep", fake_sleep)
    monkeypatch.setattr("mock_server.engine._now", lambda: clock[0])
    latency = Latency(ttft=0.05, duration=2.0)
    request = req(f"mock-{scenario}", tools=[WEATHER])

    async def collect() -> list[tuple[float, Chunk | EngineError]]:
        out: list[tuple[float, Chunk | EngineError]] = []
        try:
            async for chunk in MockEngine(latency=latency).generate(request):
                out.append((clock[0] - 100.0, chunk))
        except EngineError as error:
            out.append((clock[0] - 100.0, error))
        return out

    timed = asyncio.run(collect())
    deltas = [t for t, c in timed if not isinstance(c, Final | EngineError)]
    assert deltas == pytest.approx(latency.offsets(len(deltas)))
    assert deltas[0] == pytest.approx(0.05) and timed[-1][0] == pytest.approx(2.0)
    # The content does not depend on the timing.
    assert [repr(c) for _, c in timed] == list(map(repr, run(MockEngine(), request)))


def test_duration_holds_in_real_time() -> None:
    latency = Latency(duration=0.3)
    started = time.monotonic()
    chunks = run(MockEngine(latency=latency), req("mock-long-text"))
    elapsed = time.monotonic() - started
    # Deadlines, not relative sleeps: ~500 deltas would add up their sleeps' overshoot.
    assert len(chunks) > 400 and 0.3 <= elapsed < 0.6, elapsed


def test_auto_with_a_hosted_web_search_tool() -> None:
    request = GenerationRequest(
        "mock",
        [Message("user", "Search the web for news.")],
        body={"tools": [{"type": "web_search"}]},
    )
    assert isinstance(run(MockEngine(), request)[0], HostedToolCall)
    hello = GenerationRequest("mock", [Message("user", "Hello!")], body=request.body)
    assert isinstance(run(MockEngine(), hello)[0], TextDelta)


def test_unsatisfiable_schema_is_an_engine_error() -> None:
    request = req(text_format={"type": "json_schema", "name": "x", "schema": {"not": {}}})
    failure = run(MockEngine(), request)[-1]
    assert isinstance(failure, EngineError) and "JSON schema" in failure.message


def test_package_exports() -> None:
    import mock_server

    assert mock_server.MockEngine is MockEngine
    assert "mock-reasoning" in MockEngine().model_ids()
    with pytest.raises(AttributeError):
        _ = mock_server.nothing  # type: ignore[attr-defined]
