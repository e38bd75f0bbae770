"""The shape of a JSON index as the reports read it: :func:`shape_errors` says where a document
whose ``format`` is right is not one that :mod:`.index`, :mod:`.html` and :mod:`.junit` can
render (``targets.X`` null, ``cases`` a string, an outcome no run writes, a target without a
``status``…), so that ``responses-conformance report`` refuses it in one line (exit 2) instead of
failing with a traceback, or rendering a verdict the index does not hold.

The spec below declares every field the renderers (and the exit code) read, with the type the
producers (:func:`~.index.build_index`, :func:`~.index.merge_indexes`, the proxy's ledger)
write; a field they do not read is let through, whatever it holds, so that an index from a later
version (a new field) still renders. Every check ID a target names where a renderer looks it up —
its ``checks`` and its cases' ``violations`` — must be in the document's ``checks`` catalogue.

A field of an object may be absent unless it is :class:`_Required`; ``null`` is accepted only
where the spec says ``OPTIONAL_…`` (``typing.Optional``: the value or null).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ...catalog.render import short_json
from ...exit_codes import EXIT_BROKEN, EXIT_OK, EXIT_VIOLATIONS
from ..results import CASE_OUTCOMES, OUTCOMES

__all__ = ["shape_errors"]


class _Shape:
    """What one JSON value must be."""

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        """The first problem of ``value`` (at ``path``), as one line; ``None`` when it fits."""
        raise NotImplementedError


class _Type(_Shape):
    def __init__(self, what: str, test: Callable[[Any], bool]) -> None:
        self.what, self.test = what, test

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        return None if self.test(value) else _expected(path, self.what, value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """A finite number that converts to a float (``float(10**400)`` overflows)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


STR = _Type("a string", lambda v: isinstance(v, str))
INT = _Type("an integer", _is_int)
NUMBER = _Type("a finite number", _is_number)
BOOL = _Type("true or false", lambda v: isinstance(v, bool))
ANY = _Type("any value", lambda v: True)  # read only through str(): anything renders


class _Nullable(_Shape):
    def __init__(self, inner: _Shape) -> None:
        self.inner = inner

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        return None if value is None else self.inner.error(value, path, catalog)


OPTIONAL_STR = _Nullable(STR)
OPTIONAL_INT = _Nullable(INT)


class _OneOf(_Shape):
    """One of a few values, of their own type (``true`` is not the exit code 1)."""

    def __init__(self, choices: tuple[Any, ...]) -> None:
        self.choices = choices

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        if any(type(value) is type(c) and value == c for c in self.choices):
            return None
        return _expected(path, "one of " + ", ".join(str(c) for c in self.choices), value)


class _List(_Shape):
    def __init__(self, item: _Shape) -> None:
        self.item = item

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        if not isinstance(value, list):
            return _expected(path, "a list", value)
        for n, item in enumerate(value):
            found = self.item.error(item, f"{path}[{n}]", catalog)
            if found:
                return found
        return None


class _CheckID(_Shape):
    """A check ID of the document's ``checks`` catalogue."""

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        if not isinstance(value, str):
            return _expected(path, "a check ID", value)
        if value not in catalog:
            return f"{path}: {_shown(value)} is not a check of the index's checks"
        return None


CHECK_ID = _CheckID()


class _Map(_Shape):
    """An object of any names, each to a ``value`` (a target per name, an outcome per check)."""

    def __init__(self, value: _Shape, *, check_ids: bool = False) -> None:
        self.value, self.check_ids = value, check_ids

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        if not isinstance(value, dict):
            return _expected(path, "an object", value)
        for name, item in value.items():
            where = _field(path, name)
            if self.check_ids and name not in catalog:
                return f"{where}: no such check in the index's checks"
            found = self.value.error(item, where, catalog)
            if found:
                return found
        return None


class _Required(_Shape):
    """A field of an :class:`_Object` that must be there."""

    def __init__(self, inner: _Shape) -> None:
        self.inner = inner

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        return self.inner.error(value, path, catalog)


class _Object(_Shape):
    """An object with known fields (absent unless :class:`_Required`); other fields pass."""

    def __init__(self, fields: Mapping[str, _Shape]) -> None:
        self.fields = fields

    def error(self, value: Any, path: str, catalog: Mapping[str, Any]) -> str | None:
        if not isinstance(value, dict):
            return _expected(path, "an object", value)
        for name, shape in self.fields.items():
            where = _field(path, name)
            if name not in value:
                if isinstance(shape, _Required):
                    return f"{where}: missing, expected {_what(shape.inner)}"
                continue
            found = shape.error(value[name], where, catalog)
            if found:
                return found
        return None


def _what(shape: _Shape) -> str:
    if isinstance(shape, _Type):
        return shape.what
    if isinstance(shape, _OneOf):
        return "one of " + ", ".join(str(c) for c in shape.choices)
    return "a list" if isinstance(shape, _List) else "an object"


# What html.py's _evidence and junit.py's _evidence_text read of one finding's evidence.
_EVIDENCE = _Object(
    {
        "case": STR,
        "attempt": INT,
        "expected": ANY,
        "actual": ANY,
        "message": STR,
        "event_index": OPTIONAL_INT,
        "path": STR,
        "request": _Nullable(_Object({"method": STR, "path": STR, "body": STR})),
        "response": _Nullable(
            _Object(
                {
                    "status": OPTIONAL_INT,
                    "content_type": STR,
                    "events": OPTIONAL_INT,
                    "error": OPTIONAL_STR,
                    "body": STR,
                }
            )
        ),
        "events": _List(_Object({"index": INT, "event": STR})),
    }
)

# One check's outcome on one target (targets.NAME.checks.ID).
_OUTCOME = _Object(
    {
        "outcome": _Required(_OneOf(OUTCOMES)),
        "level": STR,
        "reason": STR,
        "evidence": _List(_EVIDENCE),
        "evidence_omitted": INT,
    }
)

# One case of a target (junit.py's _cases_suite, html.py's count).
_CASE = _Object(
    {
        "id": STR,
        "outcome": _OneOf(CASE_OUTCOMES),
        "duration_s": NUMBER,
        "violations": _List(CHECK_ID),
        "error": OPTIONAL_STR,
        "skip_reason": STR,
        "retried": _List(STR),
        # added with honest retries (docs/cli.md): each optional, so older indexes still load
        "passed_attempt": OPTIONAL_INT,
        "runs": INT,
        "not_judged": STR,
        "attempt_log": _List(
            _Object(
                {
                    "run": INT,
                    "attempt": INT,
                    "result": STR,
                    "reason": STR,
                    "violations": _List(STR),
                }
            )
        ),
    }
)

_TARGET = _Object(
    {
        # what was run against; junit.py takes status and reason from here too where they are
        "target": _Object(
            {
                "base_url": STR,
                "model": STR,
                "profiles": _List(STR),
                "status": STR,
                "reason": STR,
            }
        ),
        "status": _Required(STR),  # ran | unreachable | broken
        "reason": STR,
        "exit_code": _OneOf((EXIT_OK, EXIT_VIOLATIONS, EXIT_BROKEN)),
        "duration_s": NUMBER,
        "summary": _Map(INT),
        "checks": _Map(_OUTCOME, check_ids=True),
        "cases": _List(_CASE),
    }
)

# The document (its `format` is load_index's to check). `checks` comes before `targets`: the
# check IDs a target names are looked up in it.
_INDEX = _Object(
    {
        "generated_at": STR,
        "tool": _Object({"name": STR, "version": STR}),
        "strict": BOOL,
        "checks": _Required(
            _Map(_Object({"level": STR, "requirement": STR, "clause": STR, "anchor": STR}))
        ),
        "targets": _Required(_Map(_TARGET)),
    }
)


def shape_errors(doc: Any) -> list[str]:
    """Where ``doc`` is not an index the reports can render: ``[]``, or the first problem, one
    line naming the field (``targets.mock.checks.stream.x: expected an object, got 5``)."""
    checks = doc.get("checks") if isinstance(doc, dict) else None
    catalog = checks if isinstance(checks, dict) else {}
    found = _INDEX.error(doc, "", catalog)
    return [found] if found else []


def _field(path: str, name: Any) -> str:
    """``path.name``; a name that would not read as one word (a space, a bracket, a newline) is
    quoted: ``targets["my target"]``."""
    text = str(name)
    if text and text.isprintable() and not any(c.isspace() or c in '[]"' for c in text):
        return f"{path}.{text}" if path else text
    return f"{path}[{_shown(text)}]"


def _expected(path: str, what: str, value: Any) -> str:
    return f"{path or '(the document)'}: expected {what}, got {_shown(value)}"


def _shown(value: Any) -> str:
    """``value`` in a few characters, on one line (its JSON text, as schema issues show it)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return short_json(value, 40)
