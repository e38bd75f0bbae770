"""``proxy --record DIR``: every exchange as it crossed the proxy, in the neutral cassette format
(:mod:`cassettes`, docs/cassettes.md): the client's request as it came, the upstream's status,
headers and body bytes as forwarded (encoded as sent), each chunk with its arrival time, and a
WebSocket session's frames both ways. Secrets are redacted by the writer before anything is
written: the credential headers always, and every secret the proxy saw (the API keys and cookies
it forwarded) wherever it appears.
"""

from __future__ import annotations

from typing import Any

from cassettes.redaction import Redactor

__all__ = ["Recorder", "open_recorder"]


class Recorder:
    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.redactor: Redactor | None = None  # the ledger's: the secrets seen so far

    def begin(
        self,
        method: str,
        target: str,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
        *,
        websocket: bool = False,
    ) -> Any:
        return self.writer.begin(method, target, headers, body, websocket=websocket)

    def finish(self, recording: Any, outcome: str = "complete") -> None:
        if self.redactor is not None:
            known = set(self.writer.secrets)
            self.writer.secrets.extend(s for s in self.redactor.secrets if s not in known)
        recording.finish(outcome)

    def close(self) -> None:
        """Every exchange is written when it finishes: nothing is pending."""


def open_recorder(directory: str) -> Recorder:
    from cassettes import CassetteWriter

    return Recorder(CassetteWriter(directory))
