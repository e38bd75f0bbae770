"""Sealed state: the opaque ``encrypted_content`` of reasoning and compaction items.

A client that keeps no server state (``store: false``; Codex CLI always) gets its reasoning back as
``encrypted_content`` when it asks (``include: ["reasoning.encrypted_content"]``) and sends it with
the next turn; a compaction item carries the history it replaced the same way. The blob is an
AEAD seal (AES-GCM-SIV from ``cryptography``) of the item's payload (JSON), so a client can neither
read nor alter it, and only a server holding the same key opens it.

* **Key**: HKDF-SHA256 of a secret the caller hands in: a configured secret
  (``--state-secret-env VAR`` on ``responses-mock`` and ``responses-reference``), so replicas
  behind one store share it, or one the caller derives from what makes its output reproducible
  (the mock derives it from its ``--seed``). The reference without one draws
  a random key at start: its blobs do not survive a restart.
* **Nonce**: derived from the key and the sealed bytes (HMAC-SHA256, 96 bits). The same payload
  seals to the same blob, which keeps the mock deterministic; AES-GCM-SIV is built for this
  (nonce-misuse resistant: a repeated nonce reveals only that two plaintexts are equal).
* **Binding**: the item kind (``reasoning`` / ``compaction``) is the associated data, so a
  reasoning blob cannot pose as a compaction.
* **Format**: ``base64url(version 0x01 ‖ nonce ‖ ciphertext+tag)``, unpadded.

A blob that fails to open — altered, truncated, not ours, made under another key — is OpenAI's
400: ``invalid_request_error``, ``code: "invalid_encrypted_content"``, "The encrypted content for
item ID could not be verified. Reason: Encrypted content could not be decrypted or parsed." (the
words OpenAI answers with: openai/codex#8119, #8128, #35334).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from typing import Any, Literal

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .errors import APIError

__all__ = ["SealKind", "Sealer", "invalid_encrypted_content"]

SealKind = Literal["reasoning", "compaction"]
_VERSION = b"\x01"
_NONCE = 12


def invalid_encrypted_content(item_id: str | None) -> APIError:
    where = f" for item {item_id}" if item_id else ""
    return APIError(
        400,
        f"The encrypted content{where} could not be verified. Reason: Encrypted content could "
        "not be decrypted or parsed.",
        param=None,
        code="invalid_encrypted_content",
    )


class Sealer:
    """Seals and opens item payloads under one key (see the module docstring)."""

    def __init__(self, secret: bytes) -> None:
        keys = HKDF(
            algorithm=hashes.SHA256(), length=64, salt=None, info=b"responses-state-seal v1"
        ).derive(secret)
        self._aead = AESGCMSIV(keys[:32])
        self._nonce_key = keys[32:]

    @classmethod
    def random(cls) -> Sealer:
        return cls(os.urandom(32))

    def seal(self, kind: SealKind, payload: Any) -> str:
        data = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
        aad = kind.encode()
        nonce = hmac.new(self._nonce_key, aad + b"\x00" + data, hashlib.sha256).digest()[:_NONCE]
        sealed = _VERSION + nonce + self._aead.encrypt(nonce, data, aad)
        return base64.urlsafe_b64encode(sealed).rstrip(b"=").decode()

    def open(self, kind: SealKind, blob: str, item_id: str | None = None) -> Any:
        """The payload sealed in ``blob``; :func:`invalid_encrypted_content` if it is not one."""
        try:
            raw = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
        except (binascii.Error, ValueError):
            raise invalid_encrypted_content(item_id) from None
        if len(raw) < 1 + _NONCE + 16 or raw[:1] != _VERSION:
            raise invalid_encrypted_content(item_id)
        nonce, sealed = raw[1 : 1 + _NONCE], raw[1 + _NONCE :]
        try:
            data = self._aead.decrypt(nonce, sealed, kind.encode())
            return orjson.loads(data)
        except (InvalidTag, orjson.JSONDecodeError):
            raise invalid_encrypted_content(item_id) from None
