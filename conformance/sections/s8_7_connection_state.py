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

The rules are the cases below (:mod:`.cases`, area ``websocket``, profile ``websocket``), each
over judged sessions (:meth:`Probe.websocket <conformance.suite.probe.Probe.websocket>`): a
``store: false`` response continued on its socket, the same id on a new connection refused with
``previous_response_not_found``, a continuation refused for ``temperature: "hot"`` evicting its
parent (skipped on a target that continues no ``store: false`` response, or accepts the bad
temperature), ``generate: false`` completing with no output and then continued. Their failing
examples are misbehaving servers (tests/suite/broken_ws_servers.py), their near miss the
embedded mock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, register
from ..suite.ws_ends import TERMINAL
from .cases import case
from .s8_1_frames import WS_UPGRADE
from .s8_2_lanes import WS_RESPONSES, completed_answers
from .s8_4_ws_errors import WS_ERROR_CODE, WS_ERROR_STATUS
from .ws_case_support import WEBSOCKET, WS_MAX_OUTPUT, describe_last

if TYPE_CHECKING:
    from ..suite.probe import Probe
    from ..suite.ws import WsSession

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


# OpenAI keeps each connection's recent responses in memory: `store: false` continues on the socket
# that made it and nowhere else; a refused same-lane continuation evicts its parent;
# `generate: false` prepares a response to chain from ([SDK] README, ResponseCreate.generate).

_TEAL = "My favourite colour is teal. Acknowledge it briefly."
_ASK = "What is my favourite colour?"


def _store_false_parent(probe: Probe, s: WsSession, check: Check) -> str:
    s.create(probe.body(input=_TEAL, store=False, max_output_tokens=WS_MAX_OUTPUT))
    done = completed_answers(probe, s.until(1), "a store: false response")
    probe.require(check, bool(done), expected="a store: false response to continue")
    return str(done[0]["id"])


def _continue(probe: Probe, s: WsSession, parent: str, **fields: Any) -> dict[str, Any]:
    """A `store: false` continuation of ``parent``: its terminal event or the error refusing it."""
    s.create(probe.body(input=_ASK, store=False, previous_response_id=parent,
                        max_output_tokens=WS_MAX_OUTPUT, **fields))  # fmt: skip
    return s.until(1)[-1]


def _refusal(event: dict[str, Any]) -> str | None:
    """The `error.code` of an `error` event refusing a request (None for anything else)."""
    if event.get("type") != "error" or "sequence_number" in event:
        return None
    error = event.get("error")
    return str(error.get("code")) if isinstance(error, dict) else ""


def _describe(event: dict[str, Any]) -> str:
    response = event.get("response")
    if isinstance(response, dict):
        return (
            f"{event.get('type')!r} previous_response_id {response.get('previous_response_id')!r}"
        )
    return describe_last([event])


@case("websocket", WS_STORE_FALSE_CONTINUED, WS_RESPONSES, WS_UPGRADE, profiles=WEBSOCKET)
def test_store_false_continues_on_its_socket(probe: Probe) -> None:
    with probe.websocket() as s:
        parent = _store_false_parent(probe, s, WS_STORE_FALSE_CONTINUED)
        last = _continue(probe, s, parent)
        child = last.get("response") if last.get("type") in TERMINAL else None
        probe.check(
            WS_STORE_FALSE_CONTINUED,
            isinstance(child, dict) and child.get("status") in ("completed", "incomplete")
            and child.get("previous_response_id") == parent,
            expected=f"an answer continuing {parent!r} on the same connection",
            actual=_describe(last),
        )  # fmt: skip


@case(
    "websocket",
    WS_CONNECTION_LOCAL,
    WS_RESPONSES,
    WS_ERROR_CODE,
    WS_ERROR_STATUS,
    WS_UPGRADE,
    profiles=WEBSOCKET,
)
def test_a_store_false_response_is_unknown_on_a_new_connection(probe: Probe) -> None:
    with probe.websocket() as first:
        parent = _store_false_parent(probe, first, WS_CONNECTION_LOCAL)
    with probe.websocket() as second:
        last = _continue(probe, second, parent)
    probe.check(
        WS_CONNECTION_LOCAL, _refusal(last) == "previous_response_not_found",
        expected="an `error` event with code `previous_response_not_found`",
        actual=_describe(last),
    )  # fmt: skip


@case(
    "websocket",
    WS_EVICTED_AFTER_FAILURE,
    WS_RESPONSES,
    WS_ERROR_CODE,
    WS_ERROR_STATUS,
    WS_UPGRADE,
    profiles=WEBSOCKET,
)
def test_a_failed_continuation_evicts_its_parent(probe: Probe) -> None:
    with probe.websocket() as s:
        # Only a target that keeps state can evict it (a cacheless one would pass for nothing).
        first = _store_false_parent(probe, s, WS_EVICTED_AFTER_FAILURE)
        if _refusal(_continue(probe, s, first)) is not None:
            probe.skip("the target continues no `store: false` response (live.ws.store_false_*)")
        parent = _store_false_parent(probe, s, WS_EVICTED_AFTER_FAILURE)
        refused = _continue(probe, s, parent, temperature="hot")  # a 400 on any server
        if _refusal(refused) is None:
            probe.skip('the target did not refuse `temperature: "hot"` (live.errors.*)')
        last = _continue(probe, s, parent)
        probe.check(
            WS_EVICTED_AFTER_FAILURE, _refusal(last) == "previous_response_not_found",
            expected=f"{parent!r} evicted by its refused continuation: previous_response_not_found",
            actual=_describe(last),
        )  # fmt: skip


@case("websocket", WS_GENERATE_FALSE, WS_UPGRADE, profiles=WEBSOCKET)
def test_generate_false_prepares_a_response_to_chain_from(probe: Probe) -> None:
    with probe.websocket() as s:
        s.create(probe.body(input=_TEAL, store=False, generate=False))
        last = s.until(1)[-1]
        prepared = last.get("response") if last.get("type") == "response.completed" else None
        probe.require(
            WS_GENERATE_FALSE,
            isinstance(prepared, dict) and prepared.get("output") == [],
            expected="response.completed with no output",
            actual=f"{last.get('type')!r} output {(prepared or {}).get('output')!r}"[:300]
            if last.get("type") in TERMINAL else describe_last([last]),
        )  # fmt: skip
        assert isinstance(prepared, dict)
        rid = str(prepared.get("id"))
        last = _continue(probe, s, rid)
        child = last.get("response") if last.get("type") in TERMINAL else None
        probe.check(
            WS_GENERATE_FALSE,
            isinstance(child, dict) and child.get("status") in ("completed", "incomplete")
            and child.get("previous_response_id") == rid,
            expected=f"the prepared response {rid!r} continued on the same connection",
            actual=_describe(last),
        )  # fmt: skip
