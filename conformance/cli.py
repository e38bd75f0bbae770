"""Placeholder until the CLI lands."""

from __future__ import annotations


def main() -> int:
    raise SystemExit("responses-conformance: not yet available")
