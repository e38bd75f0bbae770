"""OpenAI's documented size limits on a strict schema (``text.format`` ``json_schema`` with
``strict: true``, function tools with ``strict: true``), checked before the schema is walked by
anything recursive.

The figures are those of OpenAI's Structured Outputs guide, "Supported schemas" (platform.openai.com
/docs/guides/structured-outputs#supported-schemas, as collected at
jsonschemaprofiles.unitvectorylabs.com/schemas/openai, February 2026): up to 5,000 object
properties in all, up to 10 levels of nesting, at most 120,000 characters of property names,
definition names, enum values and const values together, at most 1,000 enum values, and an enum of
more than 250 string values at most 15,000 characters. The guide once said 100 properties and 5
levels; OpenAI then answered "Invalid schema for response_format 'NAME': 6 levels of nesting exceeds
limit of 5." (quoted in github.com/tidyverse/ellmer/issues/671), the shape the nesting message below
follows. The wording of the other four messages is provisional until a recording of OpenAI's
answer exists (docs/limits.md).

How nesting is counted (the guide does not say): each object schema (``"type": "object"`` or one
with ``properties``) on the way from the root to a schema is one level, the root object being
level 1; definitions (``$defs``, ``definitions``) count from their own root, as ``$ref`` may use
them anywhere. The walk is iterative, so no schema can exhaust Python's recursion limit here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import invalid_request

__all__ = [
    "MAX_ENUM_VALUES",
    "MAX_LARGE_ENUM_CHARS",
    "MAX_NESTING",
    "MAX_PROPERTIES",
    "MAX_STRING_CHARS",
    "check_strict_limits",
    "strict_limit_problem",
]

MAX_NESTING = 10
MAX_PROPERTIES = 5_000
MAX_STRING_CHARS = 120_000
MAX_ENUM_VALUES = 1_000
LARGE_ENUM = 250  # an enum of more string values than this is held to MAX_LARGE_ENUM_CHARS
MAX_LARGE_ENUM_CHARS = 15_000

# Keywords whose value is one subschema, a list of them, or a map of names to them.
_ONE = ("items", "additionalProperties", "not", "contains", "if", "then", "else")
_LIST = ("anyOf", "allOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "dependentSchemas")
_DEFINITIONS = ("$defs", "definitions")


def _is_object(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "object"
        or (isinstance(kind, list) and "object" in kind)
        or (isinstance(schema.get("properties"), dict))
    )


def _children(schema: dict[str, Any]) -> Iterator[tuple[Any, bool]]:
    """Each subschema of ``schema`` and whether it starts a fresh count (a definition)."""
    for key in _ONE:
        yield schema.get(key), False
    for key in _LIST:
        value = schema.get(key)
        if isinstance(value, list):
            yield from ((v, False) for v in value)
    for key in (*_MAP, *_DEFINITIONS):
        value = schema.get(key)
        if isinstance(value, dict):
            yield from ((v, key in _DEFINITIONS) for v in value.values())


def strict_limit_problem(schema: Any) -> str:
    """The first documented limit ``schema`` is past, in words, or ""."""
    properties = enum_values = chars = 0
    stack: list[tuple[Any, int]] = [(schema, 0)]
    while stack:
        node, level = stack.pop()
        if not isinstance(node, dict):
            continue
        if _is_object(node):
            level += 1
            if level > MAX_NESTING:
                return f"{level} levels of nesting exceeds limit of {MAX_NESTING}."
        props = node.get("properties")
        if isinstance(props, dict):
            properties += len(props)
            chars += sum(len(str(name)) for name in props)
        for key in _DEFINITIONS:
            defs = node.get(key)
            if isinstance(defs, dict):
                chars += sum(len(str(name)) for name in defs)
        enum = node.get("enum")
        if isinstance(enum, list):
            enum_values += len(enum)
            texts = [v for v in enum if isinstance(v, str)]
            enum_chars = sum(map(len, texts))
            chars += enum_chars
            if len(texts) > LARGE_ENUM and enum_chars > MAX_LARGE_ENUM_CHARS:
                return (
                    f"an enum of {len(texts)} string values has {enum_chars} characters, which "
                    f"exceeds the limit of {MAX_LARGE_ENUM_CHARS} for an enum of more than "
                    f"{LARGE_ENUM} values."
                )
        if isinstance(node.get("const"), str):
            chars += len(node["const"])
        if properties > MAX_PROPERTIES:
            return f"{properties} object properties exceeds limit of {MAX_PROPERTIES}."
        if enum_values > MAX_ENUM_VALUES:
            return f"{enum_values} enum values exceeds limit of {MAX_ENUM_VALUES}."
        if chars > MAX_STRING_CHARS:
            return (
                f"the names, enum values and const values total {chars} characters, which "
                f"exceeds the limit of {MAX_STRING_CHARS}."
            )
        stack.extend((child, 0 if fresh else level) for child, fresh in _children(node))
    return ""


def check_strict_limits(schema: Any, what: str, param: str, code: str) -> None:
    """OpenAI's 400 for a strict schema past a documented limit ("Invalid schema for WHAT: …")."""
    problem = strict_limit_problem(schema)
    if problem:
        raise invalid_request(f"Invalid schema for {what}: {problem}", param, code)
