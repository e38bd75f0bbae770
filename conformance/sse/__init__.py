"""The SSE decoder: bytes of a ``text/event-stream`` body, in any chunking, to whole events
(:mod:`.decoder`, WHATWG HTML §9.2.6, bounded). It knows no JSON and no rules; the framing rules of
SPEC §1 are :mod:`conformance.sse.framing`'s."""

from __future__ import annotations

from .decoder import Record, SSEDecoder, SSEEvent, SSELimitError, decode_sse

__all__ = ["Record", "SSEDecoder", "SSEEvent", "SSELimitError", "decode_sse"]
