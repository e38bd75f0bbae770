"""Secrets never reach anything the toolkit writes: the reusable redactor (issue #14).

The byte-level primitives moved to the neutral package :mod:`cassettes.redaction` (issue #17), so
that the mock's ``--record`` (which may not import the judge) redacts exactly as the judge's
reports do; this module keeps the judge's public names.
"""

from __future__ import annotations

from cassettes.redaction import REDACTED, Redactor, secret_forms

__all__ = ["REDACTED", "Redactor", "secret_forms"]
