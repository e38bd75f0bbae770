"""Request checks of ``tools`` and ``tool_choice`` (and the JSON Schemas a request carries), with
OpenAI's 400s: function tools, ``custom`` tools (:mod:`reference_impl.request.tool_kinds`), ``namespace``
tools and their members, ``tool_search``, every ``tool_choice`` form; hosted tools are echoed as
sent. Split from :mod:`reference_impl.request.validation`, which calls :func:`validate_tools`,
:func:`validate_tool_choice` and :func:`check_schema`."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import orjson

from ..errors import invalid_request
from .field_errors import check_enum, check_type, type_error, value_error
from .strict_limits import check_strict_limits
from .tool_kinds import check_named_choice, validate_custom_tool, validate_tool_choice_object

__all__ = ["check_schema", "validate_tool_choice", "validate_tools"]

_FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOOL_CHOICE_MODES = ("none", "auto", "required")


def validate_tools(tools: Any) -> list[dict[str, Any]]:
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
        if tool.get("strict") is True:
            check_strict_limits(
                parameters,
                f"function '{name}'",
                f"{where}.parameters",
                "invalid_function_parameters",
            )
        check_schema(
            parameters,
            f"function '{name}'",
            f"{where}.parameters",
            "invalid_function_parameters",
        )
    check_type(tool, "strict", bool, param=f"{where}.strict")
    check_type(tool, "description", str, param=f"{where}.description")


def check_schema(schema: dict[str, Any], what: str, param: str, code: str) -> None:
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
    except RecursionError:  # kept out by the body's nesting bound (json_limits.py); never a 500
        return "it nests too deeply to be checked."
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
    """Whether the local reference ``ref`` (``#``, ``#/$defs/X``, an ``$anchor``'s ``#name``)
    names a schema in ``root``, as JSON Schema resolves it (the ``referencing`` library that
    ``jsonschema`` resolves with: ``#nope`` is an anchor no schema declares, not the root)."""
    from referencing import Registry, Resource
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    resource = Resource.from_contents(root, default_specification=DRAFT202012)
    base = resource.id() or "urn:responses:tool-schema"
    resolver = Registry().with_resource(base, resource).resolver(base_uri=base)
    try:
        resolver.lookup(ref)
    except Unresolvable:
        return False
    return True


def validate_tool_choice(choice: Any, tools: list[dict[str, Any]]) -> None:
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
        check_named_choice(choice, tools, "function")
    elif kind == "allowed_tools":
        check_enum(choice, "mode", ("auto", "required"), "tool_choice.mode")
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
