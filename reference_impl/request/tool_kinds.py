"""Tool kinds beyond ``function``: request checks and the engine's view of them.

[OAPI] ``Tool`` is a union of a dozen kinds; this module checks the ones whose fields the protocol
layer reads — ``custom`` tools (``CustomToolParam``: free text, or a ``grammar`` format with
``syntax`` ``lark`` / ``regex`` and a ``definition`` that LLGuidance compiles,
:mod:`.grammar`) — and the ``tool_choice`` union
(``ToolChoiceParam``): a mode string, ``allowed_tools``, a hosted type (``ToolChoiceTypes``),
``function``, ``mcp``, ``custom``, ``apply_patch``, ``shell`` or ``programmatic_tool_calling``.
A ``tool_choice`` type outside that union is OpenAI's 400 ``invalid_value`` on
``tool_choice.type``. Hosted tools are echoed as sent (their servers' fakes read them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..engine import CustomTool, FunctionTool
from ..errors import APIError, invalid_request
from .grammar import GrammarError, compile_grammar

__all__ = [
    "HOSTED_CHOICE_TYPES",
    "TOOL_CHOICE_TYPES",
    "check_named_choice",
    "custom_tools",
    "engine_tools",
    "validate_custom_tool",
    "validate_tool_choice_object",
]

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# [OAPI] ToolChoiceTypes.type
HOSTED_CHOICE_TYPES = (
    "file_search",
    "web_search_preview",
    "computer",
    "computer_use_preview",
    "computer_use",
    "web_search_preview_2025_03_11",
    "image_generation",
    "code_interpreter",
)
# Every object `type` of [OAPI] ToolChoiceParam.
TOOL_CHOICE_TYPES = (
    "allowed_tools",
    *HOSTED_CHOICE_TYPES,
    "function",
    "mcp",
    "custom",
    "programmatic_tool_calling",
    "apply_patch",
    "shell",
)
_GRAMMAR_SYNTAXES = ("lark", "regex")


def _missing(param: str) -> APIError:
    return invalid_request(
        f"Missing required parameter: '{param}'.", param, "missing_required_parameter"
    )


def _invalid_value(param: str, value: Any, allowed: Sequence[str]) -> APIError:
    supported = ", ".join(f"'{a}'" for a in allowed)
    return invalid_request(
        f"Invalid value: '{value}'. Supported values are: {supported}.", param, "invalid_value"
    )


def _string(tool: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> Any:
    value = tool.get(key)
    if value is None:
        if required:
            raise _missing(f"{where}.{key}")
        return None
    if not isinstance(value, str):
        raise invalid_request(
            f"Invalid type for '{where}.{key}': expected a string, but got "
            f"{type(value).__name__} instead.",
            f"{where}.{key}",
            "invalid_type",
        )
    return value


def validate_custom_tool(tool: Mapping[str, Any], where: str) -> str:
    """A ``custom`` tool's fields ([OAPI] ``CustomToolParam``); returns its name."""
    name = _string(tool, "name", where, required=True)
    if not _NAME.match(name):
        raise invalid_request(
            f"Invalid '{where}.name': string does not match pattern. Expected a string that "
            "matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).",
            f"{where}.name",
            "invalid_value",
        )
    _string(tool, "description", where)
    fmt = tool.get("format")
    if fmt is None:
        return str(name)
    if not isinstance(fmt, dict):
        raise invalid_request(
            f"Invalid type for '{where}.format': expected an object, but got "
            f"{type(fmt).__name__} instead.",
            f"{where}.format",
            "invalid_type",
        )
    kind = fmt.get("type")
    if kind not in ("text", "grammar"):
        raise _invalid_value(f"{where}.format.type", kind, ("text", "grammar"))
    if kind == "grammar":
        syntax = _string(fmt, "syntax", f"{where}.format", required=True)
        if syntax not in _GRAMMAR_SYNTAXES:
            raise _invalid_value(f"{where}.format.syntax", syntax, _GRAMMAR_SYNTAXES)
        definition = _string(fmt, "definition", f"{where}.format", required=True)
        try:
            compile_grammar(syntax, definition)
        except GrammarError as error:
            # LLGuidance's reason, as OpenAI (which compiles grammars with LLGuidance) would
            # give it; the param and code are provisional: no recording of OpenAI's refusal
            # exists yet (docs/custom-tools.md, "Grammars").
            raise invalid_request(
                f"Invalid grammar for custom tool '{name}': {error}",
                f"{where}.format.definition",
                "invalid_value",
            ) from None
    return str(name)


def check_named_choice(
    choice: Mapping[str, Any], tools: Sequence[Mapping[str, Any]], kind: str
) -> None:
    """A ``tool_choice`` naming one tool (``function`` / ``custom``): that tool must be declared,
    else OpenAI's 400 ("Tool choice 'x' not found in 'tools' parameter.")."""
    name = choice.get("name")
    declared = {t.get("name") for t in tools if t.get("type") == kind}
    if not isinstance(name, str) or name not in declared:
        raise invalid_request(
            f"Tool choice '{name}' not found in 'tools' parameter.",
            "tool_choice",
            "invalid_value",
        )


def validate_tool_choice_object(
    choice: Mapping[str, Any], tools: Sequence[Mapping[str, Any]]
) -> None:
    """A ``tool_choice`` object whose ``type`` is not ``function`` / ``allowed_tools`` (those
    stay in :mod:`reference_impl.request.validation`): one of [OAPI] ``ToolChoiceParam``'s kinds."""
    kind = choice.get("type")
    if kind not in TOOL_CHOICE_TYPES:
        raise _invalid_value("tool_choice.type", kind, TOOL_CHOICE_TYPES)
    if kind == "custom":
        check_named_choice(choice, tools, "custom")
    elif kind == "mcp":
        label = choice.get("server_label")
        if not isinstance(label, str):
            raise _missing("tool_choice.server_label")
        labels = {t.get("server_label") for t in tools if t.get("type") == "mcp"}
        if label not in labels:
            raise invalid_request(
                f"Tool choice 'mcp' with server_label '{label}' not found in 'tools' parameter.",
                "tool_choice",
                "invalid_value",
            )


def custom_tools(body: Mapping[str, Any]) -> tuple[CustomTool, ...]:
    """The request's ``custom`` tools as the engine sees them (a validated body)."""
    return engine_tools(body, ())[1]


def _loaded(items: Sequence[Mapping[str, Any]]) -> tuple[set[tuple[str | None, str]], list[Any]]:
    """What the conversation's ``tool_search_output`` items loaded: (namespace, name) keys — a
    namespace loaded whole is ``(namespace, "*")`` — and the tool definitions they carry."""
    keys: set[tuple[str | None, str]] = set()
    tools: list[Any] = []
    for item in items:
        if item.get("type") != "tool_search_output":
            continue
        for tool in item.get("tools") or ():
            if not isinstance(tool, Mapping):
                continue
            tools.append(tool)
            if tool.get("type") == "namespace":
                inner = [t for t in tool.get("tools") or () if isinstance(t, Mapping)]
                keys |= {(str(tool.get("name")), str(t.get("name"))) for t in inner}
                if not inner:
                    keys.add((str(tool.get("name")), "*"))
            else:
                keys.add((None, str(tool.get("name"))))
    return keys, tools


def engine_tools(
    body: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
) -> tuple[tuple[FunctionTool, ...], tuple[CustomTool, ...]]:
    """The function and custom tools the engine may call, in declaration order: the request's
    own, those of its ``namespace`` tools (with their namespace), and the ones a client-executed
    tool search loaded into the conversation (a ``tool_search_output`` item carries their
    definitions). A tool declared with ``defer_loading`` is ``deferred`` until a
    ``tool_search_output`` of the conversation (``items``) loads it."""
    loaded, found = _loaded(items)
    functions: list[FunctionTool] = []
    customs: list[CustomTool] = []
    seen: set[tuple[str | None, str]] = set()

    def add(tool: Mapping[str, Any], namespace: str | None, *, from_search: bool) -> None:
        name = str(tool.get("name"))
        key = (namespace, name)
        if key in seen:
            return
        seen.add(key)
        deferred = (
            tool.get("defer_loading") is True
            and not from_search
            and key not in loaded
            and (namespace, "*") not in loaded
        )
        if tool.get("type") == "function":
            functions.append(
                FunctionTool(
                    name=name,
                    parameters=tool.get("parameters"),
                    description=tool.get("description"),
                    strict=tool.get("strict"),
                    namespace=namespace,
                    deferred=deferred,
                )
            )
        elif tool.get("type") == "custom":
            fmt = tool.get("format") or {}
            grammar = fmt.get("type") == "grammar"
            customs.append(
                CustomTool(
                    name=name,
                    description=tool.get("description"),
                    syntax=fmt.get("syntax") if grammar else None,
                    definition=fmt.get("definition") if grammar else None,
                    namespace=namespace,
                    deferred=deferred,
                )
            )

    def walk(tools: Sequence[Any], *, from_search: bool) -> None:
        for tool in tools:
            if not isinstance(tool, Mapping):
                continue
            if tool.get("type") == "namespace":
                for inner in tool.get("tools") or ():
                    if isinstance(inner, Mapping):
                        add(inner, str(tool.get("name")), from_search=from_search)
            else:
                add(tool, None, from_search=from_search)

    walk(body.get("tools") or (), from_search=False)
    walk(found, from_search=True)
    return tuple(functions), tuple(customs)
