"""Lowering: schema dicts to a small IR (:class:`_Node`), unions flattened and dispatched on their
discriminator; shared by the predicates, the typed decoders and the interpreter."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from .jsontypes import _CLASSES, _JSON_TYPES, _REF_PREFIX, _type_ok


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
