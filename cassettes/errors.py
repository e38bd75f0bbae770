"""What the cassettes package raises on purpose, one tree::

    Exception
     └── CassettesError           any of the below (named for the package)
          ├── CassetteError       also a ValueError: a cassette file that cannot be read; the
          │                       message is one line (``file:line: what``)
          └── TooLarge            :func:`cassettes.reader.read_at_most` past its limit; the
                                  message says by how much, if known

Each keeps the builtin base it always had, so an ``except ValueError`` that caught a
:class:`CassetteError` still does, and nothing new catches :class:`TooLarge`. ``OSError`` from the
file system is passed through as it comes, not wrapped.
"""

from __future__ import annotations

__all__ = ["CassetteError", "CassettesError", "TooLarge"]


class CassettesError(Exception):
    """Base of every exception the cassettes package raises on purpose."""


class CassetteError(CassettesError, ValueError):
    """A cassette file that cannot be read; the message is one line (``file:line: what``)."""


class TooLarge(CassettesError):
    """What :func:`cassettes.reader.read_at_most` raises past its limit; the message says by how
    much, if known."""
