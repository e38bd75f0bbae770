"""Typed decoders: JSON bytes straight to ``msgspec`` structs built from the lowered schema, for the
events that make up most of a stream (see "Typed decoding" in :mod:`conformance.schema`)."""

from __future__ import annotations

import dataclasses
import keyword
import types
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Final, Literal, get_origin

import msgspec

from .lowering import _Node
from .predicates import _indent, _PredicateGen


class _CodeGen(_PredicateGen):
    """The predicates, and the typed decoders written into the same namespace."""

    def _struct_type(
        self, node: _Node, depth: int, *, containers: bool = True, closed: bool = False
    ) -> Any:
        """The type a typed decoder checks a value with while it parses, when that check is
        exactly the schema's; None otherwise (then the value is tested by generated code).

        Covered: integer (a JSON integer: msgspec, like the predicate, refuses ``true`` and
        ``3.0``), number (an integer or a float, never a boolean), string, boolean, a string
        constant, any of them nullable; an array of a covered type; an object whose properties
        all are of covered types (unknown keys skipped, as everywhere; refused when ``closed``).
        ``containers`` False: scalars only. A covered type nests at most 8 levels."""
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
                inner = self._struct_type(node.items, depth + 1, closed=closed)
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
                inner = self._struct_type(sub, depth + 1, closed=closed)
                if inner is None:
                    return None
                # An absent optional property is never read: any default does.
                fields.append((key, inner) if key in node.required else (key, inner, None))
            fields.sort(key=len)
            kind = msgspec.defstruct(
                f"Typed{self._name('S')}", fields, gc=False, forbid_unknown_fields=closed
            )
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
        self,
        node: _Node,
        also: Iterable[str],
        missing: object,
        empty: Iterable[str] = (),
        *,
        closed: bool = False,
        tolerate: Iterable[str] = (),
    ) -> Callable[[bytes], Any] | None:
        """A typed decoder for an object schema (see "Typed decoding" above), or None when the
        schema has a shape it does not cover (a union, ``allOf``, a map, object bounds, a key that
        is no identifier). ``also``: further properties to read, absent ones as ``missing``.
        ``empty``: array properties the decoder refuses unless empty (or absent, or null where
        the schema allows it), so that the caller need not test them; None when one is not an
        array property the decoder checks itself.

        ``closed``: the decoder also refuses (raises ``ValueError``) an object with a key that is
        none of the schema's properties, ``also`` or ``tolerate`` (string properties outside the
        schema, such as ``obfuscation``), at every level; then every property but those in
        ``also`` has a type the decoder checks, which nests at most 8 levels, or there is no
        decoder (None). What it gives is as shallow as that, but for the values of ``also``: a
        caller that compares those with values it knows bounds them too."""
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
        empty = frozenset(empty)
        if not empty <= node.props.keys():
            return None
        keys += [k for k in dict.fromkeys(also) if k not in keys]
        extra = [k for k in dict.fromkeys(tolerate) if k not in keys] if closed else []
        keys += extra
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
                kind = self._struct_type(sub, 0, containers=key not in also, closed=closed)
                if key in empty:
                    kind = _empty_array(kind)
                    if kind is None:
                        return None
                if kind is None:
                    if closed and key not in also:
                        return None  # a value the decoder does not check may nest deep
                    kind = Any
                    inner = self._emit(sub, "v1", 1)
                    if inner:
                        if key in node.required:
                            checks += [f"v1 = v0.{key}", *inner]
                        else:
                            checks += [f"v1 = v0.{key}", f"if v1 is not {absent}:", *_indent(inner)]
            elif key in empty:
                return None
            elif key in extra:
                kind = str
            # An absent optional property reads as `missing`; the decoder never checks a default.
            fields.append((key, kind) if key in node.required else (key, kind, missing))
        # Required fields first: a struct's fields with defaults must come last.
        fields.sort(key=len)
        struct = msgspec.defstruct(
            f"Typed{self._n}", fields, gc=False, forbid_unknown_fields=closed
        )
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


_STRUCT_TYPES: Final[dict[str, Any]] = {
    "integer": int,
    "string": str,
    "boolean": bool,
    "number": int | float,
}


def _empty_array(kind: Any) -> Any:
    """``kind`` (an array type the decoder checks, perhaps nullable) that also refuses a
    non-empty array: what is left of the schema's check then holds of ``[]`` (the decoder checks
    the array's items, and ``_struct_type`` covers no array with bounds of its own); None when
    ``kind`` is no such type."""
    nullable = False
    if type(kind) is types.UnionType:
        members = [m for m in kind.__args__ if m is not type(None)]
        if len(members) != 1 or len(kind.__args__) != 2:
            return None
        (kind,), nullable = members, True
    if kind is not list and get_origin(kind) is not list:
        return None
    refused: Any = Annotated[kind, msgspec.Meta(max_length=0)]
    return refused | None if nullable else refused
