"""The vendor matrix's real clients (`python -m benchmarks.vendors run --harness`, issue #34 item
4): each target run with `responses-conformance clients`, and SUMMARY.md's "Works with" table,
each failure with the client's own error. Against the mock target here, openai-python alone (from
this Python: nothing installed); every client in the re-published matrix
(docs/vendors/matrix-notes.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.vendors.catalog import TARGETS
from benchmarks.vendors.run import RunOptions, _harness
from benchmarks.vendors.stack import Launched
from benchmarks.vendors.summary import harness_table, render_summary
from mock_server.testing import LoopbackMock

REPO = Path(__file__).parents[2]


def test_the_mock_target_works_with_openai_python(tmp_path: Path) -> None:
    opts = RunOptions(
        out=tmp_path, repo=REPO, venv_root=tmp_path, harness=True,
        harness_clients=("openai-python",),
    )  # fmt: skip
    with LoopbackMock() as mock:
        launched = Launched(mock.base_url.removesuffix("/v1"), "gpt-5.4")
        found = _harness(TARGETS["mock"], launched, opts, lambda line: None)
    assert found["exit_code"] == 0, (tmp_path / "targets/mock/harness/harness.log").read_text()
    assert found["clients"] == {"openai-python": {"verdict": "pass", "reason": None,
                                                  "failures": {}, "wire": {}}}  # fmt: skip
    assert found["command"].startswith("responses-conformance clients --base-url $BASE_URL")
    lines = harness_table({"targets": {"mock": {"harness": found}}})
    assert lines[2] == "| `mock` | – | – | – | works | – |"


RUN: dict[str, Any] = {
    "targets": {
        "gateway": {
            "profiles": ["core"],
            "harness": {
                "clients": {
                    "codex": {"verdict": "fail", "reason": None, "failures": {
                        "greeting": 'exit 1: turn.failed: {"detail": "Unsupported parameter: '
                                    'prompt_cache_key"}',
                    }},
                    "agents-sdk": {"verdict": "pass", "reason": None, "failures": {}},
                    "vercel-ai": {"verdict": "unavailable", "reason": "no npm", "failures": {}},
                },
            },
        },
        "claims-only": {"profiles": ["core"]},
    }
}  # fmt: skip


def test_the_works_with_table_says_which_client_fails_and_why() -> None:
    lines = harness_table(RUN)
    assert lines[0] == (
        "| target | Codex | Agents SDK | Vercel AI SDK | openai (Python) | openai (Node) |"
    )
    assert lines[2] == (
        '| `gateway` | fails: **greeting**: exit 1: turn.failed: {"detail": "Unsupported '
        'parameter: prompt_cache_key"} | works | unavailable | – | – |'
    )
    assert not any("claims-only" in line for line in lines)
    assert harness_table({"targets": {"x": {"profiles": ["core"]}}}) == []


def test_the_summary_has_a_works_with_section_only_when_asked() -> None:
    index: dict[str, Any] = {"targets": {}, "checks": {}}
    assert "## Works with (the real clients)" in render_summary(index, RUN)
    assert "## Works with" not in render_summary(index, {"targets": {}})


def test_run_takes_harness() -> None:
    from benchmarks.vendors.cli import _parser

    assert _parser().parse_args(["run", "--harness"]).harness is True
    assert _parser().parse_args(["run"]).harness is False


def test_a_failed_flow_says_whether_the_judge_found_the_wire_clean() -> None:
    """A scripted model that cannot call a tool fails the client over conforming exchanges (the
    answer's content); a server that breaks the protocol fails it over broken ones. The table
    tells them apart from what the harness judged of each flow's exchanges."""
    found = {"clients": {
        "agents-sdk": {"verdict": "fail", "reason": None,
                       "failures": {"runner-tools": "exit 3: the agent never ran get_weather"},
                       "wire": {"runner-tools": {"exchanges": 1, "failing": 0}}},
        "codex": {"verdict": "fail", "reason": None,
                  "failures": {"greeting": "exit 1: stream disconnected"},
                  "wire": {"greeting": {"exchanges": 3, "failing": 2}}},
    }}  # fmt: skip
    row = harness_table({"targets": {"t": {"harness": found}}})[2]
    assert (
        "**greeting**: exit 1: stream disconnected (**wire: 2 of 3 exchange(s) broke a rule**)"
        in row
    )
    assert "(wire clean: 1 exchange(s), no rule broken)" in row


def test_harness_clients_reads_the_flows_wire_figures(tmp_path: Path) -> None:
    from benchmarks.vendors.run import harness_clients

    index = tmp_path / "index.json"
    index.write_text(json.dumps({"targets": {"t": {"clients": {"codex": {
        "harness": "fail", "reason": None, "flows": {
            "greeting": {"outcome": "fail", "reason": "exit 1: x",
                         "protocol": {"exchanges": 2, "failing": 1}},
            "resume": {"outcome": "pass", "protocol": {"exchanges": 2, "failing": 0}},
        }}}}}}))  # fmt: skip
    assert harness_clients(index) == {"codex": {
        "verdict": "fail", "reason": None, "failures": {"greeting": "exit 1: x"},
        "wire": {"greeting": {"exchanges": 2, "failing": 1}}}}  # fmt: skip
