"""§9 Client profiles, the flows (docs/spec.md#s9): the case that evaluates the
``live.client.<client>.*`` checks (declared, with their examples, in :mod:`.s9_clients`).

Each flow of the catalogue of what real clients send (:mod:`conformance.clients.captured_flows`) is
replayed against the target (:meth:`conformance.suite.probe.Probe.replay`, which runs
:class:`conformance.suite.replay.FlowReplay`: it judges every answer by the rules of
:mod:`.s9_clients` and of the clients' accumulators), when the target declares the client's
profile (``client:codex``, ``client:agents-sdk``, …); a flow over WebSocket needs ``websocket``
declared too. The case's area is ``clients`` (``clients/flow[<flow>]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..clients.captured_flows import Flow, client_profile, flows
from .cases import Variant, case, params
from .s9_clients import CLIENT_CHECKS

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = ["declare_examples"]


def declare_examples() -> None:
    """The checks' examples are declared with the checks (:func:`.s9_clients.declare_examples`)."""


def _flows() -> list[Variant]:
    """One run per flow, under its client's profile and checks, a chain (``--repeat`` runs it
    again). Built when the suite collects the case: the catalogue is read from disk (the judge,
    which imports this module, never needs it), and the accumulator modules (:mod:`.s9_openai_node`,
    …) add their checks to ``CLIENT_CHECKS`` after this one is imported."""
    # catalog.live imports the section modules: imported here, when every one of them is
    from ..catalog.live import WS_UPGRADE

    return [
        Variant(
            flow,
            flow.id,
            profiles=(client_profile(flow.client), *(["websocket"] if flow.websocket else [])),
            checks=(
                *(c.id for c in CLIENT_CHECKS[flow.client]),
                *([WS_UPGRADE.id] if flow.websocket else []),
            ),
            chain=True,
        )
        for flow in flows()
    ]


@case("clients")
@params("flow", _flows)
def test_flow(probe: Probe, flow: Flow) -> None:
    probe.replay(flow)
