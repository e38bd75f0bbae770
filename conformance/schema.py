"""Schema validation of Responses API wire objects against OpenAI's OpenAPI schemas (SPEC §1a, §3).

The schemas are [OAPI]'s (``openai/openai-openapi`` at commit f85dbe2, MIT), extracted by
``scripts/extract_openapi_schemas.py`` into the packaged ``schema/openapi-subset.json``: every schema
reachable from ``ResponseStreamEvent``, ``Response``, ``ErrorResponse`` and ``ResponseItemList``.
SPEC §1a's relaxations are applied to the loaded document as named patches (:data:`RELAXATIONS`);
the validator enforces the document with exactly those, no more.

A result is a list of :class:`SchemaIssue`, each with a ``kind``:

- ``required`` — a key the schema requires is absent;
- ``type`` — a value has the wrong JSON type;
- ``value`` — a constant, a discriminator or a bound (``minimum``, ``maxLength``, …) is not met;
- ``enum`` — a value outside an enumeration. Enumerations are open (SPEC §1a: OpenAI sends values its
  document does not list), so the caller reports these as INFO. Discriminator fields are constants
  (``value``), except where a union meets a discriminator value it does not know — an output item or
  content part type newer than the document — which is an ``enum`` issue at that field.

Supported JSON Schema / OpenAPI 3.1 (everything the subset uses):

- ``$ref`` to ``#/components/schemas/…``; ``$recursiveRef: "#"`` resolves to the component that holds
  it (``CompoundFilter``, the only ``$recursiveAnchor``). Self-referring schemas work.
- ``allOf``: object parts are merged (properties united, ``required`` united; a property declared by
  two parts must satisfy both).
- ``anyOf`` and ``oneOf``, both as *any of* (OpenAI's unions overlap). A union whose object members
  carry a ``type`` constant (or that declares ``discriminator.propertyName``) dispatches on that value
  in O(1); nested unions are flattened into their parent. Otherwise the issues of the branch with the
  fewest issues are reported.
- ``type`` (a name or a list), ``nullable``; ``{"type": "null"}`` branches make the union nullable.
  ``integer`` is a JSON integer token: ``true`` is not an integer and neither is ``3.0`` (Rust's serde
  and Go's encoding/json refuse ``3.0`` for an integer field; OpenAI never sends one). ``number`` is an integer
  or a float, never a boolean. A schema with ``properties`` and no ``type`` is an object.
- ``const``; ``enum`` (open, kind ``enum``) — an ``enum`` marked ``x-stainless-const`` (the SDK
  generator's constants) or a one-value ``enum`` on a property named ``type`` is a constant (``value``).
- ``properties``, ``required``, ``items``, ``additionalProperties`` *as a schema* (the values of
  maps such as ``metadata``), ``propertyNames``. ``additionalProperties: false`` is ignored: unknown
  fields are always allowed (SPEC §1, forward compatibility).
- Bounds, all kind ``value``: ``minimum``/``maximum``/``exclusive*`` (``temperature``, ``top_p``,
  ``top_logprobs`` echoed in a Response), ``minLength``/``maxLength`` (``safety_identifier`` ≤ 64),
  ``minItems``/``maxItems``, ``minProperties``/``maxProperties`` (``metadata`` ≤ 16 pairs),
  ``pattern``. They state what may be on the wire, and cost next to nothing on the hot path.
- Ignored: ``format``, ``title``, ``default``, ``deprecated``, ``discriminator.mapping``, every ``x-*``.

Speed. Each component schema is compiled once, at first use, to a generated Python predicate
(``compile``/``exec``, in the manner of fastjsonschema) that answers *valid or not* and builds
nothing; only when it says *not* does a second, interpreting pass collect the issues with their
paths, skipping every subtree whose own predicate passes. Values are expected as ``json``/``orjson`` produce them (``dict``, ``list``, ``str``, ``int``,
``float``, ``bool``, ``None``); types are compared exactly, so a ``dict`` subclass is not an object.
Validation is recursive: the SSE decoder bounds the size, hence the depth, of what reaches it.

Typed decoding. For the events that make up most of a stream (the deltas), parsing into a ``dict``
and then testing it costs more than the rest of judging them. :meth:`SchemaValidator.event_decoder`
goes from the JSON bytes straight to a typed object (a ``msgspec`` struct built from the same
lowered schema): a property that is a plain ``integer``, ``number``, ``string`` or ``boolean``, a
string constant, or an array or object made only of those (``logprobs``), is checked by the
decoder itself while it parses; every other property is decoded as JSON and tested by the
generated code for its schema, as the predicate would test it. So the
decoder gives an object exactly when the predicate would pass the parsed event; anything else
(invalid, or JSON it parses differently, such as invalid UTF-8 in a string) raises or gives False,
and the caller takes the ``dict`` path, which is the reference.

The empty result is one shared, immutable list (the success path allocates nothing); do not mutate a
result — copy it with ``list(...)`` first.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.resources
import keyword
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NoReturn

import msgspec
import orjson

__all__ = [
    "RELAXATIONS",
    "SCHEMAS",
    "Relaxation",
    "SchemaIssue",
    "SchemaValidator",
    "load_document",
]

IssueKind = Literal["required", "type", "value", "enum"]

_REF_PREFIX: Final = "#/components/schemas/"
_RESOURCE: Final = "schema/openapi-subset.json"
_ACTUAL_MAX: Final = 80
_EXPECTED_MAX: Final = 160


@dataclass(frozen=True, slots=True)
class SchemaIssue:
    """One place where a value breaks its schema. ``path`` is relative to the validated object."""

    kind: IssueKind
    path: str
    expected: str
    actual: str


class _NoIssues(list[SchemaIssue]):
    """The shared empty result: a list that refuses to be filled."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("schema validation results are shared and immutable; copy with list()")

    append = extend = insert = __setitem__ = __iadd__ = __imul__ = _refuse


_NO_ISSUES: Final[list[SchemaIssue]] = _NoIssues()


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Final = _Missing()


# --- the packaged document and SPEC §1a's relaxations -------------------------------------------


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


# SPEC §1a: where [OAPI] is stricter than what OpenAI sends. Each entry names the recording (in
# tests/data/openai-recorded/) that forces it; tests/conformance/test_schema.py drops each in turn
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
        "mcp tool server_description nullable",
        "SPEC §1a (corpus)",
        "bodies/openai-issue-19007-hosted-mcp.json",  # echoes `"server_description": null`
        _nullable("MCPTool", prop="server_description"),
    ),
)


# --- lowering: schema dicts to a small IR -------------------------------------------------------


@dataclass(eq=False, slots=True)
class _Dispatch:
    """O(1) choice of union branches (by index) on the value of one property of an object."""

    prop: str
    table: dict[str, tuple[int, ...]]
    missing: tuple[int, ...]  # the property is absent or null
    unknown: tuple[int, ...]  # a value no branch names: the branches that leave it free
    non_object: tuple[int, ...]  # the branches to try when the value is not an object


@dataclass(eq=False, slots=True)
class _Node:
    """One lowered schema. ``types`` None is any type; ``nullable`` accepts None before anything.

    ``null`` is never in ``types``: ``{"type": "null"}`` is ``types=frozenset(), nullable=True``.
    """

    types: frozenset[str] | None = None
    nullable: bool = False
    ref: str | None = None
    const: tuple[str, ...] | None = None
    enum: frozenset[str] | None = None
    props: dict[str, _Node] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    extra: _Node | None = None
    keys: _Node | None = None
    items: _Node | None = None
    bounds: tuple[tuple[str, float], ...] = ()
    pattern: str | None = None
    union: tuple[_Node, ...] | None = None
    disc: str | None = None  # the property a union may dispatch on (see _Lowerer.dispatch)
    all_of: tuple[_Node, ...] = ()

    def constrains_value(self) -> bool:
        """Whether anything but ``types``/``nullable`` is set."""
        return (
            self.ref is not None
            or self.const is not None
            or self.enum is not None
            or bool(self.props)
            or bool(self.required)
            or self.extra is not None
            or self.keys is not None
            or self.items is not None
            or bool(self.bounds)
            or self.pattern is not None
            or self.union is not None
            or bool(self.all_of)
        )

    def is_bare_ref(self) -> bool:
        return (
            self.ref is not None
            and self.types is None
            and not self.nullable
            and not dataclasses.replace(self, ref=None).constrains_value()
        )

    def is_pure_union(self) -> bool:
        return (
            self.union is not None
            and self.types is None
            and not dataclasses.replace(self, union=None, disc=None).constrains_value()
        )

    def is_null_only(self) -> bool:
        return (
            self.nullable
            and self.types is not None
            and not self.types
            and not self.constrains_value()
        )


_NULL: Final = _Node(types=frozenset(), nullable=True)

# Keywords that say nothing about validity (SPEC §1a: the judge checks types, presence, constants,
# enums and bounds). `discriminator` is read where a union is lowered.
_IGNORED: Final = frozenset(
    {
        "title",
        "default",
        "deprecated",
        "format",
        "discriminator",
        "description",
        "example",
        "examples",
        "$recursiveAnchor",
    }
)
_BOUND_TYPES: Final = {
    "minimum": "number",
    "maximum": "number",
    "exclusiveMinimum": "number",
    "exclusiveMaximum": "number",
    "minLength": "string",
    "maxLength": "string",
    "minItems": "array",
    "maxItems": "array",
    "minProperties": "object",
    "maxProperties": "object",
}
_HANDLED: Final = frozenset(
    {
        "$ref",
        "$recursiveRef",
        "allOf",
        "anyOf",
        "oneOf",
        "type",
        "nullable",
        "const",
        "enum",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "propertyNames",
        "pattern",
        *_BOUND_TYPES,
    }
)
_JSON_TYPES: Final = ("object", "array", "string", "integer", "number", "boolean")


class _Lowerer:
    """Lowers the (relaxed) component schemas to :class:`_Node` trees, one per name, on demand."""

    def __init__(self, schemas: dict[str, Any]) -> None:
        self.schemas = schemas
        self.nodes: dict[str, _Node] = {}
        self._busy: set[str] = set()
        self._accepts: dict[int, tuple[_Node, frozenset[str] | None]] = {}
        self._dispatches: dict[int, tuple[_Node, _Dispatch | None]] = {}

    def node(self, name: str) -> _Node:
        found = self.nodes.get(name)
        if found is not None:
            return found
        if name not in self.schemas:
            raise KeyError(f"unknown schema {name!r}")
        self._busy.add(name)
        try:
            lowered = self.lower(self.schemas[name], name, None)
        finally:
            self._busy.discard(name)
        self.nodes[name] = lowered
        return lowered

    def target(self, node: _Node) -> _Node:
        """The node whose properties ``node`` has: follows references that add nothing of their own."""
        seen: set[str] = set()
        while (
            node.ref is not None
            and not node.props
            and node.union is None
            and not node.all_of
            and node.ref not in seen
            and node.ref not in self._busy
        ):
            seen.add(node.ref)
            node = self.node(node.ref)
        return node

    def lower(self, schema: Any, owner: str, prop: str | None) -> _Node:
        if schema is True or schema == {}:
            return _Node()
        if not isinstance(schema, dict):
            raise NotImplementedError(f"{owner}: schema {schema!r}")
        unknown = sorted(
            k for k in schema if k not in _HANDLED and k not in _IGNORED and not k.startswith("x-")
        )
        if unknown:
            raise NotImplementedError(f"{owner}: unsupported keywords {unknown}")
        if "allOf" in schema:
            return self._lower_all_of(schema, owner, prop)
        ref = schema.get("$ref")
        if "$recursiveRef" in schema:
            # The only $recursiveAnchor is on the component that holds the $recursiveRef.
            if schema["$recursiveRef"] != "#" or not self.schemas[owner].get("$recursiveAnchor"):
                raise NotImplementedError(f"{owner}: $recursiveRef {schema['$recursiveRef']!r}")
            ref = _REF_PREFIX + owner
        if ref is not None:
            target = _ref_name(ref)
            if target not in self.schemas:
                raise KeyError(f"{owner}: $ref to unknown schema {target!r}")
            rest = {
                k: v
                for k, v in schema.items()
                if k in _HANDLED and k not in ("$ref", "$recursiveRef")
            }
            if rest == {"type": self.schemas[target].get("type")}:
                rest = {}  # `{$ref: Item, type: object}`: Item says `type: object` itself
            if rest:
                return _Node(all_of=(_Node(ref=target), self.lower(rest, owner, prop)))
            return _Node(ref=target)
        return self._lower_plain(schema, owner, prop, None)

    def _lower_plain(
        self,
        schema: dict[str, Any],
        owner: str,
        prop: str | None,
        props: dict[str, _Node] | None,
    ) -> _Node:
        types = _types_of(schema, owner)
        nullable = bool(schema.get("nullable", False))
        if types is not None and "null" in types:
            nullable = True
            types = types - {"null"}
        if props is None:
            props = {k: self.lower(v, owner, k) for k, v in schema.get("properties", {}).items()}
        if types is None and (props or "required" in schema or "additionalProperties" in schema):
            types = frozenset({"object"})
        if types is None and "items" in schema:
            types = frozenset({"array"})
        const: tuple[str, ...] | None = None
        enum: frozenset[str] | None = None
        if "const" in schema:
            const = (_string_value(schema["const"], owner),)
        if "enum" in schema:
            values = tuple(_string_value(v, owner) for v in schema["enum"])
            # A constant of the SDK generator, or a one-value `type`: a discriminator, closed.
            if schema.get("x-stainless-const") or (prop == "type" and len(values) == 1):
                const = values if const is None else tuple(v for v in const if v in values)
            else:
                enum = frozenset(values)
        if types is None and not props and (const is not None or enum is not None):
            types = frozenset({"string"})  # every enum and const value is a string
        extra = schema.get("additionalProperties")
        pattern = schema.get("pattern")
        if pattern is not None:
            re.compile(pattern)
        node = _Node(
            types=types,
            nullable=nullable,
            const=const,
            enum=enum,
            props=props,
            required=tuple(schema.get("required", ())),
            extra=self.lower(extra, owner, None) if isinstance(extra, dict) and extra else None,
            keys=self.lower(schema["propertyNames"], owner, None)
            if "propertyNames" in schema
            else None,
            items=self.lower(schema["items"], owner, None) if "items" in schema else None,
            bounds=tuple((k, schema[k]) for k in _BOUND_TYPES if k in schema),
            pattern=pattern,
        )
        if "anyOf" in schema and "oneOf" in schema:
            raise NotImplementedError(f"{owner}: anyOf beside oneOf")
        branches = schema.get("anyOf", schema.get("oneOf"))
        if branches is None:
            return node
        disc = schema.get("discriminator", {}).get("propertyName", "type")
        return self._with_union(node, [self.lower(b, owner, prop) for b in branches], disc)

    def _lower_all_of(self, schema: dict[str, Any], owner: str, prop: str | None) -> _Node:
        parts = [self._deref_dict(p) for p in schema["allOf"]]
        parts.append({k: v for k, v in schema.items() if k != "allOf"})
        merged: dict[str, Any] = {}
        raw_props: dict[str, list[Any]] = {}
        required: list[str] = []
        for part in parts:
            if "allOf" in part:
                raise NotImplementedError(f"{owner}: nested allOf")
            for key, value in part.items():
                if key == "properties":
                    for name, sub in value.items():
                        seen = raw_props.setdefault(name, [])
                        if sub not in seen:
                            seen.append(sub)
                elif key == "required":
                    required.extend(r for r in value if r not in required)
                elif key in _IGNORED or key.startswith("x-"):
                    continue
                elif key in merged and merged[key] != value:
                    raise NotImplementedError(f"{owner}: allOf parts disagree on {key!r}")
                else:
                    merged[key] = value
        props: dict[str, _Node] = {}
        for name, subs in raw_props.items():
            lowered = [self.lower(sub, owner, name) for sub in subs]
            props[name] = lowered[0] if len(lowered) == 1 else _Node(all_of=tuple(lowered))
        merged["required"] = required
        return self._lower_plain(merged, owner, prop, props)

    def _deref_dict(self, schema: Any) -> dict[str, Any]:
        while isinstance(schema, dict) and "$ref" in schema:
            if set(schema) - _IGNORED != {"$ref"}:
                raise NotImplementedError(f"allOf part with $ref and siblings: {sorted(schema)}")
            schema = self.schemas[_ref_name(schema["$ref"])]
        if not isinstance(schema, dict):
            raise NotImplementedError(f"allOf part {schema!r}")
        return schema

    def _leaves(self, branch: _Node, seen: frozenset[str]) -> Iterator[_Node]:
        """The members of ``branch`` if it is a union (through references), else ``branch``."""
        node = branch
        if branch.is_bare_ref() and branch.ref is not None:
            if branch.ref in seen or branch.ref in self._busy:
                yield branch
                return
            seen = seen | {branch.ref}
            node = self.node(branch.ref)
        if self._is_plain_union(node) and node.union is not None:
            if node.nullable:
                yield _NULL
            for leaf in node.union:
                yield from self._leaves(leaf, seen)
        else:
            yield branch

    def _is_plain_union(self, node: _Node) -> bool:
        """A union and nothing else, but maybe a ``type`` that each of its members implies
        (``Item`` is ``type: object`` beside a oneOf of objects): it may be spliced into a parent."""
        if node.union is None:
            return False
        if node.types is None:
            return node.is_pure_union()
        rest = dataclasses.replace(node, types=None)
        if not rest.is_pure_union():
            return False
        for leaf in node.union:
            accepted = self.accepts(leaf)
            if accepted is None or not accepted <= node.types:
                return False
        return True

    def _with_union(self, node: _Node, branches: list[_Node], disc: str) -> _Node:
        leaves: list[_Node] = []
        nullable = False
        for branch in branches:
            for leaf in self._leaves(branch, frozenset()):
                if leaf.is_null_only():
                    nullable = True
                elif leaf.types is None and not leaf.constrains_value():
                    return node  # one branch accepts anything: the union constrains nothing
                else:
                    leaves.append(leaf)
        # `type: object` beside the union refuses null whatever the branches say.
        nullable = (nullable or node.nullable) if node.types is None or node.nullable else False
        leaves = self._drop_subsumed(leaves, nullable)
        if not leaves:
            if node.constrains_value() or node.types:
                raise NotImplementedError("a union of nulls beside other constraints")
            return _NULL
        if not any(leaf.constrains_value() for leaf in leaves):
            # Only bare types (`anyOf: [{type: string}, {type: integer}]`): one type set.
            types: set[str] = set()
            for leaf in leaves:
                types |= leaf.types or frozenset()
                nullable = nullable or leaf.nullable
            merged = frozenset(types) if node.types is None else node.types & frozenset(types)
            return dataclasses.replace(node, types=merged, nullable=nullable)
        if len(leaves) == 1:
            (leaf,) = leaves
            if node.types is None and not node.constrains_value():
                return dataclasses.replace(leaf, nullable=leaf.nullable or nullable)
            return dataclasses.replace(node, nullable=nullable, all_of=(*node.all_of, leaf))
        return dataclasses.replace(
            node,
            nullable=nullable,
            union=tuple(leaves),
            disc=disc,
        )

    def _drop_subsumed(self, leaves: list[_Node], nullable: bool) -> list[_Node]:
        """Drop the branches that a bare-type branch already covers (``string`` covers an enum).

        A dropped branch accepts nothing the covering one refuses, so any-of is unchanged; and when
        the covering branch fails on the type, the dropped one would have failed on it too.
        """
        bare = [
            leaf
            for leaf in leaves
            if (target := self.target(leaf)).types and not target.constrains_value()
        ]
        if not bare:
            return leaves
        covered = frozenset().union(*(self.target(leaf).types or () for leaf in bare))
        null_ok = nullable or any(self.target(leaf).nullable for leaf in bare)
        kept = []
        for leaf in leaves:
            accepted = self.accepts(leaf)
            if (
                leaf in bare
                or accepted is None
                or (leaf.nullable and not null_ok)
                or not all(_type_ok(cls, covered) for t in accepted for cls in _CLASSES[t])
            ):
                kept.append(leaf)
        return kept

    def accepts(self, node: _Node, seen: frozenset[str] = frozenset()) -> frozenset[str] | None:
        """The JSON types other than null that ``node`` may accept; None for any."""
        cacheable = not seen and not self._busy  # otherwise a skipped reference widens the answer
        if cacheable:
            cached = self._accepts.get(id(node))
            if cached is not None and cached[0] is node:
                return cached[1]
        result = self._accepts_uncached(node, seen)
        if cacheable:
            self._accepts[id(node)] = (node, result)  # holding the node keeps its id unique
        return result

    def _accepts_uncached(self, node: _Node, seen: frozenset[str]) -> frozenset[str] | None:
        result = node.types
        inner: list[frozenset[str] | None] = []
        if node.ref is not None and node.ref not in seen and node.ref not in self._busy:
            inner.append(self.accepts(self.node(node.ref), seen | {node.ref}))
        if node.union is not None:
            united: set[str] = set()
            for branch in node.union:
                sub = self.accepts(branch, seen)
                if sub is None:
                    united = set(_JSON_TYPES)
                    break
                united |= sub
            inner.append(frozenset(united))
        inner.extend(self.accepts(part, seen) for part in node.all_of)
        for sub in inner:
            if sub is not None:
                result = sub if result is None else result & sub
        return result

    def dispatch(self, node: _Node) -> _Dispatch | None:
        """How a union picks its branches, computed once lowering is over: a branch that refers
        to a schema still being lowered (``CompoundFilter`` inside itself) shows its properties."""
        if node.union is None or node.disc is None:
            return None
        cached = self._dispatches.get(id(node))
        if cached is None or cached[0] is not node:
            cached = self._dispatches[id(node)] = (
                node,
                self._dispatch(list(node.union), node.disc),
            )
        return cached[1]

    def _dispatch(self, leaves: list[_Node], prop: str) -> _Dispatch | None:
        values: dict[int, frozenset[str] | None] = {}  # None: the branch leaves `prop` free
        may_miss: dict[int, bool] = {}
        non_object: list[int] = []
        for i, leaf in enumerate(leaves):
            accepted = self.accepts(leaf)
            if accepted is None or accepted - {"object"} or leaf.nullable:
                non_object.append(i)
            if accepted is not None and "object" not in accepted:
                continue
            target = self.target(leaf)
            sub = target.props.get(prop)
            values[i] = None if sub is None else self._consts(sub)
            may_miss[i] = prop not in target.required or (
                sub is not None and self.target(sub).nullable
            )
        if len(values) < 2 or all(v is None for v in values.values()):
            return None
        free = tuple(i for i, v in values.items() if v is None)
        table: dict[str, set[int]] = {}
        for i, named in values.items():
            for value in named or ():
                table.setdefault(value, set()).add(i)
        return _Dispatch(
            prop=prop,
            table={v: tuple(sorted(ix.union(free))) for v, ix in sorted(table.items())},
            missing=tuple(i for i in values if may_miss[i]),
            unknown=free,
            non_object=tuple(non_object),
        )

    def _consts(self, node: _Node) -> frozenset[str] | None:
        """The values a discriminator property can take, or None if it is not constrained."""
        node = self.target(node)
        if node.const is not None:
            return frozenset(node.const)
        if node.enum is not None:
            return node.enum
        if node.union is not None:
            found: set[str] = set()
            for branch in node.union:
                sub = self._consts(branch)
                if sub is None:
                    return None
                found |= sub
            return frozenset(found)
        return None


def _ref_name(ref: str) -> str:
    if not ref.startswith(_REF_PREFIX):
        raise NotImplementedError(f"$ref {ref!r}")
    return ref[len(_REF_PREFIX) :]


def _types_of(schema: dict[str, Any], owner: str) -> frozenset[str] | None:
    raw = schema.get("type")
    if raw is None:
        return None
    names = frozenset([raw] if isinstance(raw, str) else raw)
    if names - {*_JSON_TYPES, "null"}:
        raise NotImplementedError(f"{owner}: type {raw!r}")
    return names


def _string_value(value: Any, owner: str) -> str:
    if not isinstance(value, str):
        raise NotImplementedError(f"{owner}: non-string enum or const {value!r}")
    return value


# --- the fast path: generated predicates ---------------------------------------------------------

_CLASSES: Final[dict[str, tuple[type, ...]]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),  # bool is a subclass of int, but `type(x) is int` refuses it
    "number": (int, float),
    "boolean": (bool,),
}
_TYPE_OF_CLASS: Final[dict[type, str]] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}
_BOUND_TESTS: Final = {
    # keyword: (fast failure test with {v} and {n}, human text of the requirement)
    "minimum": ("{v} < {n}", ">= {n}"),
    "maximum": ("{v} > {n}", "<= {n}"),
    "exclusiveMinimum": ("{v} <= {n}", "> {n}"),
    "exclusiveMaximum": ("{v} >= {n}", "< {n}"),
    "minLength": ("len({v}) < {n}", "at least {n} characters"),
    "maxLength": ("len({v}) > {n}", "at most {n} characters"),
    "minItems": ("len({v}) < {n}", "at least {n} items"),
    "maxItems": ("len({v}) > {n}", "at most {n} items"),
    "minProperties": ("len({v}) < {n}", "at least {n} properties"),
    "maxProperties": ("len({v}) > {n}", "at most {n} properties"),
}


def _classes(types: frozenset[str]) -> tuple[type, ...]:
    return tuple(dict.fromkeys(c for t in _JSON_TYPES if t in types for c in _CLASSES[t]))


def _false(value: object) -> bool:
    return False


class _CodeGen:
    """Writes one predicate ``F_<Name>(value) -> bool`` per component schema, and helpers.

    The predicate returns False at the first failure and builds no result on success. Values are
    bound to ``v0``, ``v1``, … by nesting depth; ``M`` is the missing-key sentinel.
    """

    def __init__(self, lowerer: _Lowerer) -> None:
        self.lw = lowerer
        self.ns: dict[str, Any] = {
            "M": _MISSING,
            "_false": _false,
            "__builtins__": {},
            "len": len,
            "type": type,
            "KeyError": KeyError,
        }
        self.ns.update((cls.__name__, cls) for classes in _CLASSES.values() for cls in classes)
        self.defs: list[str] = []
        self.tables: list[str] = []
        self.helpers: dict[int, tuple[_Node, str]] = {}
        self._tables: dict[int, tuple[_Node, str]] = {}
        self._combos: dict[tuple[str, ...], str] = {}
        self._n = 0

    def build(self, names: Iterable[str]) -> dict[str, Any]:
        for name in names:
            self._function(f"F_{name}", self.lw.node(name))
        source = "\n\n".join([*self.defs, *self.tables]) + "\n"
        exec(compile(source, "<conformance.schema generated>", "exec"), self.ns)
        self.ns["__source__"] = source
        return self.ns

    def _name(self, prefix: str) -> str:
        self._n += 1
        return f"{prefix}{self._n}"

    def _struct_type(self, node: _Node, depth: int, *, containers: bool = True) -> Any:
        """The type a typed decoder checks a value with while it parses, when that check is
        exactly the schema's; None otherwise (then the value is tested by generated code).

        Covered: integer (a JSON integer: msgspec, like the predicate, refuses ``true`` and
        ``3.0``), number (an integer or a float, never a boolean), string, boolean, a string
        constant, any of them nullable; an array of a covered type; an object whose properties
        all are of covered types (unknown keys skipped, as everywhere). ``containers`` False:
        scalars only."""
        while node.is_bare_ref() and node.ref is not None and depth < 8:
            node, depth = self.lw.node(node.ref), depth + 1
        if node.types is None or len(node.types) != 1 or depth >= 8:
            return None
        (json_type,) = node.types
        if not containers and json_type in ("array", "object"):
            return None
        kind: Any = None
        if json_type == "array":
            if dataclasses.replace(node, items=None).constrains_value():
                return None
            if node.items is None:
                kind = list
            else:
                inner = self._struct_type(node.items, depth + 1)
                kind = None if inner is None else list[inner]  # type: ignore[valid-type]
        elif json_type == "object":
            if (
                dataclasses.replace(node, props={}, required=()).constrains_value()
                or any(key not in node.props for key in node.required)
                or any(not key.isidentifier() or keyword.iskeyword(key) for key in node.props)
            ):
                return None
            fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
            for key, sub in node.props.items():
                inner = self._struct_type(sub, depth + 1)
                if inner is None:
                    return None
                # An absent optional property is never read: any default does.
                fields.append((key, inner) if key in node.required else (key, inner, None))
            fields.sort(key=len)
            kind = msgspec.defstruct(f"Typed{self._name('S')}", fields, gc=False)
        elif dataclasses.replace(node, const=None).constrains_value():
            return None
        elif node.const is not None:
            kind = Literal[node.const] if json_type == "string" else None
        else:
            kind = _STRUCT_TYPES.get(json_type)
        if kind is not None and node.nullable:
            kind = kind | None
        return kind

    def decoder(
        self, node: _Node, also: Iterable[str], missing: object
    ) -> Callable[[bytes], Any] | None:
        """A typed decoder for an object schema (see "Typed decoding" above), or None when the
        schema has a shape it does not cover (a union, ``allOf``, a map, object bounds, a key that
        is no identifier). ``also``: further properties to read, absent ones as ``missing``."""
        while node.is_bare_ref() and node.ref is not None:
            node = self.lw.node(node.ref)
        if (
            node.nullable
            or (node.types is not None and node.types != frozenset({"object"}))
            or (node.types is None and not node.props)
            or node.ref is not None
            or node.const is not None
            or node.enum is not None
            or node.items is not None
            or node.extra is not None
            or node.keys is not None
            or node.bounds
            or node.pattern is not None
            or node.union is not None
            or node.all_of
        ):
            return None
        keys = [*node.props, *(k for k in node.required if k not in node.props)]
        also = tuple(also)
        keys += [k for k in dict.fromkeys(also) if k not in keys]
        if any(not k.isidentifier() or keyword.iskeyword(k) for k in keys):
            return None
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        checks: list[str] = []
        absent = self._constant("A", missing)
        defs, tables = len(self.defs), len(self.tables)  # helpers the checks may add
        for key in keys:
            sub = node.props.get(key)
            kind: Any = Any
            if sub is not None:
                # What the caller reads (`also`) stays as JSON parses it: no struct for an object.
                kind = self._struct_type(sub, 0, containers=key not in also)
                if kind is None:
                    kind = Any
                    inner = self._emit(sub, "v1", 1)
                    if inner:
                        if key in node.required:
                            checks += [f"v1 = v0.{key}", *inner]
                        else:
                            checks += [f"v1 = v0.{key}", f"if v1 is not {absent}:", *_indent(inner)]
            # An absent optional property reads as `missing`; the decoder never checks a default.
            fields.append((key, kind) if key in node.required else (key, kind, missing))
        # Required fields first: a struct's fields with defaults must come last.
        fields.sort(key=len)
        struct = msgspec.defstruct(f"Typed{self._n}", fields, gc=False)
        decode: Callable[[bytes], Any] = msgspec.json.Decoder(struct).decode
        if not checks:
            return decode
        fname = self._name("X")
        self.ns[f"{fname}_decode"] = decode
        body = [
            f"def {fname}(b):",
            f"    v0 = {fname}_decode(b)",
            "    try:",
            *_indent(_indent(checks)),
            "    except KeyError:",
            "        return False",
            "    return v0",
        ]
        source = "\n\n".join([*self.defs[defs:], *self.tables[tables:], "\n".join(body)]) + "\n"
        exec(compile(source, "<conformance.schema generated>", "exec"), self.ns)
        self.ns["__source__"] += "\n" + source
        decode = self.ns[fname]
        return decode

    def _constant(self, prefix: str, value: object) -> str:
        name = self._name(prefix)
        self.ns[name] = value
        return name

    def _function(self, fname: str, node: _Node) -> None:
        # A required key is read by subscript; its absence raises KeyError, which means False.
        # (try costs nothing in CPython 3.11 until something raises.)
        body = ["try:", *_indent(self._emit(node, "v0", 0)), "except KeyError:", "    return False"]
        self.defs.append("\n".join([f"def {fname}(v0):", *_indent(body), "    return True"]))

    def predicate(self, node: _Node) -> str:
        """The name of a function that tests ``node``."""
        if node.is_bare_ref() and node.ref is not None:
            return f"F_{node.ref}"
        known = self.helpers.get(id(node))
        if known is not None:
            return known[1]
        fname = self._name("U")
        self.helpers[id(node)] = (node, fname)  # the node is kept alive, so its id stays unique
        self._function(fname, node)
        return fname

    def _any_of(self, fnames: tuple[str, ...]) -> str:
        if not fnames:
            return "_false"
        if len(fnames) == 1:
            return fnames[0]
        known = self._combos.get(fnames)
        if known is None:
            known = self._combos[fnames] = self._name("C")
            test = " or ".join(f"{f}(v0)" for f in fnames)
            self.defs.append(f"def {known}(v0):\n    return {test}")
        return known

    def _emit(self, node: _Node, v: str, depth: int) -> list[str]:
        body: list[str] = []
        types = node.types
        if types is not None:
            if not types:
                body.append("return False")
            else:
                classes = _classes(types)
                if len(classes) == 1:
                    body.append(f"if type({v}) is not {classes[0].__name__}: return False")
                else:
                    body.append(f"if type({v}) not in {self._constant('T', classes)}: return False")
        if node.ref is not None:
            target = self.lw.node(node.ref)
            if self._inlinable(target):
                body += self._emit(target, v, depth)
            else:
                body.append(f"if not F_{node.ref}({v}): return False")
        if node.const is not None:
            if len(node.const) == 1:
                body.append(f"if {v} != {node.const[0]!r}: return False")
            else:
                body.append(f"if {v} not in {node.const!r}: return False")
        if node.enum is not None:
            guard = "" if types == frozenset({"string"}) else f"type({v}) is not str or "
            body.append(f"if {guard}{v} not in {self._constant('E', node.enum)}: return False")
        body += self._guarded(types, "object", v, self._emit_object(node, v, depth))
        body += self._guarded(types, "array", v, self._emit_array(node, v, depth))
        body += self._guarded(types, "string", v, self._emit_bounds(node, v, "string"))
        body += self._guarded(types, "number", v, self._emit_bounds(node, v, "number"))
        if node.union is not None:
            body += self._emit_union(node, node.union, v, depth)
        for part in node.all_of:
            body += self._emit(part, v, depth)
        if node.nullable and body:
            return [f"if {v} is not None:", *_indent(body)]
        return body

    def _inlinable(self, node: _Node, hops: int = 0) -> bool:
        """Whether a referenced schema is small enough to test in place, saving a call: a scalar
        test, a reference to one, or a union that only dispatches to predicates."""
        if node.props or node.items is not None or node.extra is not None or node.keys is not None:
            return False
        if node.all_of or hops > 4:
            return False
        return node.ref is None or self._inlinable(self.lw.node(node.ref), hops + 1)

    def _guarded(
        self, types: frozenset[str] | None, kind: str, v: str, lines: list[str]
    ) -> list[str]:
        if not lines:
            return []
        allowed = {"number", "integer"} if kind == "number" else {kind}
        if types is not None and types <= allowed:
            return lines
        classes = _classes(frozenset(allowed))
        test = (
            f"type({v}) is {classes[0].__name__}"
            if len(classes) == 1
            else f"type({v}) in {self._constant('T', classes)}"
        )
        return [f"if {test}:", *_indent(lines)]

    def _emit_object(self, node: _Node, v: str, depth: int) -> list[str]:
        lines: list[str] = []
        c = f"v{depth + 1}"
        for key, sub in node.props.items():
            inner = self._emit(sub, c, depth + 1)
            if key in node.required:
                item = f"{v}[{key!r}]"
                if not inner:
                    lines.append(f"if {key!r} not in {v}: return False")
                elif len(inner) == 1 and len(re.findall(rf"\b{c}\b", inner[0])) == 1:
                    # One test of the value: test the subscript itself, no local variable.
                    lines.append(re.sub(rf"\b{c}\b", item.replace("\\", "\\\\"), inner[0]))
                else:
                    lines += [f"{c} = {item}", *inner]
            elif inner and sub.nullable:
                lines += [f"{c} = {v}.get({key!r})", *inner]  # absent or null: both pass
            elif inner:
                lines += [f"{c} = {v}.get({key!r}, M)", f"if {c} is not M:", *_indent(inner)]
        for key in node.required:
            if key not in node.props:
                lines.append(f"if {key!r} not in {v}: return False")
        if node.extra is not None:
            inner = self._emit(node.extra, c, depth + 1)
            if inner:
                known = self._constant("K", frozenset(node.props))
                k = f"k{depth}"
                lines += [f"for {k}, {c} in {v}.items():", f"    if {k} not in {known}:"]
                lines += _indent(_indent(inner))
        if node.keys is not None:
            inner = self._emit(node.keys, c, depth + 1)
            if inner:
                lines += [f"for {c} in {v}:", *_indent(inner)]
        lines += self._emit_bounds(node, v, "object")
        return lines

    def _emit_array(self, node: _Node, v: str, depth: int) -> list[str]:
        lines: list[str] = []
        if node.items is not None:
            c = f"v{depth + 1}"
            inner = self._emit(node.items, c, depth + 1)
            if inner:
                lines += [f"for {c} in {v}:", *_indent(inner)]
        return lines + self._emit_bounds(node, v, "array")

    def _emit_bounds(self, node: _Node, v: str, kind: str) -> list[str]:
        lines = [
            f"if {_BOUND_TESTS[key][0].format(v=v, n=limit)}: return False"
            for key, limit in node.bounds
            if _BOUND_TYPES[key] == kind
        ]
        if kind == "string" and node.pattern is not None:
            search = self._constant("P", re.compile(node.pattern).search)
            lines.append(f"if {search}({v}) is None: return False")
        return lines

    def _emit_union(
        self, node: _Node, branches: tuple[_Node, ...], v: str, depth: int
    ) -> list[str]:
        fnames = tuple(self.predicate(b) for b in branches)
        disp = self.lw.dispatch(node)
        if disp is None:
            return [f"if not ({' or '.join(f'{f}({v})' for f in fnames)}): return False"]

        def pick(indices: tuple[int, ...]) -> str:
            return self._any_of(tuple(fnames[i] for i in indices))

        known = self._tables.get(id(node))
        if known is None:
            table = self._name("D")
            self._tables[id(node)] = (node, table)
            entries = ", ".join(f"{value!r}: {pick(ix)}" for value, ix in disp.table.items())
            self.tables.append(f"{table} = {{{entries}}}")
        else:
            table = known[1]
        t, f = f"t{depth}", f"f{depth}"
        unknown, missing = pick(disp.unknown), pick(disp.missing)
        lines = [
            f"if type({v}) is dict:",
            f"    {t} = {v}.get({disp.prop!r})",
            f"    if type({t}) is str: {f} = {table}.get({t}, {unknown})",
            *([] if missing == unknown else [f"    elif {t} is None: {f} = {missing}"]),
            f"    else: {f} = {unknown}",
            f"    if not {f}({v}): return False",
        ]
        if node.types is None or node.types - {"object"}:
            others = pick(disp.non_object)
            test = "return False" if others == "_false" else f"if not {others}({v}): return False"
            lines += ["else:", f"    {test}"]
        return lines


_STRUCT_TYPES: Final[dict[str, Any]] = {
    "integer": int,
    "string": str,
    "boolean": bool,
    "number": int | float,
}


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


# --- the slow path: an interpreter that collects issues -------------------------------------------


class _Checker:
    """Walks a value against a lowered schema and collects every issue with its path.

    It runs only after a generated predicate has said *invalid*, and mirrors that predicate test
    for test: a value has an issue here exactly when the predicate refuses it. Given the predicates
    (``prune``), it skips every referenced schema and union branch whose predicate passes, so that
    it walks only the way down to what is wrong.
    """

    def __init__(self, lowerer: _Lowerer, prune: _CodeGen | None = None) -> None:
        self.lw = lowerer
        self._named: dict[str, _Predicate] = {}
        self._helpers: dict[int, _Predicate] = {}
        if prune is not None:
            self._named = {name: prune.ns[f"F_{name}"] for name in lowerer.schemas}
            self._helpers = {key: prune.ns[fname] for key, (_, fname) in prune.helpers.items()}

    def _passes(self, node: _Node, x: Any) -> bool:
        """Whether a predicate exists for ``node`` and accepts ``x``."""
        if node.is_bare_ref() and node.ref is not None:
            named = self._named.get(node.ref)
            return named is not None and named(x)
        helper = self._helpers.get(id(node))
        return helper is not None and helper(x)

    def check(self, node: _Node, x: Any, path: str, out: list[SchemaIssue]) -> None:
        if x is None and node.nullable:
            return
        cls = x.__class__
        types = node.types
        if types is not None and not _type_ok(cls, types):
            out.append(SchemaIssue("type", path, _types_text(types, node.nullable), _short(x)))
            return
        if node.ref is not None:
            named = self._named.get(node.ref)
            if named is None or not named(x):
                self.check(self.lw.node(node.ref), x, path, out)
        if node.const is not None and x not in node.const:
            out.append(SchemaIssue("value", path, _one_of(node.const), _short(x)))
        if node.enum is not None and (cls is not str or x not in node.enum):
            out.append(SchemaIssue("enum", path, _one_of(sorted(node.enum)), _short(x)))
        if cls is dict:
            self._object(node, x, path, out)
        elif cls is list:
            if node.items is not None:
                for i, item in enumerate(x):
                    self.check(node.items, item, f"{path}[{i}]", out)
            self._bounds(node, x, path, "array", out)
        elif cls is str:
            self._bounds(node, x, path, "string", out)
            if node.pattern is not None and re.search(node.pattern, x) is None:
                out.append(SchemaIssue("value", path, f"matching {node.pattern}", _short(x)))
        elif cls is int or cls is float:
            self._bounds(node, x, path, "number", out)
        if node.union is not None:
            self.union(node, node.union, x, path, out)
        if node.all_of:
            for part in node.all_of:
                found: list[SchemaIssue] = []
                self.check(part, x, path, found)
                out.extend(issue for issue in found if issue not in out)

    def _object(self, node: _Node, x: dict[str, Any], path: str, out: list[SchemaIssue]) -> None:
        required = node.required
        for key, sub in node.props.items():
            value = x.get(key, _MISSING)
            if value is _MISSING:
                if key in required:
                    out.append(SchemaIssue("required", _join(path, key), "present", "missing"))
                continue
            self.check(sub, value, _join(path, key), out)
        for key in required:
            if key not in node.props and key not in x:
                out.append(SchemaIssue("required", _join(path, key), "present", "missing"))
        if node.extra is not None:
            for key, value in x.items():
                if key not in node.props:
                    self.check(node.extra, value, _join(path, key), out)
        if node.keys is not None:
            for key in x:
                self.check(node.keys, key, _join(path, key), out)
        self._bounds(node, x, path, "object", out)

    def _bounds(self, node: _Node, x: Any, path: str, kind: str, out: list[SchemaIssue]) -> None:
        for key, limit in node.bounds:
            if _BOUND_TYPES[key] == kind and _bound_fails(
                key, x if kind == "number" else len(x), limit
            ):
                actual = _short(x) if kind == "number" else f"length {len(x)}: {_short(x)}"
                expected = _BOUND_TESTS[key][1].format(n=limit)
                out.append(SchemaIssue("value", path, expected, _truncate(actual, _ACTUAL_MAX)))

    def union(
        self,
        node: _Node,
        branches: tuple[_Node, ...],
        x: Any,
        path: str,
        out: list[SchemaIssue],
    ) -> None:
        disp = self.lw.dispatch(node)
        candidates: tuple[int, ...]
        if disp is not None and x.__class__ is dict:
            tag = x.get(disp.prop)
            where = _join(path, disp.prop)
            if tag.__class__ is str:
                candidates = disp.table.get(tag, disp.unknown)
                if not candidates:
                    # An item or part type the document does not list: enums are open (SPEC §1a).
                    out.append(SchemaIssue("enum", where, _one_of(disp.table), _short(tag)))
                    return
            elif tag is None:
                candidates = disp.missing
                if not candidates:
                    if disp.prop in x:
                        out.append(SchemaIssue("type", where, "string", "null"))
                    else:
                        out.append(SchemaIssue("required", where, "present", "missing"))
                    return
            else:
                candidates = disp.unknown
                if not candidates:
                    out.append(SchemaIssue("type", where, "string", _short(tag)))
                    return
        elif disp is not None:
            candidates = disp.non_object
        else:
            candidates = tuple(range(len(branches)))
        cls = x.__class__
        fitting = [
            i
            for i in candidates
            if (x is None and branches[i].nullable)
            or _type_ok(cls, self.lw.accepts(branches[i]) or frozenset(_JSON_TYPES))
        ]
        if not fitting:
            accepted: set[str] = set()
            nullable = node.nullable
            for branch in branches:
                accepted |= self.lw.accepts(branch) or set(_JSON_TYPES)
                nullable = nullable or branch.nullable
            out.append(
                SchemaIssue("type", path, _types_text(frozenset(accepted), nullable), _short(x))
            )
            return
        best: list[SchemaIssue] | None = None
        best_rank = (0, 0)
        for i in fitting:
            if self._passes(branches[i], x):
                return
            found: list[SchemaIssue] = []
            self.check(branches[i], x, path, found)
            if not found:
                return
            # The closest branch: fewest failures, an enum miss counting less (enums are open).
            rank = (sum(issue.kind != "enum" for issue in found), len(found))
            if best is None or rank < best_rank:
                best, best_rank = found, rank
        assert best is not None
        out.extend(best)


def _type_ok(cls: type, types: frozenset[str]) -> bool:
    name = _TYPE_OF_CLASS.get(cls)
    return name in types or (name == "integer" and "number" in types)


def _bound_fails(key: str, measured: float, limit: float) -> bool:
    if key in ("minimum", "minLength", "minItems", "minProperties"):
        return measured < limit
    if key in ("maximum", "maxLength", "maxItems", "maxProperties"):
        return measured > limit
    if key == "exclusiveMinimum":
        return measured <= limit
    return measured >= limit


def _types_text(types: frozenset[str], nullable: bool) -> str:
    names: list[str] = [t for t in _JSON_TYPES if t in types]
    if "number" in types and "integer" in names:
        names.remove("integer")
    if nullable:
        names.append("null")
    return " or ".join(names) if names else "nothing"


def _one_of(values: Iterable[str]) -> str:
    values = list(values)
    if len(values) == 1:
        return repr(values[0])
    return _truncate("one of " + ",".join(repr(v) for v in values), _EXPECTED_MAX)


def _short(value: Any) -> str:
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # not JSON, or nested deeper than orjson writes (255 levels)
        try:
            text = repr(value)
        except RecursionError:
            text = "[…]" if isinstance(value, list) else "{…}"
    return _truncate(text, _ACTUAL_MAX)


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _join(path: str, key: str) -> str:
    if not key.isidentifier():
        return f"{path}[{_short(key)}]"
    return f"{path}.{key}" if path else key


# --- the public validator -------------------------------------------------------------------------

_Predicate = Callable[[Any], bool]
_EVENT_UNION: Final = "ResponseStreamEvent"
_CODEGEN_LOCK: Final = threading.Lock()


@dataclass(frozen=True, slots=True)
class _Compiled:
    lowerer: _Lowerer
    checker: _Checker
    namespace: dict[str, Any]
    events: dict[str, tuple[_Node, ...]]  # event type -> the union members it names
    codegen: _CodeGen  # goes on writing into `namespace` (typed decoders)


class SchemaValidator:
    """[OAPI]'s schemas with SPEC §1a's relaxations, compiled to fast predicates on first use.

    ``relaxations`` defaults to :data:`RELAXATIONS`; tests pass fewer to show what each one buys.
    ``document`` defaults to the packaged subset (:func:`load_document`).
    """

    __slots__ = ("_compiled", "_decoders", "_document", "_predicates", "relaxations")

    def __init__(
        self,
        *,
        relaxations: Iterable[Relaxation] | None = None,
        document: dict[str, Any] | None = None,
    ) -> None:
        self.relaxations: tuple[Relaxation, ...] = (
            RELAXATIONS if relaxations is None else tuple(relaxations)
        )
        self._document = document
        self._compiled: _Compiled | None = None
        # (event type, also, id(missing)) -> (decoder, missing): `missing` kept alive for its id
        self._decoders: dict[tuple[str, tuple[str, ...], int], tuple[Any, object]] = {}
        # event type -> predicate; compiles on the first lookup, then is replaced by a plain dict.
        self._predicates: dict[str, _Predicate] = _CompileOnMiss(self)

    def _compile(self) -> _Compiled:
        if self._compiled is not None:
            return self._compiled
        document = self._document if self._document is not None else load_document()
        schemas = copy.deepcopy(document["schemas"])
        for relaxation in self.relaxations:
            relaxation.apply(schemas)
        lowerer = _Lowerer(schemas)
        codegen = _CodeGen(lowerer)
        namespace = codegen.build(sorted(schemas))
        union = lowerer.node(_EVENT_UNION)
        dispatch = lowerer.dispatch(union)
        if dispatch is None or union.union is None:
            raise NotImplementedError(f"{_EVENT_UNION} is not a discriminated union")
        events: dict[str, tuple[_Node, ...]] = {}
        predicates: dict[str, _Predicate] = {}
        for value, indices in dispatch.table.items():
            events[value] = members = tuple(union.union[i] for i in indices)
            predicates[value] = _first_of([namespace[codegen.predicate(m)] for m in members])
        self._compiled = _Compiled(
            lowerer, _Checker(lowerer, prune=codegen), namespace, events, codegen
        )
        self._predicates = predicates
        return self._compiled

    def event_types(self) -> frozenset[str]:
        """Every ``type`` constant of the members of [OAPI]'s ``ResponseStreamEvent`` union."""
        return frozenset(self._compile().events)

    def event_predicate(self, event_type: str) -> Callable[[dict[str, Any]], bool] | None:
        """The compiled yes/no check for events of ``event_type`` (None: not in the union).

        For hot loops that only need to know that an event is valid; on False, call
        :meth:`validate_event` for the issues.
        """
        self._compile()
        return self._predicates.get(event_type)

    def event_decoder(
        self, event_type: str, *, also: Iterable[str] = (), missing: object = None
    ) -> Callable[[bytes], Any] | None:
        """A typed decoder for events of ``event_type``, for hot loops (see "Typed decoding").

        ``decode(data)`` takes the event's JSON bytes and returns an object with one attribute
        per property of the event's schema, and per name in ``also``, when the bytes are one
        JSON object that the event's predicate passes; an absent optional property reads as
        ``missing``. The properties named in ``also`` hold their values as JSON parsers give
        them; other object-valued properties may hold typed objects. Otherwise it raises ``ValueError`` (the bytes do not decode to such an
        object) or returns False (a property fails its schema). Either way, judge the bytes the
        ``dict`` way: that is the reference, also for JSON the typed decoder parses differently
        from ``orjson``/``json`` (e.g. invalid UTF-8 in a string it skips).
        None when the event's schema has a shape the decoder does not cover.
        """
        compiled = self._compile()
        members = compiled.events.get(event_type)
        if members is None or len(members) != 1:
            return None
        also = tuple(also)
        key = (event_type, also, id(missing))
        cached = self._decoders.get(key)
        if cached is None:
            with _CODEGEN_LOCK:  # the code generator numbers what it writes into one namespace
                cached = self._decoders.get(key)
                if cached is None:
                    decoder = compiled.codegen.decoder(members[0], also, missing)
                    cached = self._decoders[key] = (decoder, missing)
        return cached[0]

    def validate_event(self, event: dict[str, Any]) -> list[SchemaIssue]:
        """One stream event, by its ``type``; an unknown type gives no issue (the caller's to report).

        Paths are relative to the event (``item.content[0].annotations``).
        """
        try:
            predicate = self._predicates[event["type"]]
        except (KeyError, TypeError):  # no `type`, an unknown one, or an unhashable one
            return _NO_ISSUES
        if predicate(event):
            return _NO_ISSUES
        compiled = self._compile()
        members = compiled.events[event["type"]]
        out: list[SchemaIssue] = []
        if len(members) == 1:
            compiled.checker.check(members[0], event, "", out)
        else:
            compiled.checker.union(_Node(), members, event, "", out)
        return out or _NO_ISSUES

    def validate_response(self, response: dict[str, Any]) -> list[SchemaIssue]:
        """A Response object: a non-stream body, or the ``response`` of a lifecycle event."""
        return self.validate("Response", response)

    def validate_error_body(self, body: dict[str, Any]) -> list[SchemaIssue]:
        """An error body, ``{"error": {"message", "type", "param", "code"}}``."""
        return self.validate("ErrorResponse", body)

    def validate(self, schema_name: str, value: object) -> list[SchemaIssue]:
        """``value`` against any component schema of the subset, e.g. ``ResponseItemList``."""
        compiled = self._compile()
        predicate = compiled.namespace.get(f"F_{schema_name}")
        if predicate is None or schema_name not in compiled.lowerer.schemas:
            raise KeyError(f"no schema {schema_name!r} in the OpenAPI subset")
        if predicate(value):
            return _NO_ISSUES
        out: list[SchemaIssue] = []
        compiled.checker.check(compiled.lowerer.node(schema_name), value, "", out)
        return out or _NO_ISSUES

    def schema_names(self) -> frozenset[str]:
        """The names of every component schema in the subset."""
        return frozenset(self._compile().lowerer.schemas)

    def schemas(self) -> dict[str, Any]:
        """The component schemas as validated: the packaged subset with the relaxations applied."""
        return self._compile().lowerer.schemas


class _CompileOnMiss(dict[str, _Predicate]):
    """The predicate table of a validator not compiled yet: the first lookup compiles it."""

    __slots__ = ("_owner",)

    def __init__(self, owner: SchemaValidator) -> None:
        super().__init__()
        self._owner = owner

    def __missing__(self, key: str) -> _Predicate:
        self._owner._compile()
        return self._owner._predicates[key]


def _first_of(predicates: list[_Predicate]) -> _Predicate:
    if len(predicates) == 1:
        return predicates[0]

    def any_of(value: Any) -> bool:
        return any(p(value) for p in predicates)

    return any_of


SCHEMAS: Final = SchemaValidator()
"""The default validator: the packaged subset with every relaxation of :data:`RELAXATIONS`."""
