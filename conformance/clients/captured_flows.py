"""The catalogue of what real clients send, as the judge replays it (docs/client-catalogue.md).

``captured/<client>/<flow>.json`` is the one copy of the catalogue: captured from each real
client by scripts/capture_clients.py (which writes it here), read by the client profiles'
case (:mod:`conformance.sections.s9_clients`) and by the repository's tests. It ships
with the judge (package data): a vendor's ``responses-conformance run --profile client:codex``
replays what Codex sent, with no checkout of the tests.

A flow's exchanges hold the request line, the client's headers, the body (or, for a WebSocket,
the client's frames) and the names (``<resp_1>``, ``<call_2>``, ``<encrypted_3>``) of the ids
and blobs each answer carried; a later request that threads one carries the same name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["CLIENT_PROFILES", "Flow", "client_profile", "flows"]

# profile name → the catalogue's folder for that client (DESIGN.md: `client:<name>`).
CLIENT_PROFILES: dict[str, str] = {
    "client:codex": "codex",
    "client:agents-sdk": "agents-sdk",
    "client:vercel-ai": "vercel-ai",
    "client:openai-python": "openai-python",
    "client:openai-node": "openai-node",
    "client:langchain": "langchain",
}


def client_profile(client: str) -> str:
    return f"client:{client}"


@dataclass(frozen=True, slots=True)
class Flow:
    client: str
    name: str
    package: str
    version: str
    description: str
    exchanges: tuple[dict[str, Any], ...]

    @property
    def id(self) -> str:
        return f"{self.client}/{self.name}"

    @property
    def websocket(self) -> bool:
        return any(e.get("websocket") for e in self.exchanges)


@cache
def flows() -> tuple[Flow, ...]:
    """Every flow of the catalogue, by client then flow name."""
    root = resources.files(__package__ or "conformance.clients").joinpath("captured")
    found: list[Flow] = []
    for client in sorted(CLIENT_PROFILES.values()):
        folder = root.joinpath(client)
        names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".json"))
        for name in names:
            entry = json.loads(folder.joinpath(name).read_text(encoding="utf-8"))
            found.append(
                Flow(
                    client=entry["client"],
                    name=entry["flow"],
                    package=entry["package"],
                    version=entry["version"],
                    description=entry.get("description", ""),
                    exchanges=tuple(entry["exchanges"]),
                )
            )
    return tuple(found)
