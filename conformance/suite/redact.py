"""Secrets never reach a report: every text written (console, JSON, JUnit, HTML) passes here.

The suite keeps no request headers in its evidence, so the API key can only leak if the *target*
echoes it back — in an error message ("Incorrect API key provided: sk-…") or in generated text.
:class:`Redactor` replaces each secret, wherever it appears, before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["REDACTED", "Redactor"]

REDACTED = "[REDACTED]"
_MIN_SECRET = 4  # shorter values would redact ordinary text; such keys are not real keys


class Redactor:
    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        # Longest first, so that a secret containing another is replaced whole.
        unique = {s for s in secrets if s and len(s) >= _MIN_SECRET}
        self.secrets = sorted(unique, key=len, reverse=True)

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= _MIN_SECRET and secret not in self.secrets:
            self.secrets = sorted([*self.secrets, secret], key=len, reverse=True)

    def text(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """A JSON value with every string redacted (keys included)."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value
