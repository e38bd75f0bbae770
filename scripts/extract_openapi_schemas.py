"""Extract the judge's schemas from OpenAI's OpenAPI document.

Reads ``openai-openapi.yaml`` (openai/openai-openapi, MIT; SPEC.md names it [OAPI]) and writes
``conformance/schema/openapi-subset.json``: the transitive closure of the component schemas reachable
from the roots below, with documentation-only keywords dropped, keys sorted, and a header that records
the source document, its commit and its license. The output is deterministic: running the script twice
on the same document writes the same bytes. The JSON is committed; the 3 MB YAML is not shipped.

Usage (from the repository root)::

    .venv/bin/python scripts/extract_openapi_schemas.py [path/to/openai-openapi.yaml]

The default path is ``../shared/spec/openai-openapi.yaml`` relative to the repository root.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # PyYAML: a dev-only need of this script

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO_ROOT.parent / "shared" / "spec" / "openai-openapi.yaml"
DEFAULT_OUTPUT = REPO_ROOT / "conformance" / "schema" / "openapi-subset.json"

SOURCE_REPOSITORY = "openai/openai-openapi"
SOURCE_PATH = "openapi.yaml"
SOURCE_COMMIT = "f85dbe2"

# SPEC §1, §3, §4: the stream events, the Response object (non-stream body, lifecycle events,
# retrieve, cancel), the error body, and the input_items list; for state (docs/state.md): the result of
# POST /v1/responses/compact (`CompactResource`), and the Conversations API's conversation, its
# item list and the body of its delete. The document has no schema for the
# body of DELETE /v1/responses/{id} (its 200 carries only an example, `{id, object, deleted}`), so
# there is no root for it.
ROOTS = (
    "ResponseStreamEvent",
    "Response",
    "ErrorResponse",
    "ResponseItemList",
    "CompactResource",
    "ConversationResource",
    "ConversationItemList",
    "DeletedConversationResource",
)

# Keywords that only document a schema; the judge never reads them. Dropped to keep the shipped
# file small (they hold most of the document's bytes). Everything else is kept verbatim.
DOC_KEYWORDS = frozenset({"description", "example", "examples", "x-oaiMeta"})

# JSON Schema keywords whose value is a schema, a list of schemas, or a map of schemas. Only these
# are walked; the values of `enum`, `const`, `default`, `required`, … are data and kept as they are
# (a property may well be *named* `description` or `format`).
_SCHEMA_VALUED = frozenset({"items", "additionalProperties", "propertyNames", "not"})
_SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf"})
_SCHEMA_MAPS = frozenset({"properties"})
_REF_PREFIX = "#/components/schemas/"


def strip_docs(schema: Any) -> Any:
    """Return ``schema`` without documentation keywords, walking only schema positions."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DOC_KEYWORDS:
            continue
        if key in _SCHEMA_VALUED:
            out[key] = strip_docs(value)
        elif key in _SCHEMA_LISTS:
            out[key] = [strip_docs(v) for v in value]
        elif key in _SCHEMA_MAPS:
            out[key] = {name: strip_docs(v) for name, v in value.items()}
        else:
            out[key] = value
    return out


def iter_refs(schema: Any) -> Iterator[str]:
    """Yield the component name of every ``$ref`` inside ``schema``."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref":
                if not isinstance(value, str) or not value.startswith(_REF_PREFIX):
                    raise ValueError(f"unsupported $ref {value!r}")
                yield value[len(_REF_PREFIX) :]
            else:
                yield from iter_refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from iter_refs(value)


def closure(schemas: dict[str, Any], roots: tuple[str, ...]) -> list[str]:
    """The names of every component schema reachable from ``roots``, sorted."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        if name not in schemas:
            raise KeyError(f"$ref to unknown schema {name!r}")
        seen.add(name)
        stack.extend(iter_refs(schemas[name]))
    return sorted(seen)


def check_json_data(value: Any, where: str) -> None:
    """Fail on YAML-only scalars (dates, YAML 1.1 booleans in string enums) before writing JSON."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where}: non-string key {key!r}")
            check_json_data(item, f"{where}.{key}")
        enum = value.get("enum")
        if value.get("type") == "string" and isinstance(enum, list):
            for item in enum:
                if not isinstance(item, str):
                    raise TypeError(f"{where}: string enum holds {item!r}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_json_data(item, f"{where}[{i}]")
    elif value is not None and not isinstance(value, (str, int, float, bool)):
        raise TypeError(f"{where}: {type(value).__name__} is not JSON")


def python_name(name: str) -> str:
    """A component name the judge's code generator can use (it writes one function per schema):
    OpenAI's document has names such as ``MessagePhase-2``; ``-`` becomes ``_``."""
    renamed = name.replace("-", "_")
    if not renamed.isidentifier():
        raise ValueError(f"schema name {name!r} is not usable as a Python identifier")
    return renamed


def rename_refs(schema: Any) -> Any:
    """``schema`` with every ``$ref`` rewritten to :func:`python_name`."""
    if isinstance(schema, dict):
        return {
            key: _REF_PREFIX + python_name(value[len(_REF_PREFIX) :])
            if key == "$ref" and isinstance(value, str)
            else rename_refs(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [rename_refs(value) for value in schema]
    return schema


def extract(document: dict[str, Any], commit: str) -> dict[str, Any]:
    schemas = document["components"]["schemas"]
    names = closure(schemas, ROOTS)
    subset = {python_name(name): rename_refs(strip_docs(schemas[name])) for name in names}
    if len(subset) != len(names):
        raise ValueError("two schema names collide once made Python identifiers")
    check_json_data(subset, "schemas")
    info = document.get("info", {})
    # "$comment" and "$source" sort before "schemas", so the header opens the file.
    return {
        "$comment": (
            f"Extracted from {SOURCE_REPOSITORY} {SOURCE_PATH} at commit {commit}, "
            "Copyright OpenAI, MIT License. Generated by scripts/extract_openapi_schemas.py; "
            "do not edit by hand."
        ),
        "$source": {
            "repository": SOURCE_REPOSITORY,
            "path": SOURCE_PATH,
            "commit": commit,
            "license": "MIT",
            "copyright": "OpenAI",
            "openapi": document.get("openapi"),
            "info_version": info.get("version"),
            "roots": list(ROOTS),
            "dropped_keywords": sorted(DOC_KEYWORDS),
            "generated_by": "scripts/extract_openapi_schemas.py",
            "notes": [
                "DELETE /v1/responses/{response_id} has no response schema in the document "
                "(its 200 shows only the example {id, object: 'response', deleted: true}).",
                "Schema names that are not Python identifiers have '-' replaced by '_' "
                "(MessagePhase-2 is MessagePhase_2 here).",
            ],
        },
        "schemas": subset,
    }


def render(subset: dict[str, Any]) -> str:
    return json.dumps(subset, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write conformance/schema/openapi-subset.json from OpenAI's OpenAPI YAML.",
    )
    parser.add_argument(
        "source",
        nargs="?",
        type=Path,
        default=DEFAULT_SOURCE,
        help=f"the OpenAPI YAML (default: {DEFAULT_SOURCE})",
    )
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument(
        "--commit",
        default=SOURCE_COMMIT,
        help=f"the {SOURCE_REPOSITORY} commit the YAML comes from (default: {SOURCE_COMMIT})",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if the output file differs from what would be written",
    )
    args = parser.parse_args(argv)

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with args.source.open(encoding="utf-8") as fh:
        document = yaml.load(fh, Loader=loader)
    text = render(extract(document, args.commit))
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    count = len(json.loads(text)["schemas"])
    print(f"wrote {args.output} ({count} schemas, {len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
