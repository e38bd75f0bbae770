"""§1.7 Hosted tools, live (docs/spec.md#s1-7): ``live.hosted.*``, one profile per hosted tool
(``hosted:<tool type>``).

Tools the server runs (``hosted:web_search``, ``file_search``, ``code_interpreter``,
``image_generation``, ``mcp``): the tool forced by ``tool_choice`` where [OAPI]
``ToolChoiceTypes`` has a type for it (``web_search_preview``, ``file_search``,
``code_interpreter``, ``image_generation``; ``mcp`` with its ``server_label``), streamed, so the
judge sees the whole sequence — progress order, ``*.failed`` against the status, partial image
indices, citation offsets (:mod:`.s1_7_hosted_tools`, :mod:`.s1_5_annotations`) — and the call's
item is checked here; ``max_tool_calls`` caps built-in calls; ``require_approval: always`` gets an
``mcp_approval_request`` that the client's approval answers. ``hosted:tool_search``: deferred
tools found by a server- or client-executed tool search. A target that claims
``hosted:file_search`` needs a vector store with the id ``vs_conformance``; ``hosted:mcp`` names
DeepWiki's public MCP server, as OpenAI's docs do (:mod:`conformance.suite.hosted_requests`).

Built-in tools the client runs (``hosted:shell``, ``hosted:apply_patch``,
``hosted:computer_use_preview``): the call forced by ``tool_choice`` ([OAPI]
``SpecificFunctionShellParam``, ``SpecificApplyPatchParam``, ``ToolChoiceTypes``
``computer_use_preview``), streamed so the judge sees its whole sequence (a shell command's and a
patch diff's deltas = done = item), ending the turn with a ``call_id``; then the round trip — the
client's ``*_call_output`` for that ``call_id`` gets an answer, not the same call again.

Each check's rule is the case below that evaluates it (:mod:`.cases`: area ``hosted`` for the
tools the server runs and the tool search, ``client_tools`` for those the client runs); its
failing example is a misbehaving server (tests/suite/broken_servers.py), its near miss the
embedded mock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, register
from ..suite import answers as A
from ..suite.hosted_requests import HOSTED, MCP_TOOL
from .cases import case
from .s1_5_annotations import ANNOTATION_OFFSETS
from .s1_7_hosted_tools import HOSTED_FAILED_STATUS, HOSTED_PROGRESS_ORDER, IMAGE_PARTIAL_INDEX
from .s2_8_values_agree import DELTAS_EQUAL_DONE

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "HOSTED_APPLY_PATCH",
    "HOSTED_CODE_INTERPRETER",
    "HOSTED_COMPUTER",
    "HOSTED_FILE_SEARCH",
    "HOSTED_IMAGE_GENERATION",
    "HOSTED_MAX_TOOL_CALLS",
    "HOSTED_MCP",
    "HOSTED_MCP_APPROVAL",
    "HOSTED_SHELL",
    "HOSTED_TOOL_SEARCH",
    "HOSTED_TOOL_SEARCH_CLIENT",
    "HOSTED_WEB_SEARCH",
    "declare_examples",
]

HOSTED_WEB_SEARCH = register(
    "live.hosted.web_search",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceTypes (web_search_preview), WebSearchToolCall",
    "`tool_choice: {type: web_search_preview}` gets a completed response with completed "
    "`web_search_call` items",
    profile="hosted:web_search",
)
HOSTED_FILE_SEARCH = register(
    "live.hosted.file_search",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceTypes (file_search), FileSearchToolCall",
    "`tool_choice: {type: file_search}` gets a completed response with completed "
    "`file_search_call` items",
    profile="hosted:file_search",
)
HOSTED_CODE_INTERPRETER = register(
    "live.hosted.code_interpreter",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceTypes (code_interpreter), CodeInterpreterToolCall",
    "`tool_choice: {type: code_interpreter}` gets a completed response with completed "
    "`code_interpreter_call` items",
    profile="hosted:code_interpreter",
)
HOSTED_IMAGE_GENERATION = register(
    "live.hosted.image_generation",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceTypes (image_generation), ImageGenToolCall.result",
    "`tool_choice: {type: image_generation}` gets completed `image_generation_call` items whose "
    "`result` is a base64 image",
    profile="hosted:image_generation",
)
HOSTED_MCP = register(
    "live.hosted.mcp",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceMCP, MCPToolCall",
    "`tool_choice: {type: mcp, server_label}` with `require_approval: never` gets completed "
    "`mcp_call` items",
    profile="hosted:mcp",
)
HOSTED_MAX_TOOL_CALLS = register(
    "live.hosted.max_tool_calls",
    Level.MUST,
    "§1.7 [OAPI] CreateResponse.max_tool_calls",
    "`max_tool_calls: 1` caps a response's built-in tool calls at one (and is echoed), however "
    "many the prompt asks for",
    profile="hosted:web_search",
)
HOSTED_MCP_APPROVAL = register(
    "live.hosted.mcp_approval",
    Level.MUST,
    "§1.7 [OAPI] MCPApprovalRequest, MCPApprovalResponse, MCPToolCall.approval_request_id",
    "`require_approval: always` gets an `mcp_approval_request`; the client's "
    "`mcp_approval_response` for it gets an `mcp_call` whose `approval_request_id` is that "
    "request's id",
    profile="hosted:mcp",
)
HOSTED_TOOL_SEARCH = register(
    "live.hosted.tool_search",
    Level.MUST,
    "§1.7 [OAPI] ToolSearchToolParam, ToolSearchCall, ToolSearchOutput, FunctionTool.defer_loading",
    "a call to a `defer_loading` tool under a server-executed `tool_search` comes after a "
    "completed `tool_search_output` that loaded that tool",
    profile="hosted:tool_search",
)
HOSTED_TOOL_SEARCH_CLIENT = register(
    "live.hosted.tool_search_client",
    Level.MUST,
    "§1.7 [OAPI] ToolSearchToolParam.execution, ToolSearchCall, ToolSearchOutputItemParam",
    "a client-executed `tool_search` gets a `tool_search_call` (`execution: client`, a `call_id`) "
    "that ends the turn; the client's `tool_search_output` for it lets the next turn call the "
    "tool it loaded",
    profile="hosted:tool_search",
)
HOSTED_SHELL = register(
    "live.hosted.shell",
    Level.MUST,
    "§1.7 [OAPI] SpecificFunctionShellParam, FunctionShellCall, FunctionShellCallOutputItemParam",
    "`tool_choice: {type: shell}` ends the turn with a `shell_call` (a `call_id`); the client's "
    "`shell_call_output` for it gets an answer, not the call again",
    profile="hosted:shell",
)
HOSTED_APPLY_PATCH = register(
    "live.hosted.apply_patch",
    Level.MUST,
    "§1.7 [OAPI] SpecificApplyPatchParam, ApplyPatchToolCall, ApplyPatchToolCallOutputItemParam",
    "`tool_choice: {type: apply_patch}` ends the turn with an `apply_patch_call` (a `call_id`); "
    "the client's `apply_patch_call_output` for it gets an answer, not the call again",
    profile="hosted:apply_patch",
)
HOSTED_COMPUTER = register(
    "live.hosted.computer_use_preview",
    Level.MUST,
    "§1.7 [OAPI] ToolChoiceTypes (computer_use_preview), ComputerToolCall, ComputerCallOutputItemParam",
    "`tool_choice: {type: computer_use_preview}` ends the turn with a `computer_call` (a "
    "`call_id`); the client's `computer_call_output` for it gets an answer, not the call again",
    profile="hosted:computer_use_preview",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        HOSTED_MCP_APPROVAL.id,
        "mcp_approval_id_dropped",
        "a server whose approved MCP calls carry `approval_request_id: null`",
    )
    live(
        HOSTED_MAX_TOOL_CALLS.id, "max_tool_calls_ignored", "a server that ignores `max_tool_calls`"
    )
    live(HOSTED_WEB_SEARCH.id, "web_search_call_fails", "a server whose web searches fail")
    live(HOSTED_FILE_SEARCH.id, "file_search_call_fails", "a server whose file searches fail")
    live(
        HOSTED_CODE_INTERPRETER.id,
        "code_interpreter_call_fails",
        "a server whose code interpreter calls fail",
    )
    live(
        HOSTED_IMAGE_GENERATION.id,
        "image_generation_call_fails",
        "a server whose image generation calls fail",
    )
    live(HOSTED_MCP.id, "mcp_call_fails", "a server whose MCP calls fail")
    live(
        HOSTED_TOOL_SEARCH.id,
        "tool_search_skipped",
        "a server that drops `tool_search` and `defer_loading`, calling deferred tools unsearched",
    )
    live(
        HOSTED_TOOL_SEARCH_CLIENT.id,
        "client_tool_search_run_by_server",
        "a server that runs a client-executed `tool_search` itself",
    )
    live(
        HOSTED_SHELL.id,
        "shell_output_ignored",
        "a server that answers a `shell_call_output` by making the call anew",
    )
    live(
        HOSTED_APPLY_PATCH.id,
        "apply_patch_output_ignored",
        "a server that answers an `apply_patch_call_output` by making the call anew",
    )
    live(
        HOSTED_COMPUTER.id,
        "computer_output_ignored",
        "a server that answers a `computer_call_output` by making the call anew",
    )


# --- hosted: the tool forced, streamed -----------------------------------------------------------
_FORCED: dict[str, Check] = {
    "hosted:web_search": HOSTED_WEB_SEARCH,
    "hosted:file_search": HOSTED_FILE_SEARCH,
    "hosted:code_interpreter": HOSTED_CODE_INTERPRETER,
    "hosted:image_generation": HOSTED_IMAGE_GENERATION,
    "hosted:mcp": HOSTED_MCP,
}
# what the judge checks of each forced call's stream
_JUDGED = (HOSTED_PROGRESS_ORDER, HOSTED_FAILED_STATUS, ANNOTATION_OFFSETS)


def _forced(probe: Probe, profile: str, **fields: Any) -> tuple[dict[str, Any], list[Any]]:
    tool, choice, kind, prompt = HOSTED[profile]
    body = probe.body(input=prompt, tools=[tool], tool_choice=choice, **fields)
    response = probe.create_stream(body)[0]
    calls = A.items_of(response, kind)
    ok = bool(calls) and response.get("status") == "completed"
    ok = ok and all(c.get("status") in (None, "completed") for c in calls)
    probe.check(
        _FORCED[profile], ok, probe.last,
        expected=f"a completed response with completed `{kind}` item(s)",
        actual=f"status {response.get('status')!r}, output {A.output_types(response)}, "
        f"statuses {[c.get('status') for c in calls]}",
    )  # fmt: skip
    return response, calls


@case("hosted", HOSTED_WEB_SEARCH, *_JUDGED, profiles=("hosted:web_search",))
def test_web_search_forced(probe: Probe) -> None:
    _forced(probe, "hosted:web_search", include=["web_search_call.action.sources"])


@case("hosted", HOSTED_FILE_SEARCH, *_JUDGED, profiles=("hosted:file_search",))
def test_file_search_forced(probe: Probe) -> None:
    _forced(probe, "hosted:file_search", include=["file_search_call.results"])


@case(
    "hosted", HOSTED_CODE_INTERPRETER, *_JUDGED, DELTAS_EQUAL_DONE,
    profiles=("hosted:code_interpreter",),
)  # fmt: skip
def test_code_interpreter_forced(probe: Probe) -> None:
    _forced(probe, "hosted:code_interpreter", include=["code_interpreter_call.outputs"])


@case(
    "hosted", HOSTED_IMAGE_GENERATION, *_JUDGED, IMAGE_PARTIAL_INDEX,
    profiles=("hosted:image_generation",),
)  # fmt: skip
def test_image_generation_forced(probe: Probe) -> None:
    _response, calls = _forced(probe, "hosted:image_generation")
    for call in calls:
        result = call.get("result")
        probe.check(
            HOSTED_IMAGE_GENERATION, isinstance(result, str) and len(result) > 16, probe.last,
            expected="a base64 image as `result`", actual=f"{str(result)[:40]!r}",
        )  # fmt: skip


@case("hosted", HOSTED_MCP, *_JUDGED, DELTAS_EQUAL_DONE, profiles=("hosted:mcp",))
def test_mcp_forced(probe: Probe) -> None:
    _forced(probe, "hosted:mcp")


@case("hosted", HOSTED_MAX_TOOL_CALLS, profiles=("hosted:web_search",))
def test_max_tool_calls_caps_built_in_calls(probe: Probe) -> None:
    tool, choice, kind, _prompt = HOSTED["hosted:web_search"]
    body = probe.body(
        input="Search the web for the tallest building in Paris, in Rome and in Oslo, one "
        "search for each city.",
        tools=[tool], tool_choice=choice, max_tool_calls=1,
    )  # fmt: skip
    response = probe.create(body)
    calls = A.items_of(response, kind)
    probe.check(
        HOSTED_MAX_TOOL_CALLS, len(calls) == 1 and response.get("max_tool_calls") == 1,
        probe.last, expected="exactly one web search (max_tool_calls 1, echoed)",
        actual=f"{len(calls)} call(s), max_tool_calls {response.get('max_tool_calls')!r}",
    )  # fmt: skip


@case("hosted", HOSTED_MCP_APPROVAL, HOSTED_MCP, profiles=("hosted:mcp",))
def test_mcp_approval_round_trip(probe: Probe) -> None:
    tool = {**MCP_TOOL, "require_approval": "always"}
    _t, _choice, _kind, prompt = HOSTED["hosted:mcp"]
    first = probe.create(probe.body(input=prompt, tools=[tool]))
    requests = A.items_of(first, "mcp_approval_request")
    probe.check(
        HOSTED_MCP_APPROVAL, bool(requests) and all(isinstance(r.get("id"), str) for r in requests),
        probe.last, expected="an `mcp_approval_request` item with an id (require_approval always)",
        actual=f"output {A.output_types(first)}",
    )  # fmt: skip
    if not requests:
        return
    request = requests[0]
    history = [{"role": "user", "content": prompt}, *first.get("output", []),
               {"type": "mcp_approval_response", "approval_request_id": request["id"],
                "approve": True}]  # fmt: skip
    second = probe.create(probe.body(input=history, tools=[tool]))
    calls = A.items_of(second, "mcp_call")
    probe.check(
        HOSTED_MCP_APPROVAL,
        bool(calls) and all(c.get("approval_request_id") == request["id"] for c in calls),
        probe.last, expected=f"`mcp_call` items answering approval {request['id']!r}",
        actual=f"output {A.output_types(second)}, approval_request_id "
        f"{[c.get('approval_request_id') for c in calls]}",
    )  # fmt: skip


# --- hosted:tool_search: deferred tools found by a tool search ---------------------------------
WEATHER_DEFERRED = {
    "type": "function", "name": "get_weather", "defer_loading": True,
    "description": "Get the current weather at a location.",
    "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                   "required": ["location"], "additionalProperties": False},
    "strict": True,
}  # fmt: skip
CRM_NAMESPACE = {
    "type": "namespace", "name": "crm", "description": "Customer records.",
    "tools": [{"type": "function", "name": "lookup_customer", "defer_loading": True,
               "description": "Look a customer up by email.",
               "parameters": {"type": "object", "properties": {"email": {"type": "string"}},
                              "required": ["email"], "additionalProperties": False},
               "strict": True}],
}  # fmt: skip
WEATHER_PROMPT = "What is the weather in Paris right now? Use the get_weather tool."


def _loaded_names(item: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for tool in item.get("tools") or ():
        if isinstance(tool, dict) and tool.get("type") == "namespace":
            names |= {str(t.get("name")) for t in tool.get("tools") or () if isinstance(t, dict)}
        elif isinstance(tool, dict):
            names.add(str(tool.get("name")))
    return names


@case("hosted", HOSTED_TOOL_SEARCH, profiles=("hosted:tool_search",))
def test_tool_search_loads_a_deferred_tool_before_it_is_called(probe: Probe) -> None:
    body = probe.body(input=WEATHER_PROMPT, tools=[WEATHER_DEFERRED, CRM_NAMESPACE,
                                                   {"type": "tool_search"}])  # fmt: skip
    response = probe.create_stream(body)[0]
    loaded: set[str] = set()
    early: list[str] = []
    for item in response.get("output") or ():
        if item.get("type") == "tool_search_output" and item.get("status") in (None, "completed"):
            loaded |= _loaded_names(item)
        elif item.get("type") == "function_call" and item.get("name") not in loaded:
            early.append(str(item.get("name")))
    calls = A.function_calls(response)
    probe.check(
        HOSTED_TOOL_SEARCH, bool(calls) and not early and "get_weather" in loaded, probe.last,
        expected="a tool_search_output loading get_weather, then a call to it",
        actual=f"output {A.output_types(response)}, loaded {sorted(loaded)}, "
        f"called before being loaded {early}",
    )  # fmt: skip


@case("hosted", HOSTED_TOOL_SEARCH_CLIENT, profiles=("hosted:tool_search",))
def test_client_tool_search_round_trip(probe: Probe) -> None:
    tools = [WEATHER_DEFERRED, {"type": "tool_search", "execution": "client"}]
    first = probe.create(probe.body(input=WEATHER_PROMPT, tools=tools))
    searches = A.items_of(first, "tool_search_call")
    ok = bool(searches) and A.output_types(first)[-1] == "tool_search_call"
    ok = ok and all(s.get("execution") == "client" and isinstance(s.get("call_id"), str)
                    for s in searches)  # fmt: skip
    probe.check(
        HOSTED_TOOL_SEARCH_CLIENT, ok, probe.last,
        expected="a tool_search_call with `execution: client` and a `call_id`, last in the output",
        actual=f"output {A.output_types(first)}, "
        f"{[(s.get('execution'), s.get('call_id')) for s in searches]}",
    )  # fmt: skip
    if not ok:
        return
    search = searches[-1]
    found = {"type": "tool_search_output", "call_id": search["call_id"], "execution": "client",
             "tools": [{**WEATHER_DEFERRED, "defer_loading": False}]}  # fmt: skip
    history = [{"role": "user", "content": WEATHER_PROMPT}, *first.get("output", []), found]
    second = probe.create(probe.body(input=history, tools=tools))
    calls = A.function_calls(second)
    probe.check(
        HOSTED_TOOL_SEARCH_CLIENT, any(c.get("name") == "get_weather" for c in calls),
        probe.last, expected="a call to get_weather, which the client's tool_search_output loaded",
        actual=f"output {A.output_types(second)}",
    )  # fmt: skip


# --- client_tools: built-in tools the client runs, round trip ------------------------------------
SCREENSHOT = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"  # fmt: skip
# profile → (tool, tool_choice, call item type, prompt, the client's output for a call_id)
CLIENT_TOOLS: dict[str, tuple[dict[str, Any], dict[str, Any], str, str, Any]] = {
    "hosted:shell": (
        {"type": "shell"}, {"type": "shell"}, "shell_call",
        "List the files in the current directory with a shell command.",
        lambda call_id: {"type": "shell_call_output", "call_id": call_id, "output": [
            {"stdout": "README.md\nsrc\n", "stderr": "",
             "outcome": {"type": "exit", "exit_code": 0}}]},
    ),
    "hosted:apply_patch": (
        {"type": "apply_patch"}, {"type": "apply_patch"}, "apply_patch_call",
        "Create a file notes.md that says hello, by applying a patch.",
        lambda call_id: {"type": "apply_patch_call_output", "call_id": call_id,
                         "status": "completed", "output": "created notes.md"},
    ),
    "hosted:computer_use_preview": (
        {"type": "computer_use_preview", "display_width": 1024, "display_height": 768,
         "environment": "browser"},
        {"type": "computer_use_preview"}, "computer_call",
        "Take a screenshot of the browser.",
        lambda call_id: {"type": "computer_call_output", "call_id": call_id,
                         "output": {"type": "computer_screenshot", "image_url": SCREENSHOT}},
    ),
}  # fmt: skip
_ROUND_TRIP: dict[str, Check] = {
    "hosted:shell": HOSTED_SHELL,
    "hosted:apply_patch": HOSTED_APPLY_PATCH,
    "hosted:computer_use_preview": HOSTED_COMPUTER,
}


def _round_trip(probe: Probe, profile: str) -> None:
    tool, choice, kind, prompt, output_for = CLIENT_TOOLS[profile]
    check = _ROUND_TRIP[profile]
    first = probe.create_stream(probe.body(input=prompt, tools=[tool], tool_choice=choice))[0]
    calls = A.items_of(first, kind)
    ok = bool(calls) and A.output_types(first)[-1] == kind
    ok = ok and all(isinstance(c.get("call_id"), str) and c.get("call_id") for c in calls)
    probe.check(
        check, ok, probe.last,
        expected=f"a `{kind}` with a `call_id`, last in the output (the client runs it)",
        actual=f"output {A.output_types(first)}, call_ids {[c.get('call_id') for c in calls]}",
    )  # fmt: skip
    if not ok:
        return
    call = calls[-1]
    history = [{"role": "user", "content": prompt}, *first.get("output", []),
               output_for(call["call_id"])]  # fmt: skip
    second = probe.create_stream(probe.body(input=history, tools=[tool]))[0]
    again = [c for c in A.items_of(second, kind) if c.get("call_id") == call["call_id"]]
    answered = "message" in A.output_types(second) and not again
    probe.check(
        check, answered and second.get("status") == "completed", probe.last,
        expected=f"the `{kind}` output answered with a message, the call not repeated",
        actual=f"status {second.get('status')!r}, output {A.output_types(second)}",
    )  # fmt: skip


@case("client_tools", HOSTED_SHELL, DELTAS_EQUAL_DONE, profiles=("hosted:shell",))
def test_shell_call_round_trip(probe: Probe) -> None:
    _round_trip(probe, "hosted:shell")


@case("client_tools", HOSTED_APPLY_PATCH, DELTAS_EQUAL_DONE, profiles=("hosted:apply_patch",))
def test_apply_patch_call_round_trip(probe: Probe) -> None:
    _round_trip(probe, "hosted:apply_patch")


@case("client_tools", HOSTED_COMPUTER, profiles=("hosted:computer_use_preview",))
def test_computer_call_round_trip(probe: Probe) -> None:
    _round_trip(probe, "hosted:computer_use_preview")
