"""The lowered schema against an independent implementation: `jsonschema` (Draft 2019-09).

The judge compiles [OAPI]'s schemas its own way (conformance/schema: lowering, generated
predicates, an interpreter). Here `jsonschema` validates the same component schemas — the packaged
subset with SPEC §1a's relaxations, as `SCHEMAS.schemas()` gives them — on the same instances: every
event, body and error of the recorded corpus, and seeded mutants of each (a key dropped, a value
of another type, out of an enumeration, a bound broken). Both must say *valid* or *invalid*
alike, and the interpreter must report issues exactly when the predicate refuses.

The judge's documented departures from JSON Schema (conformance/schema, "Supported") are
applied to the copy `jsonschema` gets, each named below; nothing else is adjusted:

- ``additionalProperties: false`` is ignored (unknown fields are always allowed, SPEC §1);
- ``oneOf`` is *any of* (OpenAI's unions overlap);
- a schema with ``properties`` and no ``type`` is an object;
- ``$recursiveRef: "#"`` is the component that holds it (``CompoundFilter``);
- ``integer`` is a JSON integer token: ``3.0`` is none (jsonschema counts it), so no mutant
  writes an integral float.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest

from conformance.schema import SCHEMAS

CORPUS = Path(__file__).parents[2] / "tests" / "data" / "openai-recorded"
REF = "#/components/schemas/"


def _for_jsonschema(schemas: dict[str, Any]) -> dict[str, Any]:
    def fix(node: Any, owner: str) -> Any:
        if isinstance(node, list):
            return [fix(n, owner) for n in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: fix(sub, owner) for name, sub in value.items()}
            elif key == "oneOf":
                out["anyOf"] = fix(value, owner)
            elif key == "additionalProperties" and value is False:
                continue
            elif key == "$recursiveRef":
                out["$ref"] = REF + owner
            elif key == "$recursiveAnchor":
                continue
            else:
                out[key] = fix(value, owner)
        if "properties" in out and "type" not in out:
            out["type"] = "object"
        return out

    return {name: fix(schema, name) for name, schema in schemas.items()}


@pytest.fixture(scope="module")
def reference() -> dict[str, jsonschema.protocols.Validator]:
    components = _for_jsonschema(copy.deepcopy(SCHEMAS.schemas()))
    validators = {}
    for name in ("ResponseStreamEvent", "Response", "ErrorResponse"):
        root = {"$ref": REF + name, "components": {"schemas": components}}
        validators[name] = jsonschema.Draft201909Validator(root)
    return validators


def _instances() -> Iterator[tuple[str, str, Any]]:
    for path in sorted((CORPUS / "streams").glob("*.jsonl")):
        for n, line in enumerate(path.read_bytes().splitlines()):
            if line.strip():
                yield "ResponseStreamEvent", f"{path.name}:{n}", orjson.loads(line)
    for path in sorted((CORPUS / "bodies").glob("*.json")):
        yield "Response", path.name, orjson.loads(path.read_bytes())
    for path in sorted((CORPUS / "errors").glob("*.json")):
        body = orjson.loads(path.read_bytes())
        if isinstance(body, dict) and "error" in body:
            yield "ErrorResponse", path.name, body


def _paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 0) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if depth >= 6:
        return
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _paths(sub, (*prefix, key), depth + 1)
    elif isinstance(value, list):
        for i, sub in enumerate(value[:3]):
            yield from _paths(sub, (*prefix, i), depth + 1)


_REPLACEMENTS: tuple[Any, ...] = (
    None,
    True,
    0,
    -1,
    2.5,
    "",
    "x" * 70,
    "not_a_documented_value",
    [],
    [1],
    {},
    {"type": "unknown"},
)


def _mutants(value: Any, rng: random.Random, count: int) -> Iterator[Any]:
    paths = [p for p in _paths(value) if p]
    for path in rng.sample(paths, min(count, len(paths))):
        mutant = copy.deepcopy(value)
        parent = mutant
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.3:
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(_REPLACEMENTS)
        yield mutant


def _agree(
    reference: dict[str, jsonschema.protocols.Validator], name: str, where: str, value: Any
) -> bool:
    ours = SCHEMAS.validate(name, value)
    theirs = reference[name].is_valid(value)
    assert (not ours) == theirs, (where, name, [i for i in ours][:3], value)
    return theirs


def test_lowered_schema_agrees_with_jsonschema_on_the_corpus_and_its_mutants(
    reference: dict[str, jsonschema.protocols.Validator],
) -> None:
    rng = random.Random(12)
    seen = {True: 0, False: 0}
    originals = 0
    for name, where, value in _instances():
        originals += 1
        seen[_agree(reference, name, where, value)] += 1
        # Deltas are many and alike: a few mutants each; other instances more.
        count = 1 if ".delta" in str(value.get("type", "")) else 6
        if ".delta" in str(value.get("type", "")) and rng.random() < 0.8:
            continue
        for mutant in _mutants(value, rng, count):
            seen[_agree(reference, name, f"{where} (mutant)", mutant)] += 1
    assert originals > 5000
    # Both verdicts were reached many times: the comparison is not one-sided.
    assert seen[True] > 1000 and seen[False] > 300, seen


def test_the_departures_are_real(reference: dict[str, jsonschema.protocols.Validator]) -> None:
    # Each adjustment above covers a difference that exists: without it, jsonschema disagrees.
    plain = {
        name: jsonschema.Draft201909Validator(
            {"$ref": REF + name, "components": {"schemas": SCHEMAS.schemas()}}
        )
        for name in ("ErrorResponse",)
    }
    body = {"error": {"message": "m", "type": "t", "param": None, "code": None}}
    assert not SCHEMAS.validate("ErrorResponse", body)
    assert plain["ErrorResponse"].is_valid(body) and reference["ErrorResponse"].is_valid(body)
    # `3.0` for an integer: jsonschema calls it an integer, the judge does not (Rust's serde and
    # Go's encoding/json refuse it too), which is why no mutant writes one.
    event = {
        "type": "response.output_text.delta",
        "sequence_number": 3.0,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "x",
        "logprobs": [],
    }
    assert SCHEMAS.validate("ResponseStreamEvent", event)
    assert reference["ResponseStreamEvent"].is_valid(event)
