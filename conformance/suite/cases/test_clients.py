"""The client profiles (docs/spec.md §9): each flow of the catalogue of what real clients send
(:mod:`conformance.clients.captured_flows`) replayed against the target by :class:`~..replay.FlowReplay`, run
when the target declares the client's profile (``client:codex``, ``client:agents-sdk``, …). A flow
over WebSocket needs ``websocket`` declared too."""

from __future__ import annotations

from typing import Any

import pytest

from ...catalog import live as L
from ...clients.captured_flows import Flow, client_profile, flows
from ...sections.s9_clients import CLIENT_CHECKS
from ..probe import Probe
from ..replay import FlowReplay


def _case(flow: Flow) -> Any:
    profiles = [client_profile(flow.client)] + (["websocket"] if flow.websocket else [])
    return pytest.param(
        flow,
        id=flow.id,
        marks=[
            pytest.mark.profiles(*profiles),
            pytest.mark.checks(
                *(c.id for c in CLIENT_CHECKS[flow.client]),
                *([L.WS_UPGRADE.id] if flow.websocket else []),
            ),
            pytest.mark.chain,
        ],
    )


@pytest.mark.parametrize("flow", [_case(f) for f in flows()])
def test_flow(probe: Probe, flow: Flow) -> None:
    FlowReplay(probe, flow).run()
