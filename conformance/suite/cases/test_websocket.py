"""WebSocket mode (`GET /v1/responses` upgraded; docs/websocket.md): every frame of every session
goes through the session judge, so each response gets the same stream and usage checks as over
SSE, and the ``ws.*`` session rules are judged around them.

The cases move to the §8 section modules of the checks they evaluate (conformance/sections/s8_*.py,
issue #31); those left here are the ones not moved yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ... import catalog as C
from ...catalog import live as L
from .. import answers as A
from ..probe import Probe
from ..ws import TERMINAL, WsSession, WsTimeout, judged_session
from .support import LONG_PROMPT, SHORT_PROMPT

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


@pytest.mark.checks(L.WS_SAME_AS_SSE.id)
def test_same_response_as_over_sse(probe: Probe) -> None:
    body = probe.body(input=SHORT_PROMPT, max_output_tokens=_MAX, metadata={"case": "same"})
    over_sse, _ = probe.create_stream(body)
    with judged_session(probe) as s:
        s.create(body)
        done = _answers(s.until(1))
    probe.require(L.WS_SAME_AS_SSE, bool(done), expected="an answer over the socket")
    want, got = _shape(over_sse), _shape(done[0])
    probe.check(
        L.WS_SAME_AS_SSE, want == got,
        expected=f"the SSE response's shape {want}", actual=f"{got}",
    )  # fmt: skip


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


_STEER_ANSWERS = ("response.steer.accepted", "response.steer.failed")
# A call with long arguments: it still streams when the client steers it (a short call can end
# before the steer arrives, on a fast server).
_REPORT_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "save_report",
    "description": "Save a detailed report.",
    "parameters": {
        "type": "object",
        "properties": {"report": {"type": "string", "minLength": 4000,
                                  "description": "the full report, at least 4000 characters"}},
        "required": ["report"],
        "additionalProperties": False,
    },
}  # fmt: skip


@pytest.mark.profiles("websocket:steering")
@pytest.mark.checks(L.WS_STEERING.id, C.WS_STEER_SHAPE.id, C.WS_STEER_KNOWN.id, C.WS_STEER_LIVE.id)
@pytest.mark.attempts(3)
def test_steering_a_running_response(probe: Probe) -> None:
    """Steer a response as soon as it is created ([SDK] response_steer_event.py): a target that
    declares steering accepts the input and commits it — an automatic successor continuing the
    target (`previous_response_id`) once it ends, or `response.steer.pending` after its
    `response.completed` when it waits for tool output. Refused as already completed (the
    response ended before the steer arrived) the case is retried; any other refusal fails."""
    with judged_session(probe) as s:
        # A long answer (as for cancelling, test_background): still running when the steer comes.
        steer = _steer_running(
            s, probe.body(input=LONG_PROMPT, max_output_tokens=2048), "Stop counting and say done."
        )
        if _refused(probe, steer):
            return
        target = steer.target
        committed = _committed(s, target, steer.ended)
        probe.check(
            L.WS_STEERING, committed is not None,
            expected=f"the accepted input committed: a response continuing {target!r} after it "
            "ends, or response.steer.pending",
            actual="the target ended and no successor or pending event followed",
        )  # fmt: skip
        if committed is not None and committed.get("type") == "response.created":
            s.until(1)  # the successor's end: it is judged like any response


@pytest.mark.profiles("websocket:steering", "tools")
@pytest.mark.checks(L.WS_STEERING.id, C.WS_STEER_PENDING_AFTER_TERMINAL.id, C.WS_STEER_SHAPE.id)
@pytest.mark.attempts(3)
def test_steering_a_response_that_calls_a_tool(probe: Probe) -> None:
    """A steered response that stops for a client tool call keeps the input queued:
    `response.steer.pending` after its `response.completed`, naming the call in `required_input`
    ([SDK] response_steer_pending_event.py); the continuation that brings the call's output
    (same lane, `previous_response_id`) is answered."""
    with judged_session(probe) as s:
        body = probe.body(input="Write a detailed report on lighthouses and save it.",
                          tools=[_REPORT_TOOL], tool_choice="required",
                          max_output_tokens=2048)  # fmt: skip
        steer = _steer_running(s, body, "Answer in one short sentence.", wait_end=True)
        if _refused(probe, steer):
            return
        target, ended = steer.target, steer.ended
        final = (steer.terminal or {}).get("response") or {}
        calls = [i for i in A.items_of(final) if i.get("type") == "function_call"]
        probe.require(L.WS_STEERING, bool(calls), expected="the target calls the tool",
                      actual="no function_call in its output")  # fmt: skip
        pending = _committed(s, target, ended)
        stubs = (pending or {}).get("required_input") or []
        probe.check(
            L.WS_STEERING,
            pending is not None and pending.get("type") == "response.steer.pending"
            and [c.get("call_id") for c in calls] == [x.get("call_id") for x in stubs],
            expected="response.steer.pending naming the call: "
            f"{[c.get('call_id') for c in calls]}",
            actual=f"{(pending or {}).get('type')} {stubs}",
        )  # fmt: skip
        output = [{"type": "function_call_output", "call_id": c.get("call_id"),
                   "output": '{"saved": true}'} for c in calls]  # fmt: skip
        s.create(probe.body(input=output, previous_response_id=target, tools=[_REPORT_TOOL],
                            max_output_tokens=_MAX))  # fmt: skip
        done = _answers(s.until(1))
        probe.check(
            L.WS_STEERING, bool(done) and done[0].get("previous_response_id") == target,
            expected=f"the continuation of {target!r} answered",
            actual=f"{len(done)} answer(s), previous_response_id "
            f"{done[0].get('previous_response_id') if done else None!r}",
        )  # fmt: skip


@dataclass(slots=True)
class _Steered:
    target: object  # the steered response's id
    answer: dict[str, Any]  # response.steer.accepted / .pending / .failed
    ended: bool  # the target's terminal event came before (or, wait_end, after) the answer
    terminal: dict[str, Any] | None  # that terminal event


def _steer_running(
    s: WsSession, body: dict[str, Any], text: str, *, wait_end: bool = False
) -> _Steered:
    """Create ``body``, steer it with ``text`` as soon as its `response.created` names it, and read
    up to the steer's answer (``wait_end``: and, when it was accepted, to the target's end)."""
    s.create(body)
    target = None
    while target is None:
        event = s.recv()
        if event is not None and event.get("type") == "response.created":
            target = event["response"].get("id")
    s.send({"type": "response.steer", "previous_response_id": target, "input": text})
    answer: dict[str, Any] | None = None
    terminal: dict[str, Any] | None = None
    while answer is None or (
        wait_end and answer["type"] == "response.steer.accepted" and terminal is None
    ):
        event = s.recv()
        if event is None:
            continue
        if event.get("type") in _STEER_ANSWERS:
            answer = event
        elif _ends(event, target):
            terminal = event
    return _Steered(target, answer, terminal is not None, terminal)


def _refused(probe: Probe, steer: _Steered) -> bool:
    """A refused steer: retried when the response had already completed (a race the case cannot
    win every time), a failure otherwise. True when the case must stop."""
    if steer.answer["type"] != "response.steer.failed":
        return False
    error = steer.answer.get("error") or {}
    code = error.get("code")
    probe.nondeterministic(
        not (steer.ended and code == "response_already_completed"),
        "the response completed before the steer arrived", exhausted="skip",
    )  # fmt: skip
    probe.check(
        L.WS_STEERING, False, expected="response.steer.accepted for a running response",
        actual=f"response.steer.failed {code!r}: {error.get('message')}",
    )  # fmt: skip
    return True


def _ends(event: dict[str, Any], rid: object) -> bool:
    return event.get("type") in TERMINAL and (event.get("response") or {}).get("id") == rid


def _committed(s: WsSession, target: object, ended: bool) -> dict[str, Any] | None:
    """After an accepted steer: the successor's `response.created` (previous_response_id =
    ``target``) or the `response.steer.pending`; None when the target ends and the next frame
    (within the timeout) is neither."""
    while True:
        try:
            event = s.recv()
        except WsTimeout:
            return None
        if event is None:
            continue
        etype = event.get("type")
        if etype == "response.steer.pending":
            return event
        if etype == "response.created":
            previous = (event.get("response") or {}).get("previous_response_id")
            return event if ended and previous == target else None
        if _ends(event, target):
            ended = True


def _shape(response: dict[str, Any]) -> dict[str, Any]:
    """What two runs of one request share: fields, status, item and part types."""
    return {
        "fields": sorted(response),
        "status": response.get("status"),
        "items": [
            (item.get("type"), [p.get("type") for p in item.get("content") or []])
            for item in response.get("output") or []
        ],
        "usage": sorted(response.get("usage") or {}),
    }


def _last(events: list[dict[str, Any]]) -> str:
    if not events:
        return "no events"
    last = events[-1]
    return f"{last.get('type')!r} {str(last.get('error') or '')[:160]}"
