"""The judge's public API: what `import conformance` gives, and the import paths users rely on."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import conformance


def test_import_conformance_registers_every_check() -> None:
    # In a fresh interpreter: nothing else imported first (the live catalogue used to register
    # only once `conformance.cli` was imported).
    code = (
        "import sys, conformance\n"
        "n = len(conformance.REGISTRY)\n"
        "live = sum(i.startswith('live.') for i in conformance.REGISTRY)\n"
        "import conformance.cli, conformance.suite.probe\n"
        "print(n, live, len(conformance.REGISTRY))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    on_import, live, after_everything = map(int, out)
    assert live > 0
    assert on_import == after_everything


def test_all_names_exist() -> None:
    for name in conformance.__all__:
        assert getattr(conformance, name) is not None, name
    assert sorted(conformance.__all__) == sorted(set(conformance.__all__))


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("conformance.validator", ["StreamValidator", "PROFILES"]),
        ("conformance.schema", ["SCHEMAS", "SchemaIssue", "SchemaValidator", "RELAXATIONS"]),
        ("conformance.schema", ["Relaxation", "load_document"]),
        ("conformance.sse", ["SSEDecoder", "SSEEvent", "SSELimitError", "decode_sse"]),
        ("conformance.sse.framing", ["SSEStreamValidator", "parse_json", "JSONDepthError"]),
        ("conformance.sse.framing", ["DEFAULT_MAX_EVENTS", "DEFAULT_MAX_EVENT_BYTES"]),
        ("conformance.bodies.objects", ["validate_response_body", "validate_error_body"]),
        ("conformance.catalog.registry", ["REGISTRY", "Level", "Violation", "Check", "failing"]),
        ("conformance.offline.recorded", ["check_file", "check_bytes", "FileVerdict"]),
    ],
)
def test_public_import_paths_keep_working(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)
    for name in names:
        assert hasattr(imported, name), f"{module}.{name}"
        assert name in getattr(imported, "__all__", [name]), f"{module}.__all__ lacks {name}"


def test_one_stream_validator_class() -> None:
    from conformance.validator import StreamValidator
    from conformance.validator.core import StreamValidator as Core

    assert StreamValidator is conformance.StreamValidator is Core
