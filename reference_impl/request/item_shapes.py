"""The shape of every input item type of OpenAI's schema (the SDK's ``ResponseInputItemParam``
union, the OpenAPI's ``InputItem`` / ``Item``), checked field by field with OpenAI-shaped 400s.

:data:`ITEM_SHAPES` maps each ``type`` to the fields its SDK TypedDict marks ``Required`` (``id``
and ``status`` aside: clients replay items without them, and the server assigns an id) and to the
optional fields whose type is checked when present. ``message``, ``function_call``,
``function_call_output``, ``reasoning`` and ``item_reference`` have their own normalizers in
:mod:`reference_impl.request.inputs`; every other type is stored as sent (with an id) after this check.
``tests/reference_impl/test_refimpl_input_items.py`` enumerates the SDK's union against this table,
so a new type fails the tests until it is handled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import invalid_request
from .field_errors import type_error, value_error

__all__ = [
    "ITEM_ID_PREFIXES",
    "ITEM_SHAPES",
    "NOT_LISTED",
    "STORED_DEFAULTS",
    "Shape",
    "check_shape",
]

# Kinds: "str", "bool", "object", "array", "str|array", "any" (present, of any type), or a tuple
# of allowed strings. A trailing "?" admits null.


@dataclass(frozen=True, slots=True)
class Shape:
    required: Mapping[str, Any] = field(default_factory=dict)
    optional: Mapping[str, Any] = field(default_factory=dict)


_CALLER = {"caller": "object?"}

ITEM_SHAPES: dict[str, Shape] = {
    "message": Shape({"role": "str", "content": "str|array"}),
    "function_call": Shape(
        {"call_id": "str", "name": "str", "arguments": "str"}, {"namespace": "str?", **_CALLER}
    ),
    "function_call_output": Shape({"call_id": "str", "output": "str|array"}, _CALLER),
    "reasoning": Shape({}, {"summary": "array?", "content": "array?", "encrypted_content": "str?"}),
    "item_reference": Shape({"id": "str"}),
    "file_search_call": Shape({}, {"queries": "array?", "results": "array?"}),
    "web_search_call": Shape({}, {"action": "object?"}),
    "computer_call": Shape(
        {"call_id": "str"},
        {"action": "object?", "actions": "array?", "pending_safety_checks": "array?"},
    ),
    "computer_call_output": Shape(
        {"call_id": "str", "output": "object"}, {"acknowledged_safety_checks": "array?"}
    ),
    "tool_search_call": Shape({"arguments": "any"}, {"call_id": "str?", "execution": "str?"}),
    "tool_search_output": Shape({"tools": "array"}, {"call_id": "str?", "execution": "str?"}),
    "additional_tools": Shape({"role": ("developer",), "tools": "array"}),
    "configuration_update": Shape({}, {"reasoning": "object?", "text": "object?"}),
    "compaction": Shape({"encrypted_content": "str"}),
    "compaction_trigger": Shape(),
    "image_generation_call": Shape({}, {"result": "str?"}),
    "code_interpreter_call": Shape({"container_id": "str"}, {"code": "str?", "outputs": "array?"}),
    "local_shell_call": Shape({"call_id": "str", "action": "object"}),
    "local_shell_call_output": Shape({"id": "str", "output": "str"}),
    "shell_call": Shape({"call_id": "str", "action": "object"}, {"environment": "object?"}),
    "shell_call_output": Shape(
        {"call_id": "str", "output": "array"}, {"max_output_length": "int?", **_CALLER}
    ),
    "apply_patch_call": Shape(
        {"call_id": "str", "operation": "object"},
        {"status": ("in_progress", "completed"), **_CALLER},
    ),
    "apply_patch_call_output": Shape(
        {"call_id": "str", "status": ("completed", "failed")}, {"output": "str?", **_CALLER}
    ),
    "mcp_list_tools": Shape({"server_label": "str", "tools": "array"}, {"error": "str?"}),
    "mcp_approval_request": Shape(
        {"id": "str", "server_label": "str", "name": "str", "arguments": "str"}
    ),
    "mcp_approval_response": Shape(
        {"approval_request_id": "str", "approve": "bool"}, {"reason": "str?"}
    ),
    "mcp_call": Shape(
        {"server_label": "str", "name": "str", "arguments": "str"},
        {"output": "str?", "error": "any", "approval_request_id": "str?"},
    ),
    "custom_tool_call": Shape(
        {"call_id": "str", "name": "str", "input": "str"}, {"namespace": "str?", **_CALLER}
    ),
    "custom_tool_call_output": Shape({"call_id": "str", "output": "str|array"}, _CALLER),
    "program": Shape({"id": "str", "call_id": "str", "code": "str", "fingerprint": "str"}),
    "program_output": Shape(
        {"id": "str", "call_id": "str", "result": "str", "status": ("completed", "incomplete")}
    ),
}

# The id prefix an item gets when sent without one (OpenAI's where recordings show them).
ITEM_ID_PREFIXES: dict[str, str] = {
    "file_search_call": "fs",
    "web_search_call": "ws",
    "computer_call": "cu",
    "computer_call_output": "cuo",
    "tool_search_call": "tsc",
    "tool_search_output": "tso",
    "additional_tools": "at",
    "configuration_update": "cfg",
    "compaction": "cmp",
    "compaction_trigger": "cmpt",
    "image_generation_call": "ig",
    "code_interpreter_call": "ci",
    "local_shell_call": "lsh",
    "shell_call": "sh",
    "shell_call_output": "sho",
    "apply_patch_call": "apc",
    "apply_patch_call_output": "apco",
    "mcp_list_tools": "mcpl",
    "mcp_approval_response": "mcpr",
    "mcp_call": "mcp",
    "custom_tool_call": "ctc",
    "custom_tool_call_output": "ctco",
}

_COMPLETED = {"status": "completed"}
# What the stored (listed) form of an item gets when it was sent without it or with null: the
# fields the SDK's ResponseItem models (what input_items lists) require.
STORED_DEFAULTS: dict[str, dict[str, Any]] = {
    "file_search_call": _COMPLETED,
    "web_search_call": _COMPLETED,
    "computer_call": {**_COMPLETED, "pending_safety_checks": []},
    "computer_call_output": _COMPLETED,
    "tool_search_call": {**_COMPLETED, "execution": "server"},
    "tool_search_output": {**_COMPLETED, "execution": "server"},
    "image_generation_call": _COMPLETED,
    "code_interpreter_call": _COMPLETED,
    "local_shell_call": _COMPLETED,
    "shell_call": _COMPLETED,
    "shell_call_output": _COMPLETED,
    "apply_patch_call": _COMPLETED,
    "custom_tool_call": _COMPLETED,
    "custom_tool_call_output": _COMPLETED,
    "mcp_call": _COMPLETED,
}

# Types that are instructions for this turn rather than history: accepted, acted on, not stored
# or listed (the SDK's ResponseItem union, what input_items lists, has no such type).
NOT_LISTED = frozenset({"compaction_trigger"})

_KIND_NAMES = {
    "str": "a string",
    "bool": "a boolean",
    "int": "an integer",
    "object": "an object",
    "array": "an array",
    "str|array": "a string or an array",
}


def _fits(kind: str, value: Any) -> bool:
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "str|array":
        return isinstance(value, str | list)
    return True  # "any"


def _check(item: Mapping[str, Any], key: str, kind: Any, where: str) -> None:
    value = item[key]
    if isinstance(kind, tuple):
        if value not in kind:
            raise value_error(f"{where}.{key}", value, kind)
        return
    nullable = kind.endswith("?")
    kind = kind.rstrip("?")
    if value is None and nullable:
        return
    if value is None and kind != "any":
        raise invalid_request(
            f"Missing required parameter: '{where}.{key}'.",
            f"{where}.{key}",
            "missing_required_parameter",
        )
    if not _fits(kind, value):
        raise type_error(f"{where}.{key}", _KIND_NAMES[kind], value)


def check_shape(item: Mapping[str, Any], kind: str, where: str) -> None:
    """400 (``param`` = the field's path) unless ``item`` fits :data:`ITEM_SHAPES[kind]`."""
    shape = ITEM_SHAPES[kind]
    for key, rule in shape.required.items():
        if key not in item or (item[key] is None and rule != "any"):
            raise invalid_request(
                f"Missing required parameter: '{where}.{key}'.",
                f"{where}.{key}",
                "missing_required_parameter",
            )
        _check(item, key, rule, where)
    for key, rule in shape.optional.items():
        if key in item and item[key] is not None:
            _check(item, key, rule, where)
