"""The fast path: each component schema compiled to a generated Python predicate (``compile`` /
``exec``, in the manner of fastjsonschema) that answers *valid or not* and builds nothing."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from .jsontypes import _CLASSES, _MISSING, _classes
from .lowering import _BOUND_TYPES, _Lowerer, _Node

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


def _false(value: object) -> bool:
    return False


class _PredicateGen:
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


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]
