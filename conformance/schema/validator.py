"""The façade: :class:`SchemaValidator` and the default validator :data:`SCHEMAS`."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from .decoders import _CodeGen
from .interpreter import _Checker, _Predicate
from .issues import _NO_ISSUES, SchemaIssue
from .lowering import _Lowerer, _Node
from .relaxations import OPENRESPONSES_RELAXATIONS, RELAXATIONS, Relaxation, load_document

__all__ = ["OPENRESPONSES_SCHEMAS", "SCHEMAS", "SchemaValidator"]


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
        # (event type, also, id(missing), empty, closed, tolerate) -> (decoder, missing):
        # `missing` kept alive for its id
        self._decoders: dict[
            tuple[str, tuple[str, ...], int, tuple[str, ...], bool, tuple[str, ...]],
            tuple[Any, object],
        ] = {}
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
        self,
        event_type: str,
        *,
        also: Iterable[str] = (),
        missing: object = None,
        empty: Iterable[str] = (),
        closed: bool = False,
        tolerate: Iterable[str] = (),
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
        ``empty``: array properties (``logprobs``) for which the decoder also refuses anything but
        an empty array (or null, or absence, where the schema allows them), so a hot loop need not
        test them; None when one is not such a property.
        ``closed``: the decoder also refuses (raises ``ValueError``) keys that are none of the
        schema's properties, ``also`` or ``tolerate`` (strings, such as ``obfuscation``), and
        exists only where every property outside ``also`` has a type it checks: what it gives
        nests a few levels at most, but for the values of ``also`` (the caller's to compare).
        """
        compiled = self._compile()
        members = compiled.events.get(event_type)
        if members is None or len(members) != 1:
            return None
        also = tuple(also)
        empty = tuple(sorted(set(empty)))
        tolerate = tuple(sorted(set(tolerate))) if closed else ()
        key = (event_type, also, id(missing), empty, closed, tolerate)
        cached = self._decoders.get(key)
        if cached is None:
            with _CODEGEN_LOCK:  # the code generator numbers what it writes into one namespace
                cached = self._decoders.get(key)
                if cached is None:
                    decoder = compiled.codegen.decoder(
                        members[0], also, missing, empty, closed=closed, tolerate=tolerate
                    )
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
OPENRESPONSES_SCHEMAS: Final = SchemaValidator(relaxations=RELAXATIONS + OPENRESPONSES_RELAXATIONS)
"""The validator of the ``openresponses`` profile: :data:`SCHEMAS` and, where [OR]'s own schema is
looser than [OAPI]'s, [OR]'s (:data:`OPENRESPONSES_RELAXATIONS`; docs/spec.md §3.4)."""
