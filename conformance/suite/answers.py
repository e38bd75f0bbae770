"""Reading Response objects in cases: items, text, calls and usage, tolerant of malformed input.

Malformed objects are the judge's to report; these helpers return empty values for them so that a
case goes on to its own checks instead of crashing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "function_calls",
    "input_tokens",
    "items_of",
    "output_text",
    "output_types",
    "parse_arguments",
    "reasoning_has_content",
    "usage_count",
    "visible_output_tokens",
]


def items_of(response: Mapping[str, Any], item_type: str | None = None) -> list[dict[str, Any]]:
    output = response.get("output")
    items = [i for i in output if isinstance(i, dict)] if isinstance(output, list) else []
    return items if item_type is None else [i for i in items if i.get("type") == item_type]


def output_types(response: Mapping[str, Any]) -> list[str]:
    return [str(i.get("type")) for i in items_of(response)]


def output_text(response: Mapping[str, Any]) -> str:
    """The text of every `output_text` part of every message, joined."""
    texts: list[str] = []
    for item in items_of(response, "message"):
        content = item.get("content")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "output_text":
                text = part.get("text")
                texts.append(text if isinstance(text, str) else "")
    return "".join(texts)


def function_calls(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    return items_of(response, "function_call")


def parse_arguments(call: Mapping[str, Any]) -> tuple[Any, str]:
    """``(value, "")`` for JSON arguments, ``(None, why)`` otherwise."""
    raw = call.get("arguments")
    if not isinstance(raw, str):
        return None, f"arguments is {type(raw).__name__}, not a JSON string"
    try:
        return json.loads(raw), ""
    except ValueError as exc:
        return None, f"not JSON: {exc}"
    except RecursionError:
        return None, "JSON nested too deeply to parse"


def reasoning_has_content(response: Mapping[str, Any]) -> bool:
    """Whether a reasoning item carries summary or reasoning text (SPEC §3, KB25)."""
    for item in items_of(response, "reasoning"):
        parts = [*(item.get("summary") or ()), *(item.get("content") or ())]
        if any(isinstance(p, dict) and p.get("text") for p in parts):
            return True
    return False


def usage_count(response: Mapping[str, Any], *path: str) -> int | None:
    """``usage.<path>`` when it is an integer, else ``None``."""
    value: Any = response.get("usage")
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if type(value) is int else None


def input_tokens(response: Mapping[str, Any]) -> int | None:
    return usage_count(response, "input_tokens")


def visible_output_tokens(response: Mapping[str, Any]) -> int | None:
    """Output tokens that become history: all of them but reasoning tokens (SPEC §3)."""
    out = usage_count(response, "output_tokens")
    reasoning = usage_count(response, "output_tokens_details", "reasoning_tokens") or 0
    return None if out is None else max(0, out - reasoning)
