"""Hosted tools, one profile each (``hosted:<tool type>``): the tool forced by
``tool_choice`` where [OAPI] ``ToolChoiceTypes`` has a type for it (``web_search_preview``,
``file_search``, ``code_interpreter``, ``image_generation``; ``mcp`` with its ``server_label``),
streamed, so the judge sees the whole sequence — progress order, ``*.failed`` against the status,
partial image indices, citation offsets — and the call's item is checked here; ``max_tool_calls``
caps built-in calls. ``hosted:tool_search``: deferred tools found by a server- or client-executed
tool search (docs/spec.md §1.7).

A target that claims ``hosted:file_search`` needs a vector store with the id ``vs_conformance``;
``hosted:mcp`` names DeepWiki's public MCP server, as OpenAI's docs do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from ... import catalog as C
from ...catalog import live as L
from .. import answers as A
from ..hosted_requests import HOSTED, MCP_TOOL
from ..probe import Probe

_CHECKS = {
    "hosted:web_search": L.HOSTED_WEB_SEARCH,
    "hosted:file_search": L.HOSTED_FILE_SEARCH,
    "hosted:code_interpreter": L.HOSTED_CODE_INTERPRETER,
    "hosted:image_generation": L.HOSTED_IMAGE_GENERATION,
    "hosted:mcp": L.HOSTED_MCP,
}
_JUDGED = (
    C.HOSTED_PROGRESS_ORDER.id,
    C.HOSTED_FAILED_STATUS.id,
    C.ANNOTATION_OFFSETS.id,
)


def _forced(probe: Probe, profile: str, **fields: Any) -> tuple[dict[str, Any], list[Any]]:
    tool, choice, kind, prompt = HOSTED[profile]
    body = probe.body(input=prompt, tools=[tool], tool_choice=choice, **fields)
    response = probe.create_stream(body)[0]
    calls = A.items_of(response, kind)
    ok = bool(calls) and response.get("status") == "completed"
    ok = ok and all(c.get("status") in (None, "completed") for c in calls)
    probe.check(
        _CHECKS[profile], ok, probe.last,
        expected=f"a completed response with completed `{kind}` item(s)",
        actual=f"status {response.get('status')!r}, output {A.output_types(response)}, "
        f"statuses {[c.get('status') for c in calls]}",
    )  # fmt: skip
    return response, calls


_Case = TypeVar("_Case", bound=Callable[..., None])


def _case(profile: str, *extra: str) -> Callable[[_Case], _Case]:
    def mark(fn: _Case) -> _Case:
        fn = pytest.mark.checks(_CHECKS[profile].id, *_JUDGED, *extra)(fn)
        marked: _Case = pytest.mark.profiles(profile)(fn)
        return marked

    return mark


@_case("hosted:web_search")
def test_web_search_forced(probe: Probe) -> None:
    _forced(probe, "hosted:web_search", include=["web_search_call.action.sources"])


@_case("hosted:file_search")
def test_file_search_forced(probe: Probe) -> None:
    _forced(probe, "hosted:file_search", include=["file_search_call.results"])


@_case("hosted:code_interpreter", C.DELTAS_EQUAL_DONE.id)
def test_code_interpreter_forced(probe: Probe) -> None:
    _forced(probe, "hosted:code_interpreter", include=["code_interpreter_call.outputs"])


@_case("hosted:image_generation", C.IMAGE_PARTIAL_INDEX.id)
def test_image_generation_forced(probe: Probe) -> None:
    _response, calls = _forced(probe, "hosted:image_generation")
    for call in calls:
        result = call.get("result")
        probe.check(
            L.HOSTED_IMAGE_GENERATION, isinstance(result, str) and len(result) > 16, probe.last,
            expected="a base64 image as `result`", actual=f"{str(result)[:40]!r}",
        )  # fmt: skip


@_case("hosted:mcp", C.DELTAS_EQUAL_DONE.id)
def test_mcp_forced(probe: Probe) -> None:
    _forced(probe, "hosted:mcp")


@pytest.mark.checks(L.HOSTED_MAX_TOOL_CALLS.id)
@pytest.mark.profiles("hosted:web_search")
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
        L.HOSTED_MAX_TOOL_CALLS, len(calls) == 1 and response.get("max_tool_calls") == 1,
        probe.last, expected="exactly one web search (max_tool_calls 1, echoed)",
        actual=f"{len(calls)} call(s), max_tool_calls {response.get('max_tool_calls')!r}",
    )  # fmt: skip


@pytest.mark.checks(L.HOSTED_MCP_APPROVAL.id, L.HOSTED_MCP.id)
@pytest.mark.profiles("hosted:mcp")
def test_mcp_approval_round_trip(probe: Probe) -> None:
    tool = {**MCP_TOOL, "require_approval": "always"}
    _t, _choice, _kind, prompt = HOSTED["hosted:mcp"]
    first = probe.create(probe.body(input=prompt, tools=[tool]))
    requests = A.items_of(first, "mcp_approval_request")
    probe.check(
        L.HOSTED_MCP_APPROVAL, bool(requests) and all(isinstance(r.get("id"), str) for r in requests),
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
        L.HOSTED_MCP_APPROVAL,
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


@pytest.mark.checks(L.HOSTED_TOOL_SEARCH.id)
@pytest.mark.profiles("hosted:tool_search")
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
        L.HOSTED_TOOL_SEARCH, bool(calls) and not early and "get_weather" in loaded, probe.last,
        expected="a tool_search_output loading get_weather, then a call to it",
        actual=f"output {A.output_types(response)}, loaded {sorted(loaded)}, "
        f"called before being loaded {early}",
    )  # fmt: skip


@pytest.mark.checks(L.HOSTED_TOOL_SEARCH_CLIENT.id)
@pytest.mark.profiles("hosted:tool_search")
def test_client_tool_search_round_trip(probe: Probe) -> None:
    tools = [WEATHER_DEFERRED, {"type": "tool_search", "execution": "client"}]
    first = probe.create(probe.body(input=WEATHER_PROMPT, tools=tools))
    searches = A.items_of(first, "tool_search_call")
    ok = bool(searches) and A.output_types(first)[-1] == "tool_search_call"
    ok = ok and all(s.get("execution") == "client" and isinstance(s.get("call_id"), str)
                    for s in searches)  # fmt: skip
    probe.check(
        L.HOSTED_TOOL_SEARCH_CLIENT, ok, probe.last,
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
        L.HOSTED_TOOL_SEARCH_CLIENT, any(c.get("name") == "get_weather" for c in calls),
        probe.last, expected="a call to get_weather, which the client's tool_search_output loaded",
        actual=f"output {A.output_types(second)}",
    )  # fmt: skip
