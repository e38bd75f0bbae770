from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mock_server.jsonschema_check import SchemaError, conforms
from mock_server.jsonschema_gen import generate

CORPUS = Path(__file__).parents[1] / "data" / "openai-recorded"


def _function_tools(node: Any) -> Iterator[dict[str, Any]]:
    """Every function tool declaration anywhere in a recorded object."""
    if isinstance(node, dict):
        if node.get("type") == "function" and isinstance(node.get("parameters"), dict):
            yield node
        for value in node.values():
            yield from _function_tools(value)
    elif isinstance(node, list):
        for value in node:
            yield from _function_tools(value)


def _recorded_schemas() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(CORPUS.glob("**/*.json*")):
        lines = path.read_text().splitlines() if path.suffix == ".jsonl" else [path.read_text()]
        for line in filter(str.strip, lines):
            for tool in _function_tools(json.loads(line)):
                key = json.dumps(tool["parameters"], sort_keys=True)
                found.setdefault(key, tool["parameters"])
    return found


RECORDED = _recorded_schemas()


def test_the_corpus_has_tool_schemas() -> None:
    assert len(RECORDED) >= 8


def _check(schema: Any, seeds: range = range(25)) -> None:
    validator_cls = jsonschema.validators.validator_for(schema)
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
    for seed in seeds:
        value = generate(schema, random.Random(seed))
        errors = [e.message for e in validator.iter_errors(value)]
        assert not errors, (seed, value, errors)
        assert conforms(value, schema, schema)


@pytest.mark.parametrize("schema", list(RECORDED.values()), ids=list(range(len(RECORDED))))
def test_recorded_tool_schemas(schema: dict[str, Any]) -> None:
    _check(schema)


HARD: dict[str, Any] = {
    "nested-refs-defs": {
        "type": "object",
        "properties": {
            "owner": {"$ref": "#/$defs/person"},
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": ["a", "b", "c"]},
                "minItems": 2,
                "maxItems": 3,
                "uniqueItems": True,
            },
        },
        "required": ["owner", "tags"],
        "additionalProperties": False,
        "$defs": {
            "person": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 3, "maxLength": 5},
                    "email": {"type": "string", "format": "email"},
                    "born": {"type": "string", "format": "date"},
                    "seen": {"type": "string", "format": "date-time"},
                    "home": {"type": "string", "format": "uri"},
                    "id": {"type": "string", "format": "uuid"},
                },
                "required": ["name", "email", "born", "seen", "home", "id"],
                "additionalProperties": False,
            }
        },
    },
    "definitions-draft7": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"n": {"type": "integer", "minimum": 5, "maximum": 7}},
        "type": "object",
        "properties": {"x": {"$ref": "#/definitions/n"}, "k": {"const": "fixed"}},
        "required": ["x", "k"],
    },
    "recursive-tree": {
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"type": "number"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["value", "children"],
                "additionalProperties": False,
            }
        },
    },
    "any-one-all": {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}]},
            "b": {
                "oneOf": [
                    {"type": "integer", "multipleOf": 5},
                    {"type": "integer", "multipleOf": 3},
                ]
            },
            "c": {
                "allOf": [
                    {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
                    {"properties": {"q": {"type": "boolean"}}, "required": ["q"]},
                ]
            },
        },
        "required": ["a", "b", "c"],
    },
    "type-lists-and-nullable": {
        "type": "object",
        "properties": {
            "t": {"type": ["string", "null"]},
            "u": {"type": ["integer", "boolean"]},
            "n": {"type": "null"},
        },
        "required": ["t", "u", "n"],
        "additionalProperties": False,
    },
    "numbers": {
        "type": "object",
        "properties": {
            "lo": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "i": {"type": "integer", "minimum": -3, "maximum": -1},
            "m": {"type": "integer", "multipleOf": 7, "minimum": 10},
        },
        "required": ["lo", "i", "m"],
    },
    "additional-properties-schema": {
        "type": "object",
        "additionalProperties": {"type": "integer"},
        "minProperties": 2,
    },
    "tuple-items": {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "minItems": 2,
        "maxItems": 2,
    },
    "empty-and-true": {
        "type": "object",
        "properties": {"any": {}, "t": True},
        "required": ["any", "t"],
    },
    "not": {"type": "integer", "minimum": 0, "maximum": 3, "not": {"const": 0}},
    "openai-strict-style": {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"explanation": {"type": "string"}, "output": {"type": "string"}},
                    "required": ["explanation", "output"],
                    "additionalProperties": False,
                },
            },
            "final_answer": {"type": "string"},
        },
        "required": ["steps", "final_answer"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize("name", sorted(HARD))
def test_hard_schemas(name: str) -> None:
    _check(HARD[name])


def test_same_seed_same_value() -> None:
    schema = HARD["nested-refs-defs"]
    assert generate(schema, random.Random(3)) == generate(schema, random.Random(3))


def test_false_schema_is_an_error() -> None:
    with pytest.raises(SchemaError):
        generate(False, random.Random(0))
