"""The small JSON Schema checker of the mock's value generator (:mod:`mock_server.jsonschema_gen`).

:func:`conforms` tells whether a value is valid for a schema, for the keywords the generator
knows (formats unchecked); the generator checks each draw with it (``oneOf``, ``not``, and every
whole value before it is sent). :func:`pointer` resolves a local ``$ref`` (a JSON pointer, or a
``$anchor`` through ``referencing``); :class:`SchemaError` is the one error of both modules.
A ``pattern`` searches (:func:`pattern_finds`, Python's ``re`` standing in for ECMA-262's dialect).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["SchemaError", "conforms", "pattern_finds", "pointer", "within"]


class SchemaError(ValueError):
    """The schema admits no value the generator can make (or names a ``$ref`` that resolves to
    nothing)."""


def pattern_finds(pattern: str, text: str) -> bool:
    """JSON Schema's ``pattern``: a match anywhere in ``text`` (``re`` for ECMA-262's dialect,
    which agrees on what tool schemas use: classes, counts, ``\\d``, anchors)."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def pointer(root: Any, ref: str) -> Mapping[str, Any]:
    """The schema a local ``$ref`` names in ``root`` (a JSON pointer, ``#``, or ``#anchor``)."""
    if not ref.startswith("#"):
        raise SchemaError(f"only local $ref is supported, got {ref!r}")
    if ref != "#" and not ref.startswith("#/"):
        return _anchored(root, ref)
    node = root
    for raw in filter(None, ref[1:].split("/")):
        part = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node.get(part)
        if node is None:
            raise SchemaError(f"unresolvable $ref {ref!r}")
    if node is True:
        return {}
    if not isinstance(node, Mapping):
        raise SchemaError(f"$ref {ref!r} is not a schema")
    return node


def _anchored(root: Any, ref: str) -> Mapping[str, Any]:
    """``#name``: the schema whose ``$anchor`` is ``name``, resolved as JSON Schema resolves it
    (``referencing``, which ``jsonschema`` resolves with); :class:`SchemaError` where none is."""
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    resource = Resource.from_contents(root, default_specification=DRAFT202012)
    base = resource.id() or "urn:mock:schema"
    try:
        found = Registry().with_resource(base, resource).resolver(base_uri=base).lookup(ref)
    except Unresolvable:
        raise SchemaError(f"unresolvable $ref {ref!r}") from None
    node = found.contents
    if node is True:
        return {}
    if not isinstance(node, Mapping):
        raise SchemaError(f"$ref {ref!r} is not a schema")
    return node


def conforms(value: Any, schema: Any, root: Any) -> bool:
    """Whether ``value`` is valid for ``schema`` (the generator's keywords; formats unchecked)."""
    if schema is True or schema == {}:
        return True
    if schema is False or not isinstance(schema, Mapping):
        return False
    if "$ref" in schema:
        try:
            target = pointer(root, schema["$ref"])
        except SchemaError:
            return False
        if not conforms(value, target, root):
            return False
    checks = (
        ("const", lambda c: value == c),
        ("enum", lambda e: value in e),
        ("allOf", lambda subs: all(conforms(value, s, root) for s in subs)),
        ("anyOf", lambda subs: any(conforms(value, s, root) for s in subs)),
        ("oneOf", lambda subs: sum(conforms(value, s, root) for s in subs) == 1),
        ("not", lambda sub: not conforms(value, sub, root)),
    )
    for key, check in checks:
        if key in schema and not check(schema[key]):
            return False
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if schema.get("nullable") and value is None:
            return True
        if not any(_is_type(value, k) for k in kinds):
            return False
    if isinstance(value, dict):
        return _object_conforms(value, schema, root)
    if isinstance(value, list):
        items = schema.get("items")
        prefix = schema.get("prefixItems")
        if isinstance(items, list):  # draft 4's tuple form
            prefix, items = items, schema.get("additionalItems", True)
        prefix = prefix if isinstance(prefix, list) else []
        if not all(conforms(v, sub, root) for v, sub in zip(value, prefix, strict=False)):
            return False
        rest = value[len(prefix) :]
        if (isinstance(items, Mapping) or items is False) and not all(
            conforms(v, items, root) for v in rest
        ):
            return False
        if schema.get("uniqueItems") and any(v in value[:i] for i, v in enumerate(value)):
            return False
        return within(len(value), schema.get("minItems", 0), schema.get("maxItems"))
    if isinstance(value, str):
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not pattern_finds(pattern, value):
            return False
        return within(len(value), schema.get("minLength", 0), schema.get("maxLength"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        step = schema.get("multipleOf")
        if step and (value / step) != int(value / step):
            return False
        if not _exclusive(value, schema):
            return False
        return within(value, schema.get("minimum"), schema.get("maximum"))
    return True


def _exclusive(value: float, schema: Mapping[str, Any]) -> bool:
    """``exclusiveMinimum`` / ``exclusiveMaximum``: draft-6 numbers, draft-4 booleans."""
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if ex_lo is True and value <= schema.get("minimum", -math.inf):
        return False
    if ex_hi is True and value >= schema.get("maximum", math.inf):
        return False
    if isinstance(ex_lo, int | float) and not isinstance(ex_lo, bool) and value <= ex_lo:
        return False
    return not (isinstance(ex_hi, int | float) and not isinstance(ex_hi, bool) and value >= ex_hi)


def within(value: float, low: float | None, high: float | None) -> bool:
    """``low <= value <= high``, a missing bound being no bound."""
    return (low is None or value >= low) and (high is None or value <= high)


def _object_conforms(value: dict[str, Any], schema: Mapping[str, Any], root: Any) -> bool:
    props: Mapping[str, Any] = schema.get("properties") or {}
    if any(k not in value for k in schema.get("required", ())):
        return False
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key, extra)
        if not conforms(item, sub, root):
            return False
    return within(len(value), schema.get("minProperties", 0), schema.get("maxProperties"))


def _is_type(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True
