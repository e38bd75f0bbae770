"""The packaged document ([OAPI]'s subset) and SPEC §1a's relaxations, applied to it as named
patches (:data:`RELAXATIONS`)."""

from __future__ import annotations

import copy
import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .jsontypes import _REF_PREFIX

__all__ = ["OPENRESPONSES_RELAXATIONS", "RELAXATIONS", "Relaxation", "load_document"]


_RESOURCE: Final = "schema/openapi-subset.json"


def load_document() -> dict[str, Any]:
    """The packaged subset of [OAPI]: ``{"$comment", "$source", "schemas"}``, unrelaxed."""
    data = importlib.resources.files("conformance").joinpath(_RESOURCE).read_bytes()
    document: dict[str, Any] = orjson.loads(data)
    return document


@dataclass(frozen=True, slots=True)
class Relaxation:
    """A named patch of the loaded schemas; ``recording`` is the corpus file that forces it."""

    name: str
    clause: str
    recording: str
    apply: Callable[[dict[str, Any]], None]


def _at(schemas: dict[str, Any], name: str, *path: str | int) -> dict[str, Any]:
    node: Any = schemas[name]
    for key in path:
        node = node[key]
    if not isinstance(node, dict):
        raise TypeError(f"{name}/{path} is not a schema")
    return node


def _nullable(name: str, *path: str | int, prop: str) -> Callable[[dict[str, Any]], None]:
    """``prop`` of the object at ``name/path`` may be null."""

    def apply(schemas: dict[str, Any]) -> None:
        props = _at(schemas, name, *path, "properties")
        props[prop] = {"anyOf": [props[prop], {"type": "null"}]}

    return apply


def _optional(
    name: str, *path: str | int, keys: tuple[str, ...]
) -> Callable[[dict[str, Any]], None]:
    """``keys`` of the object at ``name/path`` may be absent."""

    def apply(schemas: dict[str, Any]) -> None:
        schema = _at(schemas, name, *path)
        if not set(keys) <= set(schema.get("required", ())):
            raise KeyError(f"{name}: {keys} are not all required; nothing to relax")
        schema["required"] = [k for k in schema["required"] if k not in keys]

    return apply


def _optional_while(
    name: str, status: str, keys: tuple[str, ...]
) -> Callable[[dict[str, Any]], None]:
    """An item whose ``status`` is ``status`` may lack ``keys``; any other status needs them."""

    def apply(schemas: dict[str, Any]) -> None:
        finished = schemas[name]
        early = copy.deepcopy(finished)
        if not set(keys) <= set(early["required"]):
            raise KeyError(f"{name}: {keys} are not all required; nothing to relax")
        early["required"] = [k for k in early["required"] if k not in keys]
        early["properties"]["status"] = {
            "type": "string",
            "enum": [status],
            "x-stainless-const": True,
        }
        # The finished form comes first: when both fail, its issues win a tie.
        schemas[name] = {"anyOf": [finished, early]}

    return apply


def _nested_error_event(schemas: dict[str, Any]) -> None:
    """SPEC §1: ``{type: "error", sequence_number, error: {type, code, message, param}}``."""
    flat = schemas["ResponseErrorEvent"]
    nested = {
        "type": "object",
        "properties": {
            "type": copy.deepcopy(flat["properties"]["type"]),
            "sequence_number": {"type": "integer"},
            "error": {"$ref": _REF_PREFIX + "Error"},
        },
        "required": ["type", "sequence_number", "error"],
    }
    schemas["ResponseErrorEvent"] = {"anyOf": [flat, nested]}


def _web_search_api_source(schemas: dict[str, Any]) -> None:
    """A web search source is a page (``{type: "url", url}``) or an API OpenAI queried for the
    answer (``{type: "api", name}``, e.g. ``oai-weather``): [OAPI] lists only the first."""
    items = _at(schemas, "WebSearchActionSearch", "properties", "sources", "items")
    api = {
        "type": "object",
        "title": "Web search API source",
        "properties": {
            "type": {"type": "string", "enum": ["api"], "x-stainless-const": True},
            "name": {"type": "string"},
        },
        "required": ["type", "name"],
    }
    schemas["WebSearchActionSearch"]["properties"]["sources"]["items"] = {
        "anyOf": [copy.deepcopy(items), api]
    }


def _echoed_tools_nullable(schemas: dict[str, Any]) -> None:
    """A Response's ``tools`` echo the request's tool configuration: a field the schema makes
    optional there (not ``required``) may be null, as absent — at any depth of a tool's schema
    (an MCP tool's ``server_url``, ``server_description``, a filter's ``read_only``)."""
    seen: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for entry in node:
                visit(entry)
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref[len(_REF_PREFIX) :]
            if name not in seen and name in schemas:
                seen.add(name)
                visit(schemas[name])
            return
        props = node.get("properties")
        if isinstance(props, dict):
            required = set(node.get("required", ()))
            for key, prop in list(props.items()):
                visit(prop)
                if key not in required and not _accepts_null(prop):
                    props[key] = {"anyOf": [prop, {"type": "null"}]}
        for key in ("anyOf", "oneOf", "allOf", "items", "additionalProperties"):
            if key in node:
                visit(node[key])

    visit({"$ref": _REF_PREFIX + "Tool"})


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "null" or (
        isinstance(schema.get("type"), list) and "null" in schema["type"]
    ):
        return True
    return any(_accepts_null(s) for s in schema.get("anyOf", ()) if isinstance(s, dict)) or any(
        isinstance(s, dict) and s.get("type") == "null" for s in schema.get("oneOf", ())
    )


# SPEC §1a: where [OAPI] is stricter than what OpenAI sends. Each entry names the recording (in
# tests/data/openai-recorded/) that forces it; tests/conformance/schema/test_schema.py drops each in turn
# and shows that recording failing. Enum values being open (SPEC §1a) is not a patch: an enum miss is
# reported with kind "enum", which callers log at INFO.
RELAXATIONS: Final[tuple[Relaxation, ...]] = (
    # --- listed in SPEC §1a ---
    Relaxation(
        "response.user nullable",
        "SPEC §1a",
        "streams/azure-text.1.jsonl",  # `"user": null` on every lifecycle response and body
        _nullable("ModelResponseProperties", prop="user"),
    ),
    Relaxation(
        "response.usage nullable",
        "SPEC §1a, §2.3",  # null before the terminal event; the ordering layer says when it is due
        "streams/azure-text.1.jsonl",  # response.created / response.in_progress: `"usage": null`
        _nullable("Response", "allOf", 2, prop="usage"),
    ),
    Relaxation(
        "usage.input_tokens_details.cache_write_tokens optional",
        "SPEC §1a, §3",
        "streams/azure-text.1.jsonl",  # 41 of 48 terminal responses, 31 of 44 bodies lack it
        _optional(
            "ResponseUsage", "properties", "input_tokens_details", keys=("cache_write_tokens",)
        ),
    ),
    Relaxation(
        "response.function_call_arguments.done name optional",
        "SPEC §1, §1a",
        "streams/azure-tool-call.1.jsonl",  # none of the 15 `.done` events carries `name`
        _optional("ResponseFunctionCallArgumentsDoneEvent", keys=("name",)),
    ),
    Relaxation(
        "web_search_call action optional while in_progress",
        "SPEC §1a",
        "streams/openai-web-search-tool.1.jsonl",  # output_item.added, status in_progress, no action
        _optional_while("WebSearchToolCall", "in_progress", ("action",)),
    ),
    Relaxation(
        "image_generation_call result optional while in_progress",
        "SPEC §1a",
        "streams/openai-image-generation-tool.1.jsonl",  # output_item.added: {id, status, type}
        _optional_while("ImageGenToolCall", "in_progress", ("result",)),
    ),
    Relaxation(
        "shell_call environment optional",
        "SPEC §1a",  # absent from the added and the done item, the final output and the body
        "streams/openai-shell-tool.1.part1.jsonl",
        _optional("FunctionShellCall", keys=("environment",)),
    ),
    Relaxation(
        "error event nested form",
        "SPEC §1, §1a",
        "streams/openai-error.1.jsonl",  # {type: "error", sequence_number, error: {...}}
        _nested_error_event,
    ),
    # --- forced by the corpus beyond SPEC §1a's list (each one is a body, not a stream) ---
    Relaxation(
        "output_text part logprobs optional",
        "SPEC §1a (corpus)",
        # created_at 2025-03: an output_text part with {type, text, annotations} only; the other
        # 129 output_text parts of the corpus carry `logprobs`.
        "bodies/openai-web-search-tool.1.json",
        _optional("OutputTextContent", keys=("logprobs",)),
    ),
    Relaxation(
        "text.format (json_schema) description nullable",
        "SPEC §1a (corpus)",
        "bodies/issue-6454-root-definitions-success.json",  # echoes `"description": null`
        _nullable("TextResponseFormatJsonSchema", prop="description"),
    ),
    Relaxation(
        "echoed tools: an optional field may be null",
        "SPEC §1a (corpus; issue #32)",
        # echoes an MCP tool with `"server_description": null`; held-back traffic echoes a
        # connector's `server_url: null` and tool filters (`read_only`, `tool_names`) the client
        # never sent as null: the rule, not one field (docs/spec.md §1a)
        "bodies/openai-issue-19007-hosted-mcp.json",
        _echoed_tools_nullable,
    ),
    # --- forced by openai-recorded-2 (tests/data/openai-recorded-2/) ---
    Relaxation(
        "web_search_call source of type api",
        "SPEC §1a (corpus; docs/spec.md §7.5)",
        # A web search answering a weather question: `sources: [{type: "api", name:
        # "oai-weather"}]`, in this body and in its stream's output_item.done and terminal output
        # (`streams/pai.test_openai_responses.test_openai_responses_model_web_search_tool_stream.0`).
        "../openai-recorded-2/bodies/pai.test_openai_responses."
        "test_openai_responses_model_web_search_tool_stream.1.json",
        _web_search_api_source,
    ),
)


# docs/spec.md §3.4: under the `openresponses` profile an event is judged by [OR]'s own schema
# where it is looser than [OAPI]'s. Not forced by a recording: by [OR]'s schema (llm-comply
# 0.5.0's bundled `specs/openresponses.json`, `ResponseOutputTextDeltaStreamingEvent`,
# `ResponseOutputTextDoneStreamingEvent`: `logprobs` is not in `required`; the profile requires
# what every version of [OR] requires, as for `user`).
OPENRESPONSES_RELAXATIONS: Final[tuple[Relaxation, ...]] = (
    Relaxation(
        "output_text delta logprobs optional (Open Responses)",
        "SPEC §3.4 [OR]",
        "",
        _optional("ResponseTextDeltaEvent", keys=("logprobs",)),
    ),
    Relaxation(
        "output_text done logprobs optional (Open Responses)",
        "SPEC §3.4 [OR]",
        "",
        _optional("ResponseTextDoneEvent", keys=("logprobs",)),
    ),
)
