"""§9 Client profiles (docs/spec.md#s9): ``live.client.<client>.*``.

A target that declares ``client:codex`` (``client:agents-sdk``, ``client:vercel-ai``,
``client:openai-python``, ``client:openai-node``, ``client:langchain``) is judged on the requests
that client really sends: the flows of the catalogue (:mod:`conformance.clients.captured_flows`), captured from
the client, replayed against the target (:mod:`conformance.suite.replay`) by the case below
(:func:`test_flow`, area ``clients``: one run per flow, under its client's profile; a flow over
WebSocket needs ``websocket`` declared too). Per client:

- ``parameters`` / ``input_items`` / ``tools`` — a refusal (4xx) of a request the client sends,
  located at a request parameter (``prompt_cache_retention``, ``text.verbosity``), at an input
  item or a field of one (``input[3].phase``, an ``item_reference``), or at a tool declaration;
  the location is what the error names (``param``, or a field of the request quoted in its
  message), else the first part of the request whose removal makes it accepted;
- ``requests`` — every other way a request the client sends is not served: a refusal that
  names nothing of the request and that no removal explains, a 5xx, a missing route;
- ``chain_after_stream`` (clients that chain a streamed parent) — a ``previous_response_id`` on
  a response that was streamed is accepted at once, and again on each streamed link;
- ``compaction_one_item`` (Codex) — a compaction turn (a ``compaction_trigger`` input item)
  yields exactly one ``compaction`` output item;
- ``response_parses`` / ``stream_parses`` (the Vercel AI SDK) — what its provider's zod schemas
  require of a Response and of each streamed event it knows (declared with their rule in
  :mod:`.s9_vercel_ai`);
- ``stream_completed`` (the Agents SDK, openai-python, Codex; the Vercel AI SDK when the turn
  calls a tool) — a streamed turn ends in ``response.completed``;
- ``stream_accumulates`` — a client's stream accumulator, each in a section module of its own
  (:mod:`.s9_openai_node`) that registers its check and its rule
  (:func:`.accumulators.stream_accumulator`): the replay judges every streamed HTTP exchange of
  that client's flows by it.

The rule here is sans-I/O: :func:`locate` finds what a refusal names, :func:`removals` lists the
variants of a request to try when it names nothing, :func:`check_for` maps a location to the
client's check, :func:`compaction_items` counts what Codex counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, register
from ..clients.captured_flows import Flow, client_profile, flows
from .cases import Variant, case, params
from .s8_1_frames import WS_UPGRADE
from .s9_vercel_ai import VERCEL_RESPONSE_PARSES, VERCEL_SOURCE, VERCEL_STREAM_PARSES

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "ACCEPTANCE",
    "AGENTS_STREAM_COMPLETED",
    "CHAIN_AFTER_STREAM",
    "CLIENT_CHECKS",
    "CODEX_COMPACTION_ONE_ITEM",
    "CODEX_STREAM_COMPLETED",
    "NAMES",
    "OPENAI_PYTHON_STREAM_COMPLETED",
    "STREAM_COMPLETED",
    "VERCEL_STREAM_COMPLETED",
    "check_for",
    "compaction_items",
    "declare_examples",
    "locate",
    "removals",
    "test_flow",
]

# client (the catalogue's folder) → how the requirement names it, and its check ID part.
NAMES: dict[str, tuple[str, str]] = {
    "codex": ("Codex", "codex"),
    "agents-sdk": ("the OpenAI Agents SDK", "agents_sdk"),
    "vercel-ai": ("the Vercel AI SDK", "vercel_ai"),
    "openai-python": ("openai-python", "openai_python"),
    "openai-node": ("openai-node", "openai_node"),
    "langchain": ("LangChain (langchain-openai)", "langchain"),
}
_PARTS = {
    "parameters": (
        "every request parameter {who} sends is accepted (a 4xx naming one, such as "
        "`prompt_cache_retention` or `text.verbosity`, fails here)"
    ),
    "input_items": (
        "every input item {who} replays, and every field of one, is accepted (a 4xx naming one, "
        "such as `input[3].phase` or an `item_reference`, fails here)"
    ),
    "tools": "every tool declaration {who} sends is accepted",
    "requests": (
        "every request {who} sends is served as sent (streamed or not, over HTTP or WebSocket): "
        "2xx, and a refusal no part of the request explains fails here"
    ),
}

# client → part → check; registered in this order.
ACCEPTANCE: dict[str, dict[str, Check]] = {}
for _client, (_who, _key) in NAMES.items():
    ACCEPTANCE[_client] = {
        part: register(
            f"live.client.{_key}.{part}",
            Level.MUST,
            "§9, §9.1 [CLIENT]",
            requirement.format(who=_who),
            profile=f"client:{_client}",
        )
        for part, requirement in _PARTS.items()
    }

CHAIN_AFTER_STREAM: dict[str, Check] = {
    client: register(
        f"live.client.{NAMES[client][1]}.chain_after_stream",
        Level.MUST,
        "§9.2 [CLIENT]; dotnet/extensions#7704, lmstudio#1188",
        f"a `previous_response_id` {NAMES[client][0]} sends on a response that was streamed is "
        "accepted as soon as the stream ended, and on each streamed link of a chain",
        profile=f"client:{client}",
    )
    for client in ("openai-python", "openai-node")
}

CODEX_COMPACTION_ONE_ITEM = register(
    "live.client.codex.compaction_one_item",
    Level.MUST,
    "§9.3 [CLIENT] codex-rs/core/src/compact_remote_v2.rs",
    "a Codex compaction turn (a `compaction_trigger` input item) streams exactly one "
    '`compaction` output item (else Codex stops: "remote compaction v2 expected exactly one '
    'compaction output item")',
    profile="client:codex",
)

AGENTS_STREAM_COMPLETED = register(
    "live.client.agents_sdk.stream_completed",
    Level.MUST,
    "§9.3 [CLIENT] openai-agents 0.24 agents/run_internal/run_loop.py",
    "a turn the OpenAI Agents SDK streams ends in `response.completed`: `response.incomplete`, "
    "`response.failed` or an `error` event raises ModelBehaviorError "
    '(response_terminal_failure_error), and a stream without one raises "Model did not '
    'produce a final response!"',
    profile="client:agents-sdk",
)

OPENAI_PYTHON_STREAM_COMPLETED = register(
    "live.client.openai_python.stream_completed",
    Level.MUST,
    "§9.3 [CLIENT] openai-python 3.63 src/openai/lib/streaming/responses/_responses.py",
    "a response openai-python streams ends in `response.completed`: its `responses.stream` "
    "helper keeps the final response from that event alone, and `get_final_response()` raises "
    '"Didn\'t receive a `response.completed` event." after `response.incomplete` or '
    "`response.failed`",
    profile="client:openai-python",
)

CODEX_STREAM_COMPLETED = register(
    "live.client.codex.stream_completed",
    Level.MUST,
    "§9.3 [CLIENT] codex-rs/codex-api/src/sse/responses.rs (response.incomplete)",
    "a turn Codex streams ends in `response.completed`: on `response.incomplete` the turn fails "
    '("Incomplete response returned, reason: max_output_tokens")',
    profile="client:codex",
)

VERCEL_STREAM_COMPLETED = register(
    "live.client.vercel_ai.stream_completed",
    Level.MUST,
    f"§9.3 [CLIENT] {VERCEL_SOURCE}; packages/openai/src/responses/"
    "map-openai-responses-finish-reason.ts",
    "a turn the Vercel AI SDK streams that calls a tool ends in `response.completed`: on "
    "`response.incomplete` (`max_output_tokens`) the provider's finish reason is `length`, not "
    "`tool-calls`, and the tool is not run",
    profile="client:vercel-ai",
)

# client → the check that its streamed turns end in `response.completed`
STREAM_COMPLETED: dict[str, Check] = {
    "agents-sdk": AGENTS_STREAM_COMPLETED,
    "codex": CODEX_STREAM_COMPLETED,
    "openai-python": OPENAI_PYTHON_STREAM_COMPLETED,
    "vercel-ai": VERCEL_STREAM_COMPLETED,
}

CLIENT_CHECKS: dict[str, tuple[Check, ...]] = {
    client: (
        *parts.values(),
        *([CHAIN_AFTER_STREAM[client]] if client in CHAIN_AFTER_STREAM else []),
        *([CODEX_COMPACTION_ONE_ITEM] if client == "codex" else []),
        *([VERCEL_RESPONSE_PARSES, VERCEL_STREAM_PARSES] if client == "vercel-ai" else []),
        *([STREAM_COMPLETED[client]] if client in STREAM_COMPLETED else []),
    )
    for client, parts in ACCEPTANCE.items()
}  # and each client's stream accumulator's check, as its module registers it (.accumulators)


# Never removed to locate a refusal: without them there is no request of the client's.
_KEPT = frozenset({"model", "input", "stream", "type", "items"})
# Field names too common to count when an error's prose merely contains them.
_PROSE = re.compile(
    r"(?:parameter|argument|field|key|property|supplied|unsupported|unknown|unrecognized|not supported|"
    r"not allowed|extra)\W{0,4}$",
    re.IGNORECASE,
)


def check_for(client: str, location: str | None) -> Check:
    """The client's acceptance check for a refusal located at ``location``."""
    parts = ACCEPTANCE[client]
    if location is None:
        return parts["requests"]
    head = location.split(".", 1)[0].split("[", 1)[0]
    if head in ("input", "items"):
        return parts["input_items"]
    if head in ("tools", "tool_choice"):
        return parts["tools"]
    return parts["parameters"]


def _paths(body: Mapping[str, Any]) -> list[str]:
    """The parts of a request an error may name, most specific first within each."""
    out: list[str] = []
    for key, value in body.items():
        if key in ("input", "items", "tools") and isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    out += [f"{key}[{i}].{k}" for k in item]
                out.append(f"{key}[{i}]")
        elif isinstance(value, dict):
            out += [f"{key}.{k}" for k in value]
        if key not in _KEPT:
            out.append(key)
    return out


def _error_text(answer: Any, text: str) -> tuple[str | None, str]:
    """(the error's ``param``, its prose) of a refusal, whatever its shape."""
    param = None
    prose = text
    if isinstance(answer, dict):
        error = answer.get("error")
        if isinstance(error, dict):
            if isinstance(error.get("param"), str):
                param = error["param"]
            prose = " ".join(str(error.get(k) or "") for k in ("message", "code"))
        elif isinstance(answer.get("detail"), str | list):
            prose = str(answer["detail"])
        elif isinstance(error, str):
            prose = error
    return param, prose


def _named(prose: str, name: str) -> bool:
    """``name`` (a field of the request) is what ``prose`` refers to: quoted, after a word
    such as "parameter", or distinctive enough (a dotted path, an underscore) to be no
    accident."""
    for m in re.finditer(rf"(?<![\w.\[]){re.escape(name)}(?![\w\[])", prose):
        before = prose[: m.start()]
        quoted = before[-1:] in ("'", '"', "`")
        if quoted or "_" in name or "." in name or "[" in name or _PROSE.search(before):
            return True
    return False


def locate(body: Any, answer: Any, text: str) -> str | None:
    """The part of ``body`` a refusal names (``input[3].phase``, ``prompt_cache_retention``,
    ``text.verbosity``), or None."""
    if not isinstance(body, dict):
        return None
    paths = _paths(body)
    param, prose = _error_text(answer, text)
    if param:
        normal = param.replace("'", "").strip()
        for path in paths:
            if normal == path or normal.startswith((path + ".", path + "[")):
                return path
        leaf = normal.rsplit(".", 1)[-1]
        for path in paths:
            if path.rsplit(".", 1)[-1] == leaf:
                return path
    for path in paths:  # a whole path quoted in the message: "Unknown parameter: 'input[3].phase'"
        if ("[" in path or "." in path) and _named(prose, path):
            return path
    for path in paths:  # a field's own name: "Unsupported parameter: prompt_cache_retention"
        leaf = path.rsplit(".", 1)[-1]
        if "[" not in leaf and _named(prose, leaf):
            return path
    return None


def removals(body: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Variants of ``body`` with one part removed, as (the part, the variant): each top-level
    parameter, each field of a nested one, each field of the input items (from every item that
    has it), the tools. A refusal that names nothing is located at the first removal the
    target accepts."""
    for key, value in body.items():
        if key in _KEPT:
            continue
        if isinstance(value, dict) and len(value) > 1:
            for sub in value:
                yield f"{key}.{sub}", {**body, key: {k: v for k, v in value.items() if k != sub}}
        if key == "tools":
            yield key, {k: v for k, v in body.items() if k not in ("tools", "tool_choice")}
        elif key != "tool_choice":
            yield key, {k: v for k, v in body.items() if k != key}
    for list_key in ("input", "items"):
        items = body.get(list_key)
        if not isinstance(items, list):
            continue
        fields: dict[str, int] = {}
        for i, item in enumerate(items):
            if isinstance(item, dict):
                for k in item:
                    if k not in (
                        "type",
                        "role",
                        "content",
                        "call_id",
                        "output",
                        "arguments",
                        "name",
                    ):
                        fields.setdefault(k, i)
        for k, first in fields.items():
            stripped = [
                {f: v for f, v in item.items() if f != k} if isinstance(item, dict) else item
                for item in items
            ]
            yield f"{list_key}[{first}].{k}", {**body, list_key: stripped}


def compaction_items(events: list[dict[str, Any]], response: Mapping[str, Any] | None) -> int:
    """How many ``compaction`` output items Codex counts: one per ``response.output_item.done``
    of type compaction on a stream (codex-rs compact_remote_v2.rs, collect_compaction_output),
    else in the Response's ``output``."""
    if events:
        return sum(
            1
            for e in events
            if e.get("type") == "response.output_item.done"
            and isinstance(e.get("item"), dict)
            and e["item"].get("type") == "compaction"
        )
    output = (response or {}).get("output")
    return (
        sum(1 for i in output if isinstance(i, dict) and i.get("type") == "compaction")
        if (isinstance(output, list))
        else 0
    )


def declare_examples() -> None:
    """The failing example of each check is a gateway in front of the mock that has one defect
    (tests/suite/broken_client_servers.py), the near miss the mock itself."""
    from ..examples.live import live

    for client, note in _SERVERS.items():
        for part, (server, what) in note.items():
            live(ACCEPTANCE[client][part].id, server, what)
    for check in CHAIN_AFTER_STREAM.values():
        live(
            check.id,
            "loses_streamed_parent",
            "a server that answers `previous_response_not_found` to a chain on a response it "
            "streamed less than a second ago (Azure, LM Studio)",
        )
    for check in STREAM_COMPLETED.values():
        live(
            check.id,
            "streams_end_incomplete",
            "a server that ends its streams with `response.incomplete` (its own output limit) "
            "where OpenAI completes",
        )
    live(
        CODEX_COMPACTION_ONE_ITEM.id,
        "compaction_turn_as_message",
        "a server that answers a compaction turn with a `message` instead of a `compaction` "
        "item (codex-lb #998, kiro2cc-proxy #38)",
    )


_REFUSES_PARAMS = (
    "refuses_client_parameters",
    'a gateway that answers `400 {"detail": "Unsupported parameter: X"}` to any of '
    "`prompt_cache_retention`, `prompt_cache_key`, `safety_identifier`, `client_metadata`, "
    "`text.verbosity`, `truncation`, `service_tier` (CLIProxyAPI #897, #1028, #2466)",
)
_REFUSES_STREAMING = (
    "refuses_streaming",
    'a gateway that answers `400 {"detail": "Streaming is not supported"}` to every '
    "streamed request",
)
_REFUSES_ITEM_STATUS = (
    "refuses_input_item_status",
    "a server that refuses `status` on an input item (`Unknown parameter: 'input[1].status'`)",
)
_REFUSES_STRICT = (
    "refuses_strict_tools",
    "a server that refuses a function tool declared with `strict` (`Unknown parameter: "
    "'tools[0].strict'`)",
)
_SERVERS: dict[str, dict[str, tuple[str, str]]] = {
    "codex": {
        "parameters": _REFUSES_PARAMS,
        "input_items": (
            "refuses_phase",
            "a gateway that passes on the upstream's `phase` on output messages and refuses it "
            "on the assistant message Codex replays (`Unknown parameter: 'input[3].phase'`)",
        ),
        "tools": (
            "refuses_namespace_tools",
            "a server that refuses `namespace` tools (`Invalid value: 'namespace'`)",
        ),
        "requests": _REFUSES_STREAMING,
    },
    "agents-sdk": {
        "parameters": _REFUSES_PARAMS,
        "input_items": _REFUSES_ITEM_STATUS,
        "tools": _REFUSES_STRICT,
        "requests": _REFUSES_STREAMING,
    },
    "vercel-ai": {
        "parameters": _REFUSES_PARAMS,
        "input_items": (
            "refuses_item_reference",
            "a server that refuses `item_reference` input items",
        ),
        "tools": _REFUSES_STRICT,
        "requests": _REFUSES_STREAMING,
    },
    "openai-python": {
        "parameters": _REFUSES_PARAMS,
        "input_items": _REFUSES_ITEM_STATUS,
        "tools": _REFUSES_STRICT,
        "requests": _REFUSES_STREAMING,
    },
    "openai-node": {
        "parameters": _REFUSES_PARAMS,
        "input_items": _REFUSES_ITEM_STATUS,
        "tools": _REFUSES_STRICT,
        "requests": _REFUSES_STREAMING,
    },
    "langchain": {
        "parameters": (
            "refuses_reasoning_parameter",
            "a server that refuses `reasoning` (`Unsupported parameter: reasoning`)",
        ),
        "input_items": _REFUSES_ITEM_STATUS,
        "tools": _REFUSES_STRICT,
        "requests": _REFUSES_STREAMING,
    },
}


# --- the case: every flow of the catalogue, replayed ----------------------------------------------


def _flows() -> list[Variant]:
    """One run per flow, under its client's profile and checks, a chain (``--repeat`` runs it
    again). Built when the suite collects the case: the catalogue is read from disk (the judge,
    which imports this module, never needs it), and the accumulator modules (:mod:`.s9_openai_node`,
    …) add their checks to ``CLIENT_CHECKS`` after this one is imported."""
    return [
        Variant(
            flow,
            flow.id,
            profiles=(client_profile(flow.client), *(["websocket"] if flow.websocket else [])),
            checks=(
                *(c.id for c in CLIENT_CHECKS[flow.client]),
                *([WS_UPGRADE.id] if flow.websocket else []),
            ),
            chain=True,
        )
        for flow in flows()
    ]


@case("clients")
@params("flow", _flows)
def test_flow(probe: Probe, flow: Flow) -> None:
    probe.replay(flow)
