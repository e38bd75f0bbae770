"""Request-body validation for ``POST /v1/responses`` with OpenAI-shaped 400s.

Every failure is an :class:`~reference_impl.errors.APIError` whose ``param`` names the field
(``max_output_tokens``, ``input[2].role``, ``tools[0].name``) and whose ``code`` is one of OpenAI's
string codes (``invalid_type``, ``invalid_value``, ``missing_required_parameter``,
``unknown_parameter``, ``integer_below_min_value``, …) — SPEC §3 "Request", §4 "Errors".
Input items are checked in :mod:`reference_impl.request.inputs`, which normalizes them at the same time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import invalid_request
from .field_errors import check_enum, check_type, type_error, value_error
from .strict_limits import check_strict_limits
from .tool_validation import check_schema, validate_tool_choice, validate_tools

__all__ = [
    "INCLUDABLE",
    "INPUT_TOKENS_PARAMS",
    "KNOWN_CREATE_PARAMS",
    "NO_EFFECT_PARAMS",
    "REASONING_EFFORTS",
    "SERVICE_TIERS",
    "validate_create_body",
    "validate_metadata",
]

# ResponseCreateParams of the openai SDK (3.x), plus `stream`, Open Responses' penalties (SPEC §3)
# and fields real clients send that the schema lacks: `client_metadata` (Codex CLI sends it on
# every request; without it its first request got 400 unknown_parameter:
# tests/reference_impl/test_refimpl_params.py).
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

# The fields POST /v1/responses/input_tokens takes (the create fields that shape the context).
INPUT_TOKENS_PARAMS = frozenset(
    {
        "conversation",
        "input",
        "instructions",
        "model",
        "parallel_tool_calls",
        "personality",
        "previous_response_id",
        "reasoning",
        "text",
        "tool_choice",
        "tools",
        "truncation",
    }
)
SERVICE_TIERS = ("auto", "default", "flex", "scale", "priority", "fast", "ultrafast")
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


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


def validate_create_body(body: Any, *, require_model: bool = True) -> dict[str, Any]:
    """Check the scalar and structured fields of a create (or input_tokens) body; returns it.

    ``input`` is checked by :func:`reference_impl.request.inputs.normalize_input`.
    """
    if not isinstance(body, dict):
        raise invalid_request(
            "The request body must be a JSON object.", None, "invalid_request_body"
        )
    if body.keys() <= _PLAIN_KEYS:
        return _validate_plain(body, require_model)
    for key in body:
        if key not in KNOWN_CREATE_PARAMS:
            raise invalid_request(f"Unknown parameter: '{key}'.", key, "unknown_parameter")
    _check_model_and_input(body, require_model)
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
    check_enum(body, "truncation", ("auto", "disabled"), "truncation")
    check_enum(body, "service_tier", SERVICE_TIERS, "service_tier")
    check_enum(body, "prompt_cache_retention", ("in_memory", "24h"), "prompt_cache_retention")
    validate_metadata(body.get("metadata"))
    _validate_no_effect(body)
    _validate_context_management(body.get("context_management"))
    _validate_include(body.get("include"))
    _validate_stream_options(body)
    _validate_reasoning(body.get("reasoning"))
    _validate_text(body.get("text"))
    tools = validate_tools(body.get("tools"))
    validate_tool_choice(body.get("tool_choice"), tools)
    if body.get("background") and body.get("store") is False:
        raise invalid_request(
            "Background mode requires `store` to be true.", "background", "invalid_value"
        )
    return body


# The plainest create (model, input, stream, maybe instructions and store): the checks below that
# can fail for it, in their order; every other check is a no-op for an absent field.
_PLAIN_KEYS = frozenset({"model", "input", "instructions", "stream", "store"})


def _check_model_and_input(body: dict[str, Any], require_model: bool) -> None:
    model = check_type(body, "model", str)
    if require_model and not model:
        raise invalid_request(
            "Missing required parameter: 'model'.", "model", "missing_required_parameter"
        )
    if body.get("input") is not None and not isinstance(body["input"], str | list):
        raise type_error("input", "a string or an array of input items", body["input"])


def _validate_plain(body: dict[str, Any], require_model: bool) -> dict[str, Any]:
    _check_model_and_input(body, require_model)
    check_type(body, "instructions", str)
    check_type(body, "stream", bool)
    check_type(body, "store", bool)
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
            check_enum(value, name, rule, f"{key}.{name}")
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
        check_enum(entry, "type", ("compaction",), f"{where}.type")
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
    check_enum(reasoning, "effort", REASONING_EFFORTS, "reasoning.effort")
    check_enum(reasoning, "context", ("auto", "current_turn", "all_turns"), "reasoning.context")
    check_type(reasoning, "mode", str, param="reasoning.mode")
    for key in ("summary", "generate_summary"):
        check_enum(reasoning, key, ("auto", "concise", "detailed"), f"reasoning.{key}")


def _validate_text(text: Any) -> None:
    if text is None:
        return
    if not isinstance(text, dict):
        raise type_error("text", "an object", text)
    check_enum(text, "verbosity", ("low", "medium", "high"), "text.verbosity")
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
        what = f"response_format '{fmt['name']}'"
        if fmt.get("strict") is True:
            check_strict_limits(fmt["schema"], what, "text.format.schema", "invalid_json_schema")
        check_schema(fmt["schema"], what, "text.format.schema", "invalid_json_schema")
        check_type(fmt, "strict", bool, param="text.format.strict")
