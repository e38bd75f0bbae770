"""``responses-conformance clients`` with every client (Codex CLI and the Node ones installed from
npm on first use into pytest's cache): against the mock every flow passes; behind a gateway that
refuses the one parameter only Codex sends (``client_metadata``: tests/data/clients, every Codex
capture and no other client's), Codex's flows fail with the gateway's refusal as evidence and the
other clients pass. On demand: ``tox -e clients-harness`` (or ``tox -e clients``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from asgi_body import drain, json_answer

from conformance.cli import main
from conformance.clients.catalog import CLIENTS
from mock_server.app import MockServer
from mock_server.middleware import replayed
from reference_impl.server import ServerThread

pytestmark = pytest.mark.on_demand

REFUSAL = {
    "error": {
        "message": "Unsupported parameter: 'client_metadata'.",
        "type": "invalid_request_error",
        "param": "client_metadata",
        "code": "unsupported_parameter",
    }
}


class RefusingGateway:
    """The mock behind a gateway that answers 400 to a create request carrying
    ``client_metadata`` (as a strict gateway refuses a parameter it does not know)."""

    def __init__(self) -> None:
        self.mock = MockServer()
        self.refused = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.mock.app(scope, receive, send)
            return
        body = await drain(receive)
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and "client_metadata" in parsed:
            self.refused += 1
            await json_answer(send, 400, REFUSAL)
            return
        await self.mock.app(scope, replayed(body, receive), send)


@pytest.fixture(scope="module")
def cache(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Where the clients are installed: pytest's cache (a second run installs nothing)."""
    found = getattr(pytestconfig, "cache", None)
    return str(found.mkdir("clients-harness") if found else tmp_path_factory.mktemp("clients"))


def _outcomes(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (target,) = doc["targets"].values()
    return {
        f"{client}/{flow}": entry
        for client, c in target["clients"].items()
        for flow, entry in c["flows"].items()
    }


def _run(
    capsys: pytest.CaptureFixture[str], cache: str, *args: str
) -> tuple[int, dict[str, Any], str]:
    code = main(
        ["clients", "--format", "json", "--cache-dir", cache,
         "--python", sys.executable, *args]
    )  # fmt: skip
    captured = capsys.readouterr()
    if "unavailable:" in captured.err and code == 2:
        pytest.skip(f"a client could not be installed: {captured.err.strip()[-400:]}")
    return code, json.loads(captured.out), captured.err


ALL_FLOWS = {f"{c.name}/{f.name}" for c in CLIENTS.values() for f in c.flows}


def test_every_client_and_flow_passes_against_the_mock(
    capsys: pytest.CaptureFixture[str], cache: str
) -> None:
    code, doc, err = _run(capsys, cache)
    outcomes = _outcomes(doc)
    failed = {k: v.get("reason") for k, v in outcomes.items() if v["outcome"] != "pass"}
    assert code == 0, (failed, err[-2000:])
    assert set(outcomes) == ALL_FLOWS and len(ALL_FLOWS) == 20
    assert outcomes["codex/compaction"]["requests"] == 3  # turn, compaction, turn
    assert outcomes["codex/compaction-remote"]["requests"] == 3


def test_a_gateway_refusing_what_only_codex_sends_fails_codex_alone(
    capsys: pytest.CaptureFixture[str], cache: str, tmp_path: Path
) -> None:
    gateway = RefusingGateway()
    server = ServerThread(gateway, port=0, interface="asgi3")
    server.start()
    try:
        code, doc, err = _run(
            capsys, cache, "--base-url", server.base_url, "--model", "gpt-5.4",
            "--report-dir", str(tmp_path),
        )  # fmt: skip
    finally:
        server.stop()
    outcomes = _outcomes(doc)
    assert code == 1, err[-2000:]
    codex = {k: v for k, v in outcomes.items() if k.startswith("codex/")}
    others = {k: v for k, v in outcomes.items() if not k.startswith("codex/")}
    assert len(codex) == 6 and all(v["outcome"] == "fail" for v in codex.values())
    for name, flow in codex.items():
        refused = [r for r in flow["evidence"]["last_requests"] if r["status"] == 400]
        assert refused and "Unsupported parameter: 'client_metadata'" in refused[-1]["body"], name
        assert "client_metadata" in flow["reason"], (name, flow["reason"])  # Codex's own words
    assert {k: v["outcome"] for k, v in others.items()} == dict.fromkeys(others, "pass")
    assert gateway.refused >= 6
    junit = (tmp_path / "junit.xml").read_text()
    assert junit.count("<failure") == 6
