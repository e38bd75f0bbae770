"""Secrets never reach a report: every text written (console, JSON, JUnit, HTML) passes here.

The suite keeps no request headers in its evidence, so the API key can only leak if the *target*
echoes it back — in an error message ("Incorrect API key provided: sk-…"), in generated text (split
across deltas too), base64- or URL-encoded. :class:`Redactor` (:mod:`conformance.redaction`, shared
with the load tool) replaces each secret, in each of those forms, before anything is written.
"""

from __future__ import annotations

from ..redaction import REDACTED, Redactor

__all__ = ["REDACTED", "Redactor"]
