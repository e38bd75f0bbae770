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
and the caller takes the ``dict`` path, which is the reference. A *closed* decoder
(``closed=True``, the fast path's) also refuses any key outside the schema's properties, the
caller's ``also`` and the strings it tolerates (``obfuscation``), at every level: what it gives nests
only as deep as the schema's types, so its caller need not look for JSON nested past the judge's
bound.

The empty result is one shared, immutable list (the success path allocates nothing); do not mutate a
result — copy it with ``list(...)`` first.

The package: :mod:`.relaxations` (the document and its patches), :mod:`.lowering` (schemas to an
IR), :mod:`.predicates` (generated yes/no code), :mod:`.decoders` (typed decoders),
:mod:`.interpreter` (issues with paths), :mod:`.issues` (the result), :mod:`.jsontypes` (JSON types),
:mod:`.validator` (the façade).
"""

from __future__ import annotations

from .interpreter import _Checker as _Checker  # for the agreement test (tests/conformance/schema/)
from .issues import IssueKind, SchemaIssue
from .relaxations import OPENRESPONSES_RELAXATIONS, RELAXATIONS, Relaxation, load_document
from .validator import OPENRESPONSES_SCHEMAS, SCHEMAS, SchemaValidator

__all__ = [
    "OPENRESPONSES_RELAXATIONS",
    "OPENRESPONSES_SCHEMAS",
    "RELAXATIONS",
    "SCHEMAS",
    "IssueKind",
    "Relaxation",
    "SchemaIssue",
    "SchemaValidator",
    "load_document",
]
