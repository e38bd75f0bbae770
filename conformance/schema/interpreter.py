"""The slow path: an interpreter that collects issues with their paths, run only after a generated
predicate said *invalid*."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..catalog.render import truncate as _truncate
from .decoders import _CodeGen
from .issues import (
    _ACTUAL_MAX,
    SchemaIssue,
    _join,
    _one_of,
    _short,
    _types_text,
)
from .jsontypes import _JSON_TYPES, _MISSING, _type_ok
from .lowering import _BOUND_TYPES, _Lowerer, _Node
from .predicates import _BOUND_TESTS

_Predicate = Callable[[Any], bool]


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


def _bound_fails(key: str, measured: float, limit: float) -> bool:
    if key in ("minimum", "minLength", "minItems", "minProperties"):
        return measured < limit
    if key in ("maximum", "maxLength", "maxItems", "maxProperties"):
        return measured > limit
    if key == "exclusiveMinimum":
        return measured <= limit
    return measured >= limit
