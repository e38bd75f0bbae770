"""WebSocket mode (`GET /v1/responses` upgraded; docs/websocket.md): every frame of every session
goes through the session judge, so each response gets the same stream and usage checks as over
SSE, and the ``ws.*`` session rules are judged around them.

The cases move to the §8 section modules of the checks they evaluate (conformance/sections/s8_*.py,
issue #31); those left here are the ones not moved yet.
"""

from __future__ import annotations

from typing import Any

import pytest

from ... import catalog as C
from ...catalog import live as L
from .. import answers as A
from ..probe import Probe
from ..ws import TERMINAL, WsSession, judged_session

# Every case opens a socket: each evaluates the upgrade.
pytestmark = [pytest.mark.profiles("websocket"), pytest.mark.checks(L.WS_UPGRADE.id)]

_MAX = 64  # output tokens: short answers keep the cases fast on a real model


def _answers(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The responses that ended with an answer: completed, or cut at ``max_output_tokens``."""
    return [
        e["response"]
        for e in events
        if e.get("type") in ("response.completed", "response.incomplete")
        and isinstance(e.get("response"), dict)
    ]


def _completed(probe: Probe, events: list[dict[str, Any]], what: str) -> list[dict[str, Any]]:
    done = _answers(events)
    terminal = [e for e in events if e.get("type", "").startswith("response.") and "response" in e]
    answered = len(done)
    probe.check(
        L.WS_RESPONSES, answered >= 1 and all(A.output_text(r).strip() for r in done),
        expected=f"{what}: responses with text (completed, or cut at max_output_tokens)",
        actual=f"{answered} completed; last event {terminal[-1]['type'] if terminal else None!r}",
    )  # fmt: skip
    return done


# --- §8.7 connection state (conformance/sections/s8_7_connection_state.py) ------------------------
# OpenAI keeps each connection's recent responses in memory: `store: false` continues on the socket
# that made it and nowhere else; a refused same-lane continuation evicts its parent;
# `generate: false` prepares a response to chain from ([SDK] README, ResponseCreate.generate).

_TEAL = "My favourite colour is teal. Acknowledge it briefly."
_ASK = "What is my favourite colour?"


def _store_false_parent(probe: Probe, s: WsSession, check: Any) -> str:
    s.create(probe.body(input=_TEAL, store=False, max_output_tokens=_MAX))
    done = _completed(probe, s.until(1), "a store: false response")
    probe.require(check, bool(done), expected="a store: false response to continue")
    return str(done[0]["id"])


def _continue(probe: Probe, s: WsSession, parent: str, **fields: Any) -> dict[str, Any]:
    """A `store: false` continuation of ``parent``: its terminal event or the error refusing it."""
    s.create(probe.body(input=_ASK, store=False, previous_response_id=parent,
                        max_output_tokens=_MAX, **fields))  # fmt: skip
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
    return _last([event])


@pytest.mark.checks(L.WS_STORE_FALSE_CONTINUED.id, L.WS_RESPONSES.id)
def test_store_false_continues_on_its_socket(probe: Probe) -> None:
    with judged_session(probe) as s:
        parent = _store_false_parent(probe, s, L.WS_STORE_FALSE_CONTINUED)
        last = _continue(probe, s, parent)
        child = last.get("response") if last.get("type") in TERMINAL else None
        probe.check(
            L.WS_STORE_FALSE_CONTINUED,
            isinstance(child, dict) and child.get("status") in ("completed", "incomplete")
            and child.get("previous_response_id") == parent,
            expected=f"an answer continuing {parent!r} on the same connection",
            actual=_describe(last),
        )  # fmt: skip


@pytest.mark.checks(
    L.WS_CONNECTION_LOCAL.id, L.WS_RESPONSES.id, C.WS_ERROR_CODE.id, C.WS_ERROR_STATUS.id
)
def test_a_store_false_response_is_unknown_on_a_new_connection(probe: Probe) -> None:
    with judged_session(probe) as first:
        parent = _store_false_parent(probe, first, L.WS_CONNECTION_LOCAL)
    with judged_session(probe) as second:
        last = _continue(probe, second, parent)
    probe.check(
        L.WS_CONNECTION_LOCAL, _refusal(last) == "previous_response_not_found",
        expected="an `error` event with code `previous_response_not_found`",
        actual=_describe(last),
    )  # fmt: skip


@pytest.mark.checks(
    L.WS_EVICTED_AFTER_FAILURE.id, L.WS_RESPONSES.id, C.WS_ERROR_CODE.id, C.WS_ERROR_STATUS.id
)
def test_a_failed_continuation_evicts_its_parent(probe: Probe) -> None:
    with judged_session(probe) as s:
        # Only a target that keeps state can evict it (a cacheless one would pass for nothing).
        first = _store_false_parent(probe, s, L.WS_EVICTED_AFTER_FAILURE)
        if _refusal(_continue(probe, s, first)) is not None:
            probe.skip("the target continues no `store: false` response (live.ws.store_false_*)")
        parent = _store_false_parent(probe, s, L.WS_EVICTED_AFTER_FAILURE)
        refused = _continue(probe, s, parent, temperature="hot")  # a 400 on any server
        if _refusal(refused) is None:
            probe.skip('the target did not refuse `temperature: "hot"` (live.errors.*)')
        last = _continue(probe, s, parent)
        probe.check(
            L.WS_EVICTED_AFTER_FAILURE, _refusal(last) == "previous_response_not_found",
            expected=f"{parent!r} evicted by its refused continuation: previous_response_not_found",
            actual=_describe(last),
        )  # fmt: skip


@pytest.mark.checks(L.WS_GENERATE_FALSE.id)
def test_generate_false_prepares_a_response_to_chain_from(probe: Probe) -> None:
    with judged_session(probe) as s:
        s.create(probe.body(input=_TEAL, store=False, generate=False))
        last = s.until(1)[-1]
        prepared = last.get("response") if last.get("type") == "response.completed" else None
        probe.require(
            L.WS_GENERATE_FALSE,
            isinstance(prepared, dict) and prepared.get("output") == [],
            expected="response.completed with no output",
            actual=f"{last.get('type')!r} output {(prepared or {}).get('output')!r}"[:300]
            if last.get("type") in TERMINAL else _last([last]),
        )  # fmt: skip
        assert isinstance(prepared, dict)
        rid = str(prepared.get("id"))
        last = _continue(probe, s, rid)
        child = last.get("response") if last.get("type") in TERMINAL else None
        probe.check(
            L.WS_GENERATE_FALSE,
            isinstance(child, dict) and child.get("status") in ("completed", "incomplete")
            and child.get("previous_response_id") == rid,
            expected=f"the prepared response {rid!r} continued on the same connection",
            actual=_describe(last),
        )  # fmt: skip


def _last(events: list[dict[str, Any]]) -> str:
    if not events:
        return "no events"
    last = events[-1]
    return f"{last.get('type')!r} {str(last.get('error') or '')[:160]}"
