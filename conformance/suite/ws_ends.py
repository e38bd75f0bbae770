"""How a read of the suite's WebSocket client (:mod:`.ws`) ends: a response's terminal event
(:data:`TERMINAL`), no frame within the deadline (:class:`WsTimeout`), the server's close
(:class:`WsClosed`).

A leaf (it imports :mod:`conformance.errors` alone), so that the WebSocket cases, declared in
the section modules of §8 (conformance.sections), catch these without importing the client: the
client imports the catalogue and the section modules. :mod:`.ws` raises them and re-exports them.
"""

from __future__ import annotations

from ..errors import ConformanceError

__all__ = ["TERMINAL", "WsClosed", "WsTimeout"]

TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


class WsTimeout(ConformanceError):
    """No frame within the deadline."""


class WsClosed(ConformanceError):
    """The server closed the connection (``code`` is its close code, None without a frame)."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"the server closed the connection (code {code})")
        self.code = code
