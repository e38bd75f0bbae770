"""The unscripted mock behaves like a model: text for conversation; a tool call only when
``tool_choice`` forces one or the user's own words in the last turn ask for what a tool does,
with arguments a client can parse; facts from earlier turns recalled in ordinary wording. Each
behaviour with a failing example and its near miss; the Agents SDK as its docs use it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mock_server.engine import MockEngine
from mock_server.instructions import own_words, reply
from mock_server.testing import LoopbackMock
from reference_impl.engine import (
    FunctionTool,
    GenerationRequest,
    Message,
    TextDelta,
    ToolCallDelta,
)

WEATHER = FunctionTool(
    "get_weather",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
    "Get the current weather in a city.",
)
# Codex's exec_command (captured from `codex exec`, 0.169; 0.171 adds the optional `prefix_rule`
# array): numbers it parses as usize, optional fields that break the run when invented (workdir,
# shell, justification).
EXEC = FunctionTool(
    "exec_command",
    {
        "type": "object",
        "properties": {
            "cmd": {"type": "string", "description": "Shell command to execute."},
            "justification": {"type": "string"},
            "login": {"type": "boolean"},
            "max_output_tokens": {"type": "number"},
            "prefix_rule": {"type": "array", "items": {"type": "string"}},
            "sandbox_permissions": {"type": "string", "enum": ["use_default", "require_escalated"]},
            "shell": {"type": "string"},
            "tty": {"type": "boolean"},
            "workdir": {"type": "string"},
            "yield_time_ms": {"type": "number"},
        },
        "required": ["cmd"],
        "additionalProperties": False,
    },
    "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
)
WRITE_STDIN = FunctionTool(
    "write_stdin",
    {
        "type": "object",
        "properties": {"session_id": {"type": "number"}, "chars": {"type": "string"}},
        "required": ["session_id"],
    },
    "Writes characters to an existing unified exec session and returns recent output.",
)
VIEW_IMAGE = FunctionTool(
    "view_image",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    "View a local image file from the filesystem when visual inspection is needed.",
)
CODEX_TOOLS = [EXEC, WRITE_STDIN, VIEW_IMAGE]
ENVIRONMENT = (
    "<environment_context>\n  <cwd>/tmp/work</cwd>\n  <shell>bash</shell>\n"
    "  <current_date>2026-12-05</current_date>\n</environment_context>"
)
AGENTS_MD = (
    "# AGENTS.md instructions for /tmp/work\n\n<INSTRUCTIONS>\nRun the weather command and "
    "print the output of every shell command.\n</INSTRUCTIONS>"
)


def _run(messages: list[Message], tools: list[FunctionTool], **kw: Any) -> list[Any]:
    async def collect() -> list[Any]:
        request = GenerationRequest("mock", messages, tools=tools, **kw)
        return [c async for c in MockEngine().generate(request)]

    return asyncio.run(collect())


def _calls(chunks: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for c in chunks:
        if isinstance(c, ToolCallDelta):
            if c.name:
                names[c.index] = c.name
            args[c.index] = args.get(c.index, "") + c.arguments
    return [(names[i], json.loads(args[i])) for i in sorted(names)]


def _text(chunks: list[Any]) -> str:
    return "".join(
        c.text if isinstance(c, TextDelta) else "".join(getattr(c, "pieces", ()))
        for c in chunks
        if isinstance(c, TextDelta) or hasattr(c, "pieces")
    )


def _user(text: str) -> list[Message]:
    return [Message("system", "You are a weather assistant."), Message("user", text)]


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("What's the weather in Paris?", "Paris"),
        ("What is the weather in São Paulo right now?", "São Paulo"),
        ("How's the weather in New York today?", "New York"),
        ("weather for Rio de Janeiro, please", "Rio de Janeiro"),
        ("Is it raining in Tokyo? Check the weather.", "Tokyo"),
        # an abbreviation and a particle inside the name, not the end of it
        ("What will the weather be in St. Petersburg tomorrow?", "St. Petersburg"),
        ("What is the weather in Dar es Salaam?", "Dar es Salaam"),
        ("Weather in Frankfurt am Main, in celsius", "Frankfurt am Main"),
    ],
)
def test_a_weather_question_calls_the_tool_with_that_city(text: str, city: str) -> None:
    calls = _calls(_run(_user(text), [WEATHER]))
    assert [(name, args["city"]) for name, args in calls] == [("get_weather", city)]
    assert calls[0][1]["unit"] in ("celsius", "fahrenheit")


@pytest.mark.parametrize(
    "text",
    [
        "Hello! How are you?",
        "Tell me about Paris.",  # a city, but nothing about the weather
        "Write a haiku about the sea.",
        "What is the weather like?",  # the weather, but no city: a model asks which first
    ],
)
def test_a_conversation_with_no_tool_need_gets_text(text: str) -> None:
    chunks = _run(_user(text), [WEATHER])
    assert _calls(chunks) == [] and _text(chunks)


def test_the_unit_the_user_names_and_parallel_cities() -> None:
    calls = _calls(_run(_user("Weather in Paris and in Tokyo, in fahrenheit?"), [WEATHER]))
    assert calls == [
        ("get_weather", {"city": "Paris", "unit": "fahrenheit"}),
        ("get_weather", {"city": "Tokyo", "unit": "fahrenheit"}),
    ]
    serial = _calls(
        _run(_user("Weather in Paris and in Tokyo?"), [WEATHER], parallel_tool_calls=False)
    )
    assert [args["city"] for _, args in serial] == ["Paris"]


def test_a_follow_up_asks_for_what_the_turn_before_asked() -> None:
    history = [
        Message("user", "What's the weather in Paris?"),
        Message(
            "assistant",
            tool_calls=(
                {"call_id": "c1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
            ),
        ),
        Message("tool", "Sunny", tool_call_id="c1"),
        Message("assistant", "Sunny in Paris."),
    ]
    calls = _calls(_run([*history, Message("user", "And in Lisbon?")], [WEATHER]))
    assert [args["city"] for _, args in calls] == ["Lisbon"]
    assert _calls(_run([*history, Message("user", "Thanks, bye!")], [WEATHER])) == []


def test_tool_choice_forces_a_call_the_words_do_not_ask_for() -> None:
    calls = _calls(_run(_user("Hello there."), [WEATHER], tool_choice="required"))
    assert [name for name, _ in calls] == ["get_weather"]
    assert _calls(_run(_user("Weather in Oslo?"), [WEATHER], tool_choice="none")) == []


# -- Codex: injected context is not the user's words; arguments Codex can parse -------------------


def _codex(*turns: str) -> list[Message]:
    messages = [Message("developer", "You are Codex. Use exec_command to run shell commands.")]
    messages += [Message("user", AGENTS_MD), Message("user", ENVIRONMENT)]
    for i, turn in enumerate(turns):
        messages.append(Message("user", turn))
        if i < len(turns) - 1:
            messages.append(Message("assistant", "Done."))
    return messages


def test_injected_context_is_not_the_users_words() -> None:
    assert own_words(AGENTS_MD) == "" and own_words(ENVIRONMENT) == ""
    assert own_words(f"{AGENTS_MD}\n{ENVIRONMENT}\nSay hi.") == "Say hi."
    assert own_words("Keep <b>this</b> and <this>.") == "Keep <b>this</b> and <this>."


@pytest.mark.parametrize(
    "text", ["Say hello in one line.", "Hi!", "Explain what a PTY is in one sentence."]
)
def test_codex_greeting_runs_no_tool(text: str) -> None:
    chunks = _run(_codex(text), CODEX_TOOLS)
    assert _calls(chunks) == [] and _text(chunks)
    assert "environment_context" not in _text(chunks)


# Codex 0.171's goal tools (captured from `codex exec`, descriptions cut after their first
# sentence): names that open with an action verb.
GOAL_TOOLS = [
    FunctionTool(
        "get_goal", {"type": "object", "properties": {}, "required": []},
        "Get the current goal for this thread, including status, budgets, token and elapsed-time "
        "usage, and remaining token budget.",
    ),
    FunctionTool(
        "create_goal",
        {"type": "object", "properties": {"objective": {"type": "string"},
         "token_budget": {"type": "integer"}}, "required": ["objective"]},
        "Create a goal only when explicitly requested by the user or system/developer "
        "instructions; do not infer goals from ordinary tasks.",
    ),
    FunctionTool(
        "update_goal",
        {"type": "object", "properties": {"status": {"type": "string",
         "enum": ["complete", "blocked", "paused"]}}, "required": ["status"]},
        "Update the existing goal.",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["Create a one-line greeting.", "Write a greeting for my team.", "Update me with a hello."],
)
def test_an_action_verb_alone_does_not_ask_for_a_tool(text: str) -> None:
    # "create" of create_goal, "write" of write_stdin, "update" of update_goal: the verb says what
    # a tool does, not which; Codex cannot run these invented calls (a goal objective of filler
    # words, an unknown stdin session).
    chunks = _run(_codex(text), CODEX_TOOLS + GOAL_TOOLS)
    assert _calls(chunks) == [] and _text(chunks).startswith(f'You said: "{text}"')


def test_the_verb_with_what_it_acts_on_does() -> None:
    # The near miss: the name's object too; its free text comes from the user's words.
    calls = _calls(_run(_codex('Create a goal: "ship the release".'), CODEX_TOOLS + GOAL_TOOLS))
    # the best tool for a thing only: not get_goal too (it names the goal as well)
    assert calls == [("create_goal", {"objective": "ship the release"})]
    assert [n for n, _ in _calls(_run(_codex("What is the current goal?"), GOAL_TOOLS))] == [
        "get_goal"
    ]


@pytest.mark.parametrize(
    ("text", "cmd"),
    [
        ("Run `ls -la` please.", "ls -la"),
        ("Run ls -la in the workdir.", "ls -la"),
        ("Execute the command `git status`.", "git status"),
        # a file the command names is not the workdir (was {"workdir": "echo x > note.txt"})
        ("Run `echo x > note.txt` please.", "echo x > note.txt"),
        ("Run `python3 build.py --out dist/app.tar.gz`.", "python3 build.py --out dist/app.tar.gz"),
    ],
)
def test_codex_asked_to_run_a_command_runs_exactly_it(text: str, cmd: str) -> None:
    # Only what Codex needs: no invented workdir, shell or justification; any number an integer.
    assert _calls(_run(_codex(text), CODEX_TOOLS)) == [("exec_command", {"cmd": cmd})]


def test_a_workdir_the_user_names_beside_the_command_is_kept() -> None:
    # Near miss of the above: a directory said outside the command is the workdir asked for.
    got = _calls(_run(_codex("Run `echo x > note.txt` in `/tmp/work`."), CODEX_TOOLS))
    assert got == [("exec_command", {"cmd": "echo x > note.txt", "workdir": "/tmp/work"})]


def test_numbers_are_integers_where_a_client_parses_usize() -> None:
    tool = FunctionTool("poll", {"type": "object", "properties": {
        "yield_time_ms": {"type": "number"}, "max_output_tokens": {"type": "number"}},
        "required": ["yield_time_ms", "max_output_tokens"]}, "Poll the session.")  # fmt: skip
    ((_, args),) = _calls(_run(_user("Poll the session."), [tool]))
    assert all(type(v) is int for v in args.values()), args


# -- recall ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "question", "answer"),
    [
        ("My name is Ada.", "What is my name?", "Your name is Ada."),
        ("The password is swordfish.", "what's the password?", "The password is swordfish."),
        ("Hi, I'm Grace Hopper.", "Do you remember my name?", "Your name is Grace Hopper."),
        ("My favourite colour is dark blue, and I like tea.", "Which colour do I like best?",
         "Your favourite colour is dark blue."),
        ("Remember this code word: PELICAN-123.", "What was the code word?",
         "The code word was PELICAN-123."),
        ("Our meeting room is B-204.", "Where is our meeting room? Just the room.", "B-204"),
        ('The secret phrase is "open sesame".', "Tell me the secret phrase.",
         "The secret phrase is open sesame."),
        # "that" opens the clause, the fact's own determiner follows (was "The my dog ...")
        ("Note that my dog is called Rex.", "What's my dog called?", "Your dog is called Rex."),
        ("Remember that the meeting is on Tuesday.", "When is the meeting?",
         "The meeting is on Tuesday."),
    ],
)  # fmt: skip
def test_a_fact_from_an_earlier_turn_is_recalled(first: str, question: str, answer: str) -> None:
    turns = [Message("user", first), Message("assistant", "Noted."), Message("user", question)]
    assert reply(turns) == answer
    # through the engine too, with Codex's tools and context: text, no call
    chunks = _run(_codex(first, question), CODEX_TOOLS)
    assert _calls(chunks) == [] and _text(chunks) == answer


@pytest.mark.parametrize(
    ("first", "question"),
    [
        ("My name is Ada.", "What is the capital of France?"),  # asks nothing it was told
        ("My name is Ada.", "My name is Bob."),  # a statement, not a question
        ("I'm tired.", "What is my name?"),  # "tired" is no name
        ("Hello there.", "What is my name?"),  # nothing told
    ],
)
def test_recall_near_misses(first: str, question: str) -> None:
    turns = [Message("user", first), Message("assistant", "Noted."), Message("user", question)]
    assert reply(turns) is None


def test_the_same_request_gives_the_same_bytes() -> None:
    first = _run(_codex("My name is Ada.", "What is my name?"), CODEX_TOOLS)
    assert repr(first) == repr(_run(_codex("My name is Ada.", "What is my name?"), CODEX_TOOLS))
    weather = _run(_user("What's the weather in New York?"), [WEATHER])
    assert repr(weather) == repr(_run(_user("What's the weather in New York?"), [WEATHER]))


# -- the Agents SDK, as its docs use it -----------------------------------------------------------

agents = pytest.importorskip("agents")


def _agent_run(mock: LoopbackMock, prompt: str | list[Any], seen: list[str]) -> Any:
    import openai

    agents.set_tracing_disabled(True)

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        seen.append(city)
        return f"Sunny in {city}, 21C"

    async def run() -> Any:
        async with openai.AsyncOpenAI(base_url=mock.base_url, api_key="unused") as client:
            model = agents.OpenAIResponsesModel(model="mock", openai_client=client)
            agent = agents.Agent(
                name="weather", instructions="You answer weather questions.",
                tools=[get_weather], model=model,
            )  # fmt: skip
            return await agents.Runner.run(agent, prompt)

    return asyncio.run(run())


@pytest.mark.parametrize("city", ["Paris", "Tokyo", "São Paulo", "New York", "Buenos Aires"])
def test_agents_sdk_weather_tool_gets_the_city_asked_about(
    responses_mock: LoopbackMock, city: str
) -> None:
    seen: list[str] = []
    result = _agent_run(responses_mock, f"What's the weather in {city}?", seen)
    assert seen == [city]
    assert str(result.final_output).startswith(f'The tool returned: "Sunny in {city}, 21C".')


def test_agents_sdk_conversation_without_a_tool_need_gets_text(
    responses_mock: LoopbackMock,
) -> None:
    seen: list[str] = []
    result = _agent_run(responses_mock, "Hello! Who are you?", seen)
    assert seen == [] and str(result.final_output).startswith('You said: "Hello! Who are you?"')
    # a second turn recalls what the first said
    history = [{"role": "user", "content": "My name is Ada."}]
    first = _agent_run(responses_mock, history, seen)
    again = _agent_run(
        responses_mock, [*first.to_input_list(), {"role": "user", "content": "What's my name?"}],
        seen,
    )  # fmt: skip
    assert seen == [] and again.final_output == "Your name is Ada."


# -- Wordings tried against Codex 0.171 (its tools captured from `codex exec`): conversation runs
# no tool, facts stated in ordinary wording are recalled -----------------------------------------

_AGENT = {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]}
AGENT_TOOLS = [
    FunctionTool("close_agent", _AGENT, "Close an agent and any open descendants when they are "
                 "no longer needed, and return the target agent's previous status before "
                 "shutdown was requested."),
    FunctionTool("send_input", _AGENT, "Send a message to an existing agent."),
    FunctionTool("wait_agent", {"type": "object", "properties": {"targets": {"type": "array",
                 "items": {"type": "string"}}}, "required": ["targets"]},
                 "Wait for agents to reach a final status."),
    FunctionTool("spawn_agent", {"type": "object", "properties": {"message": {"type": "string"}}},
                 "Spawn a sub-agent for a well-scoped task."),
]  # fmt: skip
ALL_CODEX = CODEX_TOOLS + GOAL_TOOLS + AGENT_TOOLS


@pytest.mark.parametrize(
    "text",
    [
        "Hi! Can you send me a quick hello?",  # send_input: a verb alone (its object: stop words)
        "What's the status of things? Just say hi.",  # "what's" is no word of close_agent's
        "Can you wait a second and then greet me?",  # wait_agent: the verb, not the agent
        "Say hi to the agent team.",  # the agent, without a verb of a tool
        "How do I run a Python script?",  # how to: an explanation, not a command
        "What's the best way to run tests in Python?",
        "How can I execute a shell command from Node?",
        "Describe an image of a sunset.",
        "Good morning! How's it going?",
        "What's your goal today?",  # the assistant's goal, not get_goal's
    ],
)
def test_conversation_with_codex_tools_runs_no_tool(text: str) -> None:
    chunks = _run(_codex(text), ALL_CODEX)
    assert _calls(chunks) == [] and _text(chunks).startswith(f'You said: "{text[:20]}')


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Spawn an agent to review the code.", "spawn_agent"),  # the verb with its object
        ("Run `ls -la` please.", "exec_command"),
        ("Can you run ls -la in the workdir?", "exec_command"),
    ],
)
def test_the_near_misses_call_the_tool(text: str, name: str) -> None:
    assert [n for n, _ in _calls(_run(_codex(text), ALL_CODEX))] == [name]


def _hosted(text: str) -> list[str]:
    from mock_server.testing import InProcessMock

    mock = InProcessMock()
    try:
        body: Any = {"model": "mock", "input": text, "tools": [{"type": "web_search"}]}
        out = mock.client().responses.create(**body).output
    finally:
        mock.close()
    return [item.type for item in out if item.type != "message"]


@pytest.mark.parametrize(
    ("text", "searched"),
    [
        ("Can you find a good name for my cat?", False),  # "find" about nothing named
        ("Find Paris museums.", True),  # ... about a named thing
        ("Can you look at this idea: a todo app?", False),
        ("Look up the Paris museums.", True),
        ("Search the web for news.", True),
        ("What is the time complexity of binary search?", False),  # "search", no request
        ("Search for lighthouses.", True),
    ],
)
def test_a_search_is_for_something_to_look_up(text: str, searched: bool) -> None:
    assert _hosted(text) == (["web_search_call"] if searched else [])


@pytest.mark.parametrize(
    ("first", "question", "answer"),
    [
        ("I'm working on a project called Nebula.", "What is my project called?",
         "Your project is called Nebula."),
        ("I have a dog named Rex.", "What's my dog's name?", "Your dog is named Rex."),
        ("I live in Lisbon.", "Where do I live?", "You live in Lisbon."),
        ("I am 34 years old.", "How old am I?", "You are 34 years old."),
        ("I'm Ada and I work at Acme.", "Where do I work?", "You're Ada and you work at Acme."),
        ("I prefer tabs over spaces.", "Do I prefer tabs or spaces?",
         "You prefer tabs over spaces."),
        ("Store this for later: the token is abc123.", "What is the token?",
         "The token is abc123."),
        ("Remember the number 7291.", "What number did I ask you to remember?",
         "The number 7291."),
        ("The codeword is ZEBRA.", "Repeat the codeword.", "The codeword is ZEBRA."),
        ("Note: the API port is 8080.", "What port did I give you?", "The API port was 8080."),
        ("Hi, I'm Grace.", "Do you remember who I am?", "Your name is Grace."),
    ],
)  # fmt: skip
def test_facts_in_ordinary_wording_are_recalled(first: str, question: str, answer: str) -> None:
    turns = [Message("user", first), Message("assistant", "Noted."), Message("user", question)]
    assert reply(turns) == answer
    chunks = _run(_codex(first, question), ALL_CODEX)
    assert _calls(chunks) == [] and _text(chunks) == answer


@pytest.mark.parametrize(
    ("first", "question", "answer"),
    [
        ("I live in Lisbon.", "What is the capital of France?", None),  # shares nothing
        ("I live in Lisbon.", "I live in Porto now.", None),  # a statement
        ("The codeword is ZEBRA.", "Repeat the word TANGERINE.", "TANGERINE"),  # literal first
        ("The codeword is ZEBRA.", "Tell me a joke.", None),  # an imperative about nothing told
    ],
)
def test_statement_recall_near_misses(first: str, question: str, answer: str | None) -> None:
    turns = [Message("user", first), Message("assistant", "Noted."), Message("user", question)]
    assert reply(turns) == answer
