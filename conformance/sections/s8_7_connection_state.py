"""§8.7 Connection state (docs/spec.md#s8-7): ``live.ws.store_false_continued``,
``live.ws.connection_local``, ``live.ws.evicted_after_failure``, ``live.ws.generate_false``.

OpenAI keeps "recent response state in a connection-local cache": with ``store: false`` a
response is continued on the socket that made it, an uncached id is
``previous_response_not_found``, reconnecting loses the cache, and "a same-lane continuation
returning a 4xx or 5xx evicts its referenced cached parent" ([SDK] 3.63
``lib/responses_websocket/README.md``; OpenAI's WebSocket mode guide: the mode "is compatible with
both Zero Data Retention (ZDR) and store=false"). ``generate: false`` "prepare[s] request state
without model output; the response ID can be used as previous_response_id on a later turn" ([SDK]
``responses_client_event.py`` ``ResponseCreate.generate``); Codex sends one on each new socket
and waits for its ``response.completed`` (codex-rs ``core/src/client.rs`` ``prewarm_websocket``).

Levels: continuing a ``store: false`` response on its socket, refusing it on another, and
``generate: false`` are what clients use (Codex chains every turn of a session so, ``store:
false``); each is a MUST of the ``websocket`` profile. Eviction after a failed continuation is
OpenAI's documented behaviour, but a server that keeps the parent breaks no client that follows
the README (it never retries a failed parent blindly): a SHOULD.

The rules are the suite's cases (conformance/suite/cases/test_websocket.py, by these IDs); their
misbehaving servers are in tests/suite/broken_ws_servers.py.
"""

from __future__ import annotations

from ..catalog.registry import Level, register

__all__ = [
    "WS_CONNECTION_LOCAL",
    "WS_EVICTED_AFTER_FAILURE",
    "WS_GENERATE_FALSE",
    "WS_STORE_FALSE_CONTINUED",
    "declare_examples",
]

WS_STORE_FALSE_CONTINUED = register(
    "live.ws.store_false_continued",
    Level.MUST,
    "§8.7 [SDK] README (connection-local cache)",
    "a `store: false` response is continued (`previous_response_id`) on the connection that "
    "created it",
    profile="websocket",
)
WS_CONNECTION_LOCAL = register(
    "live.ws.connection_local",
    Level.MUST,
    "§8.7 [SDK] README (connection-local cache)",
    "a `store: false` response is unknown to another connection: continuing it there is an "
    "`error` event with `error.code` `previous_response_not_found`",
    profile="websocket",
)
WS_EVICTED_AFTER_FAILURE = register(
    "live.ws.evicted_after_failure",
    Level.SHOULD,
    "§8.7 [SDK] README (a failed same-lane continuation evicts its parent)",
    "after a continuation of a `store: false` response is refused (4xx) on its lane, continuing "
    "that response again is `previous_response_not_found`",
    profile="websocket",
)
WS_GENERATE_FALSE = register(
    "live.ws.generate_false",
    Level.MUST,
    "§8.7 [SDK] ResponseCreate.generate; codex-rs prewarm_websocket",
    "`response.create` with `generate: false` completes with no output, and its id is continued "
    "on the same connection",
    profile="websocket",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        WS_STORE_FALSE_CONTINUED.id,
        "ws_store_false_forgotten",
        "a server that keeps no connection state: a `store: false` response cannot be continued "
        "(`previous_response_not_found`)",
    )
    live(
        WS_CONNECTION_LOCAL.id,
        "ws_store_false_shared",
        "a server that keeps `store: false` responses for every connection",
    )
    live(
        WS_EVICTED_AFTER_FAILURE.id,
        "ws_keeps_after_failure",
        "a server that keeps a parent whose continuation it refused",
    )
    live(
        WS_GENERATE_FALSE.id,
        "ws_generate_ignored",
        "a server that ignores `generate: false` and generates an answer",
    )
