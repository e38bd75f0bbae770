"""The vendor matrix's client profiles (`python -m benchmarks.vendors run --clients`): the
target as the client profiles judge it, and the Clients table of SUMMARY.md (docs/spec.md §9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.vendors.catalog import TARGETS
from benchmarks.vendors.run import CLIENT_PROFILES, client_spec, targets_toml
from benchmarks.vendors.stack import Launched
from benchmarks.vendors.summary import client_table, render_summary
from conformance.suite.targets import load_targets


def test_every_client_is_asked_with_its_websocket_flows(tmp_path: Path) -> None:
    """As the harness runs them and `clients --with-profiles` judges them: a target that does not
    claim WebSocket mode still breaks a client that uses it."""
    assert any("websocket" not in spec.profiles for spec in TARGETS.values())
    for name, spec in TARGETS.items():
        asked = client_spec(spec)
        assert set(CLIENT_PROFILES) <= set(asked.profiles)
        assert "websocket" in asked.profiles, name
        (tmp_path / "t.toml").write_text(
            targets_toml(asked, Launched("http://127.0.0.1:9" + spec.path, "m"))
        )
        (target,) = load_targets(tmp_path / "t.toml")
        assert set(target.profiles) == set(asked.profiles)


RUN: dict[str, Any] = {
    "targets": {
        "gateway": {
            "profiles": ["core"],
            "clients": {
                "command": "responses-conformance run --base-url $BASE_URL ... -k clients",
                "outcomes": {
                    "live.client.codex.parameters": "fail",
                    "live.client.codex.requests": "pass",
                    "live.client.codex.compaction_one_item": "fail",
                    "live.client.langchain.parameters": "pass",
                    "live.client.langchain.requests": "pass",
                    "live.client.vercel_ai.tools": "not_exercised",
                },
            },
        },
        "claims-only": {"profiles": ["core"]},
    }
}


def test_the_clients_table_says_who_breaks_which_client() -> None:
    lines = client_table(RUN)
    assert lines[0] == "| target | `codex` | `langchain` | `vercel_ai` |"
    assert lines[2] == (
        "| `gateway` | **breaks**: `compaction_one_item`, `parameters` | accepts | – |"
    )
    assert not any("claims-only" in line for line in lines)  # not judged on the clients
    assert client_table({"targets": {"x": {"profiles": ["core"]}}}) == []


def test_the_summary_has_a_clients_section_only_when_asked() -> None:
    index: dict[str, Any] = {"targets": {}, "checks": {}}
    assert "## Clients (asked, not claimed)" in render_summary(index, RUN)
    assert "## Clients" not in render_summary(index, {"targets": {}})
