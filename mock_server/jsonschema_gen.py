"""Deterministic JSON values that are valid for a JSON Schema (tool arguments, structured output).

``generate(schema, rng)`` walks the schema and draws every choice from ``rng`` (a
:class:`random.Random`), so the same schema and seed give the same value.

Supported (drafts 4 to 2020-12 as tool schemas use them):

- ``type`` (a name or a list; ``"null"`` is chosen only when nothing else is allowed), OpenAPI
  ``nullable``, boolean schemas (``true`` → a string; ``false`` → :class:`SchemaError`);
- ``enum``, ``const``, ``default`` is ignored (it need not be valid);
- objects: ``properties``, ``required`` (always present) plus about half of the optional properties
  (none past the nesting limit), ``additionalProperties`` (``false``; a schema, used when
  ``minProperties`` asks for more keys), ``minProperties`` / ``maxProperties``;
- arrays: ``items`` (a schema, or a list as in draft 4), ``prefixItems``, ``minItems`` /
  ``maxItems``, ``uniqueItems``;
- strings: plausible values for common property names (``city``, ``location``, ``name``, …),
  ``minLength`` / ``maxLength``, ``format`` ``date-time``, ``date``, ``time``,
  ``email``, ``uri`` / ``url`` / ``uri-reference``, ``uuid``, ``hostname``, ``ipv4``, ``ipv6``;
- numbers and integers: ``minimum`` / ``maximum``, ``exclusiveMinimum`` / ``exclusiveMaximum``
  (draft-4 booleans and draft-6 numbers), ``multipleOf``;
- ``$ref`` to ``#``, ``#/$defs/…``, ``#/definitions/…`` or any local JSON pointer (recursion is
  cut at a depth limit by taking the smallest value a branch allows);
- ``anyOf`` / ``oneOf`` (a branch chosen by ``rng``; for ``oneOf`` the value is checked against the
  other branches and another branch tried if it matches more than one), ``allOf`` (merged),
  ``not`` (checked, other branches tried).

- ``pattern``: drawn by :mod:`mock_server.grammar_gen` as a grammar-constrained model writes it,
  the pattern read in LLGuidance's regex dialect (Rust ``regex``, the one OpenAI's strict schemas
  run on), its ``^``/``$`` anchors taken off (JSON Schema's ``pattern`` searches; the whole
  drawn text matching is one way to contain a match); each draw checked with ``re.search`` and
  the length bounds, a few draws tried, then :class:`SchemaError`.

Every value :func:`generate` returns is checked against its schema first (``conforms``, a
few draws tried, then ``SchemaError``): a value the schema refuses is never sent.

Not supported: ``patternProperties``, ``if``/``then``/``else``, ``dependentRequired`` /
``dependentSchemas``, ``contains``, remote ``$ref``. :func:`~mock_server.jsonschema_check.conforms`
(in :mod:`mock_server.jsonschema_check`, with :class:`~mock_server.jsonschema_check.SchemaError`
and ``$ref`` resolution) is the small checker used for ``oneOf``/``not`` and for the final check;
it knows the same keywords.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mock_server.jsonschema_check import SchemaError, conforms, pattern_finds, pointer, within

__all__ = ["NOT_GIVEN", "generate"]

MAX_DEPTH = 6
_WORDS = (
    "alpha", "amber", "harbor", "maple", "orbit", "pepper", "quartz", "river", "signal", "tundra",
    "velvet", "willow", "cobalt", "ember", "falcon", "garnet",
)  # fmt: skip


# Plausible strings for common property names (matched as a substring of the lower-cased name),
# so tool calls read like a model's: {"city": "Paris"} rather than {"city": "harbor"}.
_NAMED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("city", ("Paris", "Tokyo", "Lagos", "Lima", "Oslo", "Toronto")),
    ("location", ("Paris, France", "Tokyo, Japan", "Lima, Peru", "Oslo, Norway")),
    ("country", ("France", "Japan", "Peru", "Norway")),
    ("timezone", ("Europe/Paris", "Asia/Tokyo", "America/Lima")),
    ("tz", ("Europe/Paris", "Asia/Tokyo", "America/Lima")),
    ("currency", ("EUR", "JPY", "USD")),
    ("language", ("en", "fr", "ja")),
    ("name", ("Ada", "Grace", "Alan", "Edsger")),
    ("query", ("weather today", "opening hours", "latest news")),
)


NOT_GIVEN: Any = object()
"""What a ``given`` hook returns for a property it has no value for."""

Given = Callable[[str, Mapping[str, Any]], Any]


def generate(
    schema: Any,
    rng: random.Random,
    *,
    root: Any = None,
    given: Given | None = None,
    required_only: bool = False,
    whole_numbers: bool = False,
) -> Any:
    """A value valid for ``schema``; ``root`` resolves ``$ref`` (defaults to ``schema``).

    For tool arguments as a model writes them (:mod:`mock_server.tool_intent`): ``given(name,
    schema)`` supplies a property's value (or :data:`NOT_GIVEN`; the caller checks it is valid);
    ``required_only`` leaves out the optional properties nothing gave; ``whole_numbers`` draws
    ``number`` values as integers where the bounds allow one (a client may parse them so)."""
    gen = _Gen(rng, schema if root is None else root)
    gen.given, gen.required_only, gen.whole_numbers = given, required_only, whole_numbers
    for _ in range(_DRAWS):
        value = gen.value(schema, 0, "value")
        if conforms(value, schema, gen.root):
            return value
    raise SchemaError(f"no value drawn in {_DRAWS} tries satisfies the schema")


_DRAWS = 4  # whole values drawn before giving up (each is checked against the schema)


class _Gen:
    def __init__(self, rng: random.Random, root: Any) -> None:
        self.rng = rng
        self.root = root
        self.given: Given | None = None
        self.required_only = False
        self.whole_numbers = False

    def property(self, schema: Any, depth: int, name: str) -> Any:
        """An object property's value: the ``given`` one, else drawn."""
        if self.given is not None and isinstance(schema, Mapping):
            value = self.given(name, self.resolve(schema))
            if value is not NOT_GIVEN:
                return value
        return self.value(schema, depth, name)

    def value(self, schema: Any, depth: int, name: str) -> Any:
        if schema is True or schema == {}:
            return self.string({}, name)
        if schema is False:
            raise SchemaError("the schema 'false' admits no value")
        if not isinstance(schema, Mapping):
            raise SchemaError(f"not a schema: {schema!r}")
        schema = self.resolve(schema)
        if "allOf" in schema:
            return self.value(_merge_all(schema, self), depth, name)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            choices = list(schema["enum"])
            if not choices:
                raise SchemaError("an empty 'enum' admits no value")
            return self.rng.choice(choices)
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self.branch(schema, key, depth, name)
        if "not" in schema:
            rest = {k: v for k, v in schema.items() if k != "not"}
            for _ in range(8):
                candidate = self.value(rest, depth, name)
                if not conforms(candidate, schema["not"], self.root):
                    return candidate
            raise SchemaError("could not satisfy 'not'")
        return self.typed(schema, _pick_type(schema, self.rng), depth, name)

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        seen = 0
        while "$ref" in schema:
            target = pointer(self.root, schema["$ref"])
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings} if siblings else target
            seen += 1
            if seen > 32:
                raise SchemaError("$ref cycle without content")
        return schema

    def branch(self, schema: Mapping[str, Any], key: str, depth: int, name: str) -> Any:
        base = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
        branches = list(schema[key])
        order = list(range(len(branches)))
        self.rng.shuffle(order)
        if depth >= MAX_DEPTH:
            # Past the limit prefer branches that cannot recurse (no $ref), to end recursion.
            order.sort(key=lambda i: "$ref" in str(branches[i]))
        for i in order:
            sub = _merge(base, self.resolve(branches[i])) if base else branches[i]
            others = [b for j, b in enumerate(branches) if j != i] if key == "oneOf" else []
            for _attempt in range(4):  # a oneOf value may match a sibling by chance; redraw
                try:
                    candidate = self.value(sub, depth, name)
                except SchemaError:
                    break
                if not any(conforms(candidate, b, self.root) for b in others):
                    return candidate
        raise SchemaError(f"no branch of {key} could be generated")

    def typed(self, schema: Mapping[str, Any], kind: str, depth: int, name: str) -> Any:
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, depth, name)
        if kind == "string":
            return self.string(schema, name)
        if kind == "integer":
            return self.integer(schema)
        if kind == "number":
            return self.number(schema)
        if kind == "boolean":
            return self.rng.random() < 0.5
        return None

    def object(self, schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
        props: Mapping[str, Any] = schema.get("properties") or {}
        required = [k for k in schema.get("required", ()) if isinstance(k, str)]
        out: dict[str, Any] = {}
        max_props = schema.get("maxProperties", math.inf)
        for key in required:
            out[key] = self.property(props.get(key, _extra(schema)), depth + 1, key)
        for key, sub in props.items():
            if key in out or len(out) >= max_props or depth + 1 >= MAX_DEPTH:
                continue
            if self.required_only:
                found = NOT_GIVEN
                if self.given is not None and isinstance(sub, Mapping):
                    found = self.given(key, self.resolve(sub))
                if found is not NOT_GIVEN:
                    out[key] = found
                continue
            if self.rng.random() < 0.5:
                try:
                    out[key] = self.value(sub, depth + 1, key)
                except SchemaError:
                    continue
        extra = schema.get("additionalProperties", True)
        n = 0
        while len(out) < schema.get("minProperties", 0):
            spare = [k for k in props if k not in out]
            if spare:
                out[spare[0]] = self.value(props[spare[0]], depth + 1, spare[0])
            elif extra is not False:
                n += 1
                out[f"extra_{n}"] = self.value(extra, depth + 1, "extra")
            else:
                raise SchemaError("minProperties exceeds the properties allowed")
        return out

    def array(self, schema: Mapping[str, Any], depth: int, name: str) -> list[Any]:
        prefix: Sequence[Any] = schema.get("prefixItems") or ()
        items: Any = schema.get("items", {})
        if isinstance(items, list):  # draft 4 tuple form
            prefix, items = items, schema.get("additionalItems", {})
        lo = int(schema.get("minItems", 0))
        hi = schema.get("maxItems", math.inf)
        if depth + 1 >= MAX_DEPTH:
            count = lo
        else:
            count = self.rng.randint(min(max(lo, 1), hi), min(hi, lo + 2))
        out: list[Any] = []
        for i in range(count):
            sub = prefix[i] if i < len(prefix) else items
            if sub is False:
                break
            for _attempt in range(32):
                item = self.value(sub, depth + 1, name)
                if not schema.get("uniqueItems") or item not in out:
                    out.append(item)
                    break
            else:
                if len(out) >= lo:  # few distinct values exist; stop at a valid length
                    break
                raise SchemaError("could not draw enough unique items")
        return out

    def string(self, schema: Mapping[str, Any], name: str) -> str:
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            return _matching(pattern, schema, self.rng)
        fmt = schema.get("format")
        text = _formatted(fmt, self.rng) if fmt else None
        if text is None:
            named = next((v for key, v in _NAMED if key in name.lower()), None)
            if named is not None:
                text = self.rng.choice(named)
            else:
                text = self.rng.choice(_WORDS) if self.rng.random() < 0.5 else _phrase(self.rng)
        lo = int(schema.get("minLength", 0))
        while len(text) < lo:
            text = f"{text} {self.rng.choice(_WORDS)}"
        hi = schema.get("maxLength")
        return text if hi is None else text[: int(hi)]

    def integer(self, schema: Mapping[str, Any]) -> int:
        lo, hi = _bounds(schema, integer=True)
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            first = math.ceil(lo / step) * step
            if first > hi:
                raise SchemaError("no multiple of multipleOf within bounds")
            return first + step * self.rng.randint(0, min(10, int((hi - first) // step)))
        return self.rng.randint(int(lo), int(hi))

    def number(self, schema: Mapping[str, Any]) -> float | int:
        if self.whole_numbers:
            try:
                whole = self.integer(schema)
            except SchemaError:  # no whole number within the bounds
                whole = None
            step = schema.get("multipleOf")
            if whole is not None and (not step or (whole / step).is_integer()):
                return whole
        step = schema.get("multipleOf")
        if step is not None:
            lo, hi = _bounds(schema, integer=False)
            first = math.ceil(lo / step)
            return float(first * step) if first * step <= hi else self.integer(schema)
        lo, hi = _bounds(schema, integer=False)
        value = round(lo + (hi - lo) * self.rng.random(), 2)
        return min(max(value, lo), hi) if lo <= value <= hi else lo


def _matching(pattern: str, schema: Mapping[str, Any], rng: random.Random) -> str:
    """A string ``pattern`` finds a match in, within the length bounds (module docstring)."""
    from mock_server.grammar_gen import GrammarError
    from mock_server.grammar_gen import generate as generate_text

    body = _unanchored(pattern)
    lo, hi = int(schema.get("minLength", 0)), schema.get("maxLength")
    # The walk's target: a short value, as a model writes one, within the length bounds.
    low = max(lo, 1)
    length = (low, max(low, min(int(hi), _PATTERN_TARGET) if hi is not None else _PATTERN_TARGET))
    why = "no draw within the length bounds"
    for _ in range(_DRAWS * 2):
        try:
            text = generate_text("regex", body, rng, length=length)
        except GrammarError as error:
            raise SchemaError(f"cannot draw a string for pattern {pattern!r}: {error}") from None
        if pattern_finds(pattern, text) and within(len(text), lo, hi):
            return text
        why = f"{text!r} does not match it in Python's regex dialect or length bounds"
    raise SchemaError(f"cannot draw a string for pattern {pattern!r}: {why}")


_PATTERN_TARGET = 16  # the longest target length of a ``pattern`` walk (without maxLength)


def _unanchored(pattern: str) -> str:
    """``pattern`` without a leading ``^`` and a trailing unescaped ``$`` (LLGuidance matches
    the whole text; a JSON Schema pattern searches), where they anchor the whole pattern."""
    body = pattern[1:] if pattern.startswith("^") else pattern
    if body.endswith("$"):
        slashes = len(body[:-1]) - len(body[:-1].rstrip("\\"))
        if slashes % 2 == 0:  # `\$` is a dollar sign, `\\$` a backslash and the end
            body = body[:-1]
    return body


def _pick_type(schema: Mapping[str, Any], rng: random.Random) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        concrete = [k for k in kind if k != "null"]
        return rng.choice(concrete) if concrete else "null"
    if isinstance(kind, str):
        return kind
    # No type: infer from the keywords present, as a validator would accept them.
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if "minimum" in schema or "maximum" in schema:
        return "number"
    return "string"


def _bounds(schema: Mapping[str, Any], *, integer: bool) -> tuple[float, float]:
    lo = schema.get("minimum", -math.inf)
    hi = schema.get("maximum", math.inf)
    ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    eps = 1 if integer else 0.01
    if ex_lo is True:
        lo += eps
    elif isinstance(ex_lo, int | float) and not isinstance(ex_lo, bool):
        lo = max(lo, ex_lo + eps)
    if ex_hi is True:
        hi -= eps
    elif isinstance(ex_hi, int | float) and not isinstance(ex_hi, bool):
        hi = min(hi, ex_hi - eps)
    if lo == -math.inf:
        lo = min(0, hi - 100) if hi != math.inf else 0
    if hi == math.inf:
        hi = lo + 100
    if integer:
        lo, hi = math.ceil(lo), math.floor(hi)
    if lo > hi:
        raise SchemaError("empty numeric range")
    return lo, hi


def _formatted(fmt: str, rng: random.Random) -> str | None:
    n = rng.randrange(1 << 30)
    if fmt == "date-time":
        return f"2025-{n % 12 + 1:02d}-{n % 28 + 1:02d}T{n % 24:02d}:{n % 60:02d}:00Z"
    if fmt == "date":
        return f"2025-{n % 12 + 1:02d}-{n % 28 + 1:02d}"
    if fmt == "time":
        return f"{n % 24:02d}:{n % 60:02d}:00Z"
    if fmt in ("email", "idn-email"):
        return f"{rng.choice(_WORDS)}@example.com"
    if fmt in ("uri", "url", "iri", "uri-reference", "iri-reference"):
        return f"https://example.com/{rng.choice(_WORDS)}"
    if fmt == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if fmt in ("hostname", "idn-hostname"):
        return f"{rng.choice(_WORDS)}.example.com"
    if fmt == "ipv4":
        return f"192.0.2.{n % 254 + 1}"
    if fmt == "ipv6":
        return f"2001:db8::{n % 65535 + 1:x}"
    return None


def _phrase(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(2, 4)))


def _extra(schema: Mapping[str, Any]) -> Any:
    extra = schema.get("additionalProperties", True)
    return {} if extra is True or extra is False else extra


def _merge(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Both schemas at once, for the keywords the generator reads."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = value
        elif key == "properties":
            props = dict(out[key])
            for name, sub in value.items():
                props[name] = _merge(props[name], sub) if name in props else sub
            out[key] = props
        elif key == "required":
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key == "type":
            left = out[key] if isinstance(out[key], list) else [out[key]]
            right = value if isinstance(value, list) else [value]
            both = [t for t in left if t in right or (t == "integer" and "number" in right)]
            both += [t for t in right if t == "integer" and "number" in left and t not in both]
            out[key] = both if len(both) != 1 else both[0]
        elif key in ("minimum", "minLength", "minItems", "minProperties", "exclusiveMinimum"):
            out[key] = max(out[key], value)
        elif key in ("maximum", "maxLength", "maxItems", "maxProperties", "exclusiveMaximum"):
            out[key] = min(out[key], value)
        elif key == "additionalProperties" and value is False:
            out[key] = False
        elif key == "allOf":
            out[key] = [*out[key], *value]
        else:
            out[key] = value
    return out


def _merge_all(schema: Mapping[str, Any], gen: _Gen) -> dict[str, Any]:
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for sub in schema["allOf"]:
        sub = gen.resolve(sub) if isinstance(sub, Mapping) else {}
        if "allOf" in sub:
            sub = _merge_all(sub, gen)
        merged = _merge(merged, sub)
    return merged
