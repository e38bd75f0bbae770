"""§8.6 One response, two transports (docs/spec.md#s8-6): ``live.ws.same_as_sse``.

The same request over SSE and over a WebSocket gives Responses of one shape: the same fields,
status, output item and part types, and usage fields ([OAPI] ``ResponsesWebSocketStreamEvent``
lists the SSE events). The rule is the case below (:mod:`.cases`, area ``websocket``, profile
``websocket``): one request streamed over SSE, then sent over a judged session
(:meth:`Probe.websocket <conformance.suite.probe.Probe.websocket>`), the two Responses' shapes
compared. Its failing example is a misbehaving server (tests/suite/broken_ws_servers.py), its
near miss the embedded mock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.registry import Level, register
from .case_support import SHORT_PROMPT
from .cases import case
from .s8_1_frames import WS_UPGRADE
from .ws_case_support import WEBSOCKET, WS_MAX_OUTPUT, answers_of

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = ["WS_SAME_AS_SSE", "declare_examples"]

WS_SAME_AS_SSE = register(
    "live.ws.same_as_sse",
    Level.MUST,
    "§8.6 [OAPI] ResponsesWebSocketStreamEvent",
    "the same request over the socket and over SSE gives shape-equal responses (fields, status, "
    "output item and part types)",
    profile="websocket",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock)."""
    from ..examples.live import live

    live(
        WS_SAME_AS_SSE.id,
        "ws_extra_field",
        "a server whose responses over the socket carry a field the SSE ones do not",
    )


@case("websocket", WS_SAME_AS_SSE, WS_UPGRADE, profiles=WEBSOCKET)
def test_same_response_as_over_sse(probe: Probe) -> None:
    body = probe.body(
        input=SHORT_PROMPT, max_output_tokens=WS_MAX_OUTPUT, metadata={"case": "same"}
    )
    over_sse, _ = probe.create_stream(body)
    with probe.websocket() as s:
        s.create(body)
        done = answers_of(s.until(1))
    probe.require(WS_SAME_AS_SSE, bool(done), expected="an answer over the socket")
    want, got = _shape(over_sse), _shape(done[0])
    probe.check(
        WS_SAME_AS_SSE, want == got,
        expected=f"the SSE response's shape {want}", actual=f"{got}",
    )  # fmt: skip


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
