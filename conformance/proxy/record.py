"""``proxy --record DIR``: every exchange as it crossed the proxy, in the neutral cassette format
(:mod:`cassettes`, docs/cassettes.md): the client's request as it came, the upstream's status,
headers and body bytes as forwarded (encoded as sent), each chunk with its arrival time, and a
WebSocket session's frames both ways. Secrets are redacted by the writer before anything is
written: the credential headers always, and every secret the proxy saw (the API keys and cookies
it forwarded) wherever it appears.

The writer streams (issue #39 item 3): an exchange's body goes to a hidden file in DIR as it is
relayed, a chunk at a time through a bounded redaction window, and the file is put in place when
the exchange ends, so the proxy's memory does not grow with what it records. The secrets the
ledger has seen are handed to the writer when an exchange begins (the proxy learns a request's
own key before it forwards it) and again when it ends.
"""

from __future__ import annotations

from typing import Any

from cassettes.redaction import Redactor

__all__ = ["Recorder", "open_recorder"]


class Recorder:
    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.redactor: Redactor | None = None  # the ledger's: the secrets seen so far
        self._shared: set[str] = set()

    def begin(
        self,
        method: str,
        target: str,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        *,
        websocket: bool = False,
    ) -> Any:
        self._share_secrets()
        return self.writer.begin(method, target, headers, body, websocket=websocket)

    def finish(self, recording: Any, outcome: str = "complete") -> None:
        self._share_secrets()
        recording.finish(outcome)

    def _share_secrets(self) -> None:
        """The secrets the ledger has seen, to the writer (before any byte of theirs is written)."""
        if self.redactor is not None and len(self.redactor.secrets) != len(self._shared):
            known = set(self.writer.secrets)
            self.writer.secrets.extend(s for s in self.redactor.secrets if s not in known)
            self._shared = set(self.redactor.secrets)

    def close(self) -> None:
        """Every exchange is written when it finishes: nothing is pending."""


def open_recorder(directory: str) -> Recorder:
    from cassettes import CassetteWriter

    return Recorder(CassetteWriter(directory))
