"""What the vendor-matrix harness raises on purpose, one tree::

    Exception
     └── VendorsError             any of the below
          ├── InstallError        also a RuntimeError: a vendor could not be installed as pinned,
          │                       or its venv failed the audit
          └── ServiceError        also a RuntimeError: a service did not come up; the message
                                  carries the tail of its log

Each keeps the builtin base it always had, so every existing ``except RuntimeError`` still catches
it.
"""

from __future__ import annotations

__all__ = ["InstallError", "ServiceError", "VendorsError"]


class VendorsError(Exception):
    """Base of every exception the vendor-matrix harness raises on purpose."""


class InstallError(VendorsError, RuntimeError):
    """A vendor could not be installed as pinned, or its venv failed the audit."""


class ServiceError(VendorsError, RuntimeError):
    """A service did not come up; the message carries the tail of its log."""
