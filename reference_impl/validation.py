"""Request-body validation for ``POST /v1/responses`` with OpenAI-shaped 400s.

Every failure is an :class:`~reference_impl.errors.APIError` whose ``param`` names the field
(``max_output_tokens``, ``input[2].role``, ``tools[0].name``) and whose ``code`` is one of OpenAI's
string codes (``invalid_type``, ``invalid_value``, ``missing_required_parameter``,
``unknown_parameter``, ``integer_below_min_value``, …) — SPEC §3 "Request", §4 "Errors".
Input items are checked in :mod:`reference_impl.inputs`, which normalizes them at the same time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import orjson

from .errors import APIError, invalid_request
from .tool_kinds import validate_custom_tool, validate_tool_choice_object

__all__ = [
    "INCLUDABLE",
    "KNOWN_CREATE_PARAMS",
    "NO_EFFECT_PARAMS",
    "REASONING_EFFORTS",
    "SERVICE_TIERS",
    "validate_create_body",
    "validate_metadata",
]

# ResponseCreateParams of the openai SDK (3.x), plus `stream`, Open Responses' penalties (SPEC §3)
# and fields real clients send that the schema lacks: `client_metadata` (Codex CLI sends it on
# every request; without it its first request got 400 unknown_parameter, issue 13).
KNOWN_CREATE_PARAMS = frozenset(
    {
        "access_programs",
        "background",
        "background_options",
        "client_metadata",
        "context_management",
        "conversation",
        "frequency_penalty",
        "image",
        "include",
        "input",
        "instructions",
        "max_output_tokens",
        "max_tool_calls",
        "metadata",
        "model",
        "moderation",
        "parallel_tool_calls",
        "presence_penalty",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "text",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "truncation",
        "user",
    }
)

# Accepted, validated for shape, and without effect on what the server generates (docs/state.md
# "Accepted without effect"). The Response object echoes each one it has a field for
# (response_object.response_skeleton); the others have no Response field to echo into.
NO_EFFECT_PARAMS = frozenset(
    {
        "access_programs",
        "background_options",
        "client_metadata",
        "image",
        "moderation",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "safety_identifier",
        "service_tier",
        "user",
    }
)

# The SDK's ResponseIncludable / [OAPI] IncludeEnum, each with who honours it. Any other string is
# OpenAI's 400 invalid_value on `include[i]` (tests enumerate the SDK's enum against this table).
INCLUDABLE: dict[str, str] = {
    "reasoning.encrypted_content": "protocol layer: reasoning items carry a sealed blob",
    "message.output_text.logprobs": "engine: logprobs on output_text parts (tools issue)",
    "web_search_call.action.sources": "hosted web_search fake (tools issue)",
    "web_search_call.results": "hosted web_search fake (tools issue)",
    "file_search_call.results": "hosted file_search fake (tools issue)",
    "code_interpreter_call.outputs": "hosted code_interpreter fake (tools issue)",
    "message.input_image.image_url": "input items keep image_url as sent",
    "computer_call_output.output.image_url": "input items keep image_url as sent",
}

SERVICE_TIERS = ("auto", "default", "flex", "scale", "priority", "fast", "ultrafast")
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")

_TYPE_NAMES = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a decimal",
    dict: "an object",
    list: "an array",
}
_FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOOL_CHOICE_MODES = ("none", "auto", "required")


def _got(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def type_error(param: str, expected: str, value: Any) -> APIError:
    return invalid_request(
        f"Invalid type for '{param}': expected {expected}, but got {_got(value)} instead.",
        param,
        "invalid_type",
    )


def value_error(param: str, value: Any, allowed: tuple[str, ...]) -> APIError:
    supported = ", ".join(f"'{a}'" for a in allowed)
    return invalid_request(
        f"Invalid value: '{value}'. Supported values are: {supported}.", param, "invalid_value"
    )


def check_type(body: Mapping[str, Any], key: str, kind: type, *, param: str | None = None) -> Any:
    """``body[key]`` if it is ``None``/absent or of ``kind`` (ints count as decimals, bools never
    count as numbers); else a 400 ``invalid_type``."""
    value = body.get(key)
    if value is None:
        return None
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if kind is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok:
        raise type_error(param or key, _TYPE_NAMES[kind], value)
    return value


def _check_range(
    param: str, value: Any, low: float | None, high: float | None, kind: str = "integer"
) -> None:
    if value is None:
        return
    if low is not None and value < low:
        raise invalid_request(
            f"Invalid '{param}': {kind} below minimum value. Expected a value >= {low:g}, "
            f"but got {value} instead.",
            param,
            f"{kind}_below_min_value",
        )
    if high is not None and value > high:
        raise invalid_request(
            f"Invalid '{param}': {kind} above maximum value. Expected a value <= {high:g}, "
            f"but got {value} instead.",
            param,
            f"{kind}_above_max_value",
        )


def _check_enum(body: Mapping[str, Any], key: str, allowed: tuple[str, ...], param: str) -> None:
    value = check_type(body, key, str, param=param)
    if value is not None and value not in allowed:
        raise value_error(param, value, allowed)


def validate_create_body(body: Any, *, require_model: bool = True) -> dict[str, Any]:
    """Check the scalar and structured fields of a create (or input_tokens) body; returns it.

    ``input`` is checked by :func:`reference_impl.inputs.normalize_input`.
    """
    if not isinstance(body, dict):
        raise invalid_request(
            "The request body must be a JSON object.", None, "invalid_request_body"
        )
    for key in body:
        if key not in KNOWN_CREATE_PARAMS:
            raise invalid_request(f"Unknown parameter: '{key}'.", key, "unknown_parameter")
    model = check_type(body, "model", str)
    if require_model and not model:
        raise invalid_request(
            "Missing required parameter: 'model'.", "model", "missing_required_parameter"
        )
    if body.get("input") is not None and not isinstance(body["input"], str | list):
        raise type_error("input", "a string or an array of input items", body["input"])
    for key in (
        "instructions",
        "previous_response_id",
        "user",
        "safety_identifier",
        "prompt_cache_key",
    ):
        check_type(body, key, str)
    for key in ("stream", "background", "store", "parallel_tool_calls"):
        check_type(body, key, bool)
    for key, low, high in (
        ("temperature", 0, 2),
        ("top_p", 0, 1),
        ("presence_penalty", -2, 2),
        ("frequency_penalty", -2, 2),
    ):
        _check_range(key, check_type(body, key, float), low, high, "decimal")
    _check_range("max_output_tokens", check_type(body, "max_output_tokens", int), 16, None)
    _check_range("max_tool_calls", check_type(body, "max_tool_calls", int), 1, None)
    _check_range("top_logprobs", check_type(body, "top_logprobs", int), 0, 20)
    _check_enum(body, "truncation", ("auto", "disabled"), "truncation")
    _check_enum(body, "service_tier", SERVICE_TIERS, "service_tier")
    _check_enum(body, "prompt_cache_retention", ("in_memory", "24h"), "prompt_cache_retention")
    validate_metadata(body.get("metadata"))
    _validate_no_effect(body)
    _validate_context_management(body.get("context_management"))
    _validate_include(body.get("include"))
    _validate_stream_options(body)
    _validate_reasoning(body.get("reasoning"))
    _validate_text(body.get("text"))
    tools = _validate_tools(body.get("tools"))
    _validate_tool_choice(body.get("tool_choice"), tools)
    if body.get("background") and body.get("store") is False:
        raise invalid_request(
            "Background mode requires `store` to be true.", "background", "invalid_value"
        )
    return body


def validate_metadata(metadata: Any) -> None:
    # SPEC §3: at most 16 pairs, keys ≤ 64 characters, values ≤ 512.
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise type_error("metadata", "an object", metadata)
    if len(metadata) > 16:
        raise invalid_request(
            "Invalid 'metadata': too many properties. Expected an object with at most 16 "
            f"properties, but got an object with {len(metadata)} properties instead.",
            "metadata",
            "object_above_max_properties",
        )
    for key, value in metadata.items():
        if len(key) > 64:
            raise invalid_request(
                f"Invalid 'metadata': key '{key[:16]}…' is too long. Expected a key of at most "
                f"64 characters, but got {len(key)} characters instead.",
                "metadata",
                "string_above_max_length",
            )
        if not isinstance(value, str):
            raise type_error(f"metadata.{key}", "a string", value)
        if len(value) > 512:
            raise invalid_request(
                f"Invalid 'metadata.{key}': string too long. Expected a string with maximum "
                f"length 512, but got a string with length {len(value)} instead.",
                f"metadata.{key}",
                "string_above_max_length",
            )


def _validate_include(include: Any) -> None:
    if include is None:
        return
    if not isinstance(include, list):
        raise type_error("include", "an array", include)
    for i, entry in enumerate(include):
        if not isinstance(entry, str):
            raise type_error(f"include[{i}]", "a string", entry)
        if entry not in INCLUDABLE:
            raise value_error(f"include[{i}]", entry, tuple(INCLUDABLE))


def _object_of(
    body: Mapping[str, Any], key: str, fields: Mapping[str, tuple[str, ...] | type]
) -> None:
    """``body[key]``: null or an object whose listed fields are null, of the given type, or one of
    the given strings; fields not listed pass (the SDK's TypedDicts are open to additions)."""
    value = check_type(body, key, dict)
    if value is None:
        return
    for name, rule in fields.items():
        if isinstance(rule, tuple):
            _check_enum(value, name, rule, f"{key}.{name}")
        else:
            check_type(value, name, rule, param=f"{key}.{name}")


def _validate_context_management(entries: Any) -> None:
    """``context_management``: entries ``{type: "compaction", compact_threshold?}`` (the only type
    the SDK names)."""
    if entries is None:
        return
    if not isinstance(entries, list):
        raise type_error("context_management", "an array", entries)
    for i, entry in enumerate(entries):
        where = f"context_management[{i}]"
        if not isinstance(entry, dict):
            raise type_error(where, "an object", entry)
        if entry.get("type") is None:
            raise invalid_request(
                f"Missing required parameter: '{where}.type'.",
                f"{where}.type",
                "missing_required_parameter",
            )
        _check_enum(entry, "type", ("compaction",), f"{where}.type")
        threshold = check_type(entry, "compact_threshold", int, param=f"{where}.compact_threshold")
        _check_range(f"{where}.compact_threshold", threshold, 1, None)


def _validate_no_effect(body: Mapping[str, Any]) -> None:
    """The shapes of the fields in :data:`NO_EFFECT_PARAMS` (the SDK's types, 3.x)."""
    _object_of(body, "access_programs", {"cyber": ("standard", "daybreak_blue", "daybreak_red")})
    _object_of(
        body,
        "background_options",
        {"completion_window": ("soonest", "2h", "8h"), "continuation_id": str},
    )
    _object_of(body, "image", {"context_compression": ("auto", "enabled", "disabled")})
    _object_of(body, "moderation", {"model": str, "policy": dict})
    _object_of(
        body,
        "prompt_cache_options",
        {
            "comparison_response_id": str,
            "mode": ("implicit", "explicit"),
            "prewarm": bool,
            "ttl": ("30m", "12h"),
        },
    )
    metadata = check_type(body, "client_metadata", dict)
    for name, value in (metadata or {}).items():
        if value is not None and not isinstance(value, str | int | float | bool):
            raise type_error(f"client_metadata.{name}", "a string", value)


def _validate_stream_options(body: Mapping[str, Any]) -> None:
    options = check_type(body, "stream_options", dict)
    if options is None:
        return
    check_type(options, "include_obfuscation", bool, param="stream_options.include_obfuscation")


def _validate_reasoning(reasoning: Any) -> None:
    if reasoning is None:
        return
    if not isinstance(reasoning, dict):
        raise type_error("reasoning", "an object", reasoning)
    _check_enum(reasoning, "effort", REASONING_EFFORTS, "reasoning.effort")
    _check_enum(reasoning, "context", ("auto", "current_turn", "all_turns"), "reasoning.context")
    check_type(reasoning, "mode", str, param="reasoning.mode")
    for key in ("summary", "generate_summary"):
        _check_enum(reasoning, key, ("auto", "concise", "detailed"), f"reasoning.{key}")


def _validate_text(text: Any) -> None:
    if text is None:
        return
    if not isinstance(text, dict):
        raise type_error("text", "an object", text)
    _check_enum(text, "verbosity", ("low", "medium", "high"), "text.verbosity")
    fmt = check_type(text, "format", dict, param="text.format")
    if fmt is None:
        return
    kind = fmt.get("type")
    if kind not in ("text", "json_object", "json_schema"):
        raise value_error("text.format.type", kind, ("text", "json_object", "json_schema"))
    if kind == "json_schema":
        if not isinstance(fmt.get("name"), str):
            raise invalid_request(
                "Missing required parameter: 'text.format.name'.",
                "text.format.name",
                "missing_required_parameter",
            )
        if not isinstance(fmt.get("schema"), dict):
            raise invalid_request(
                "Missing required parameter: 'text.format.schema'.",
                "text.format.schema",
                "missing_required_parameter",
            )
        _check_schema(
            fmt["schema"],
            f"response_format '{fmt['name']}'",
            "text.format.schema",
            "invalid_json_schema",
        )
        check_type(fmt, "strict", bool, param="text.format.strict")


def _validate_tools(tools: Any) -> list[dict[str, Any]]:
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise type_error("tools", "an array", tools)
    names: set[str] = set()
    for i, tool in enumerate(tools):
        where = f"tools[{i}]"
        kind = _tool_kind(tool, where)
        if kind == "namespace":
            _validate_namespace(tool, where)
        elif kind == "tool_search":
            _validate_tool_search(tool, where)
        elif kind in ("function", "custom"):
            _validate_callable(tool, kind, where, names)
        # other (hosted) tools are echoed as sent
    return tools


def _tool_kind(tool: Any, where: str) -> str:
    if not isinstance(tool, dict):
        raise type_error(where, "an object", tool)
    kind = tool.get("type")
    if not isinstance(kind, str):
        raise invalid_request(
            f"Missing required parameter: '{where}.type'.", f"{where}.type",
            "missing_required_parameter",
        )  # fmt: skip
    return kind


def _validate_namespace(tool: dict[str, Any], where: str) -> None:
    """[OAPI] ``NamespaceToolParam``: a non-empty ``name``, a ``description``, and one or more
    ``function`` / ``custom`` tools, named uniquely within the namespace."""
    name = tool.get("name")
    if name is None:
        raise invalid_request(
            f"Missing required parameter: '{where}.name'.", f"{where}.name",
            "missing_required_parameter",
        )  # fmt: skip
    if not isinstance(name, str) or not name:
        raise type_error(f"{where}.name", "a non-empty string", name)
    check_type(tool, "description", str, param=f"{where}.description")
    inner = tool.get("tools")
    if not isinstance(inner, list) or not inner:
        raise type_error(f"{where}.tools", "a non-empty array", inner)
    names: set[str] = set()
    for j, member in enumerate(inner):
        kind = _tool_kind(member, f"{where}.tools[{j}]")
        if kind not in ("function", "custom"):
            raise invalid_request(
                f"Invalid value: '{kind}'. Supported values are: 'function' and 'custom'.",
                f"{where}.tools[{j}].type", "invalid_value",
            )  # fmt: skip
        _validate_callable(member, kind, f"{where}.tools[{j}]", names)


_TOOL_SEARCH_EXECUTION = ("server", "client")


def _validate_tool_search(tool: dict[str, Any], where: str) -> None:
    """[OAPI] ``ToolSearchToolParam``: ``execution`` ``server`` (the default) or ``client``."""
    execution = tool.get("execution")
    if execution is not None and execution not in _TOOL_SEARCH_EXECUTION:
        raise invalid_request(
            f"Invalid value: '{execution}'. Supported values are: 'server' and 'client'.",
            f"{where}.execution", "invalid_value",
        )  # fmt: skip
    check_type(tool, "description", str, param=f"{where}.description")
    check_type(tool, "parameters", dict, param=f"{where}.parameters")


def _validate_callable(tool: dict[str, Any], kind: str, where: str, names: set[str]) -> None:
    check_type(tool, "defer_loading", bool, param=f"{where}.defer_loading")
    if kind == "custom":
        custom = validate_custom_tool(tool, where)
        if custom in names:
            raise invalid_request(
                f"Duplicate tool name '{custom}' in 'tools'.", f"{where}.name", "invalid_value"
            )
        names.add(custom)
        return
    name = tool.get("name")
    if not isinstance(name, str):
        raise invalid_request(
            f"Missing required parameter: '{where}.name'.",
            f"{where}.name",
            "missing_required_parameter",
        )
    if not _FUNCTION_NAME.match(name):
        raise invalid_request(
            f"Invalid '{where}.name': string does not match pattern. Expected a string "
            f"that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).",
            f"{where}.name",
            "invalid_value",
        )
    if name in names:
        raise invalid_request(
            f"Duplicate function name '{name}' in 'tools'.", f"{where}.name", "invalid_value"
        )
    names.add(name)
    parameters = check_type(tool, "parameters", dict, param=f"{where}.parameters")
    if parameters is not None:
        _check_schema(
            parameters,
            f"function '{name}'",
            f"{where}.parameters",
            "invalid_function_parameters",
        )
    check_type(tool, "strict", bool, param=f"{where}.strict")
    check_type(tool, "description", str, param=f"{where}.description")


def _check_schema(schema: dict[str, Any], what: str, param: str, code: str) -> None:
    """A JSON Schema the request carries must be one (its draft's metaschema), as OpenAI checks:
    [REC] errors/issue-6454-nested-definitions-error.json answers an invalid
    ``text.format.schema`` with 400 ``invalid_json_schema`` "Invalid schema for response_format
    'NAME': …". Without the check a malformed schema reached the engine (the mock's generator
    failed on it with a 500)."""
    try:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not JSON (integers beyond 64 bits): checked without the cache
        key = None
    problem = _schema_problem(key) if key is not None else _schema_problem_of(schema)
    if problem:
        raise invalid_request(f"Invalid schema for {what}: {problem}", param, code)


@lru_cache(maxsize=256)
def _schema_problem(key: bytes) -> str:
    return _schema_problem_of(orjson.loads(key))


def _schema_problem_of(schema: Any) -> str:
    from jsonschema import exceptions, validators  # an import of ~50 ms: only when needed

    try:
        validators.validator_for(schema, default=validators.Draft202012Validator).check_schema(
            schema
        )
    except exceptions.SchemaError as error:
        where = "/".join(str(p) for p in error.absolute_path)
        return f"{error.message}" + (f" (at '{where}')" if where else "")
    return _unresolved_reference(schema, schema, ())


def _unresolved_reference(root: Any, node: Any, context: tuple[str, ...]) -> str:
    """The first local ``$ref`` that names nothing in the schema, in OpenAI's words ([REC]
    errors/issue-6454-nested-definitions-error.json), or ""."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not _resolves(root, ref):
            return (
                f"In context={context!r}, reference to component '{ref}' which was not found "
                "in the schema."
            )
        for key, child in node.items():
            found = _unresolved_reference(root, child, (*context, str(key)))
            if found:
                return found
    elif isinstance(node, list):
        for i, child in enumerate(node):
            found = _unresolved_reference(root, child, (*context, str(i)))
            if found:
                return found
    return ""


def _resolves(root: Any, ref: str) -> bool:
    """Whether the JSON Pointer fragment ``ref`` (``#``, ``#/$defs/X``) names a value of ``root``."""
    target = root
    for token in ref[1:].split("/")[1:] if ref != "#" else ():
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            return False
    return True


def _validate_tool_choice(choice: Any, tools: list[dict[str, Any]]) -> None:
    if choice is None:
        return
    if isinstance(choice, str):
        if choice not in _TOOL_CHOICE_MODES:
            raise value_error("tool_choice", choice, _TOOL_CHOICE_MODES)
        return
    if not isinstance(choice, dict):
        raise type_error("tool_choice", "a string or an object", choice)
    kind = choice.get("type")
    if kind == "function":
        name = choice.get("name")
        declared = {t.get("name") for t in tools if t.get("type") == "function"}
        if not isinstance(name, str) or name not in declared:
            raise invalid_request(
                f"Tool choice '{name}' not found in 'tools' parameter.",
                "tool_choice",
                "invalid_value",
            )
    elif kind == "allowed_tools":
        _check_enum(choice, "mode", ("auto", "required"), "tool_choice.mode")
        if not isinstance(choice.get("tools"), list):
            raise type_error("tool_choice.tools", "an array", choice.get("tools"))
    elif not isinstance(kind, str):
        raise invalid_request(
            "Missing required parameter: 'tool_choice.type'.",
            "tool_choice.type",
            "missing_required_parameter",
        )
    else:
        validate_tool_choice_object(choice, tools)
