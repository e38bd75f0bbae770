"""WebSocket mode's connection state: the connection-local cache of recent responses, and
``generate: false`` (a response prepared to chain from, not generated). Facts and sources:
docs/websocket.md "Connection state".

OpenAI keeps "recent response state in a connection-local cache" ([SDK] 3.63
``lib/responses_websocket/README.md``; the WebSocket mode guide), in memory only, so a
``store: false`` (or ZDR) response can be continued on the socket that made it:

- each lane keeps its most recent response (the default lane too); a later response of the lane
  replaces it. A ``previous_response_id`` is looked up among them (any lane: a fork continues a
  response of another lane) before the store. With ``store: false`` an id not cached is
  ``previous_response_not_found``: the README says so, and that reconnecting "loses every lane's
  connection-local cache";
- "A same-lane continuation returning a 4xx or 5xx evicts its referenced cached parent; an errored
  cross-lane fork preserves the shared parent for the source lane" (README);
- ``generate: false`` "prepare[s] request state without model output; the response ID can be used
  as previous_response_id on a later turn" ([SDK] ``responses_client_event.py``); Codex sends one
  with its first turn's instructions and tools and waits for its ``response.completed``
  (codex-rs ``core/src/client.rs`` ``prewarm_websocket``).

Entries are the Response object and its whole input (what ``previous_response_id`` continues), as
the store keeps them; :meth:`ConnectionCache.nbytes` counts them against the connection's memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..engine import Chunk, Engine, Final, GenerationRequest

__all__ = ["CachedResponse", "ConnectionCache", "PrepareOnly"]

CONTINUABLE = frozenset({"completed", "incomplete"})


@dataclass(frozen=True, slots=True)
class CachedResponse:
    """One lane's most recent response: the Response object and its whole input."""

    response: dict[str, Any]
    items: list[dict[str, Any]]
    nbytes: int


class ConnectionCache:
    """The responses one connection can continue without the store (module docstring): per lane,
    the most recent one. Sans-I/O; one per connection, dropped with it."""

    __slots__ = ("_by_lane",)

    def __init__(self) -> None:
        self._by_lane: dict[str | None, CachedResponse] = {}

    def lookup(self, response_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The cached response ``response_id`` and its whole input, on whichever lane keeps it."""
        for entry in self._by_lane.values():
            if entry.response.get("id") == response_id:
                return entry.response, entry.items
        return None

    def ended(
        self, lane: str | None, response: Mapping[str, Any], items: Sequence[Mapping[str, Any]]
    ) -> None:
        """``response`` finished on ``lane``: completed or incomplete, it becomes the lane's entry;
        failed, it is a failed continuation of its parent (:meth:`refused`)."""
        if response.get("status") not in CONTINUABLE:
            self.refused(lane, response.get("previous_response_id"))
            return
        kept = dict(response)
        kept_items = [dict(item) for item in items]
        size = len(orjson.dumps(kept)) + len(orjson.dumps(kept_items))
        self._by_lane.pop(lane, None)  # the most recent last: shed() forgets the oldest first
        self._by_lane[lane] = CachedResponse(kept, kept_items, size)

    def refused(self, lane: str | None, previous_response_id: object) -> None:
        """A continuation of ``previous_response_id`` on ``lane`` was refused (4xx) or failed (5xx):
        the lane forgets that parent (README: a same-lane failure evicts it; a fork's does not)."""
        entry = self._by_lane.get(lane)
        if entry is not None and entry.response.get("id") == previous_response_id:
            del self._by_lane[lane]

    def shed(self, nbytes: int) -> None:
        """Forget the oldest entries until ``nbytes`` bytes are freed (or none is left): the
        connection is past its memory bound (reference_impl/flow.py)."""
        while nbytes > 0 and self._by_lane:
            oldest = next(iter(self._by_lane))
            nbytes -= self._by_lane.pop(oldest).nbytes

    def nbytes(self) -> int:
        """The cached responses' size in bytes (their JSON), for the connection's memory bound."""
        return sum(entry.nbytes for entry in self._by_lane.values())

    def __len__(self) -> int:
        return len(self._by_lane)


class PrepareOnly:
    """An :class:`~reference_impl.engine.Engine` for ``generate: false``: the request is prepared
    (its input counted, as a prefill would) and the response completes with no output."""

    __slots__ = ("_engine",)

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    async def generate(self, request: GenerationRequest) -> AsyncIterator[Chunk]:
        tokens = await self._engine.count_input_tokens(request)  # its EngineError fails it
        yield Final("stop", input_tokens=tokens, output_tokens=0)

    async def count_input_tokens(self, request: GenerationRequest) -> int:
        return await self._engine.count_input_tokens(request)

    def model_ids(self) -> Sequence[str]:
        return self._engine.model_ids()
