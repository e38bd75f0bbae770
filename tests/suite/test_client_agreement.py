"""``responses-conformance clients --with-profiles`` (issue #34, item 3): the ``client:X``
profile's verdict beside the real client's, on the mock and behind the gateways of
broken_client_servers.py. Each row must agree (a disagreement is a missing or wrong check, or a
harness flow that runs less than the profile replays: docs/client-catalogue.md, "Does the
profile predict the client?").

The default run uses openai-python alone (from this Python: nothing installed); every client,
Codex and the Node ones included, is on demand (RESPONSES_CLIENTS=all, as tox -e clients-harness
sets)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import broken_servers  # noqa: F401  (first: broken_client_servers takes its Broken from it)
import pytest
from broken_client_servers import CLIENT_LIVE, loses_streamed_parent
from suite_support import ROOT, mock_app, serve

from conformance.clients.catalog import CLIENTS


def _app(target: str) -> Any:
    if target == "mock":
        return mock_app()
    if target == "loses_streamed_parent":
        # The real client chains once it has parsed the stream and started a new request: on a
        # loaded machine that can be over the gateway's 1 s (the profile's replay chains at once).
        return loses_streamed_parent(lag=5.0)
    return CLIENT_LIVE[target].factory()


def _agreement(
    target: str, clients: str, tmp_path: Path, *extra: str
) -> tuple[int, dict[str, Any], str]:
    with serve(_app(target), quiet=True) as url:
        done = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "clients", "--base-url", url,
             "--model", "gpt-5.4", "--name", target, "--client", clients, "--with-profiles",
             "--python", sys.executable, "--report-dir", str(tmp_path), *extra],
            capture_output=True, text=True, cwd=ROOT, timeout=900, check=False,
        )  # fmt: skip
    if done.returncode == 2 and "unavailable:" in done.stderr:
        pytest.skip(f"a client could not be installed: {done.stderr.strip()[-400:]}")
    doc = json.loads((tmp_path / "index.json").read_text())
    return done.returncode, doc["targets"][target], done.stdout


# (gateway, openai-python's verdict): the mock; the chain after a stream that openai-python's
# stream flow now makes (the harness passed there before: the profile's chain_after_stream had
# no flow of the client's behind it); the parameters of the captured function-tools flow,
# now sent by the harness's tools flow too; a gateway that breaks only other clients.
PYTHON_ROWS = [
    ("mock", "pass"),
    ("loses_streamed_parent", "fail"),
    ("refuses_reasoning_parameter", "fail"),
    ("compaction_turn_as_message", "pass"),
]


@pytest.mark.parametrize(("target", "verdict"), PYTHON_ROWS)
def test_openai_python_profile_predicts_the_client(
    target: str, verdict: str, tmp_path: Path
) -> None:
    code, entry, stdout = _agreement(target, "openai-python", tmp_path)
    assert code == (0 if verdict == "pass" else 1), stdout[-2000:]
    row = entry["agreement"]["clients"]["openai-python"]
    assert (row["profile"], row["harness"], row["agrees"]) == (verdict, verdict, True), row
    client = entry["clients"]["openai-python"]
    assert (client["profile"], client["agrees"]) == (verdict, True)
    assert entry["agreement"]["agree"] == 1 and entry["agreement"]["disagree"] == 0
    assert f"agreement on {target}: 1 agree, 0 disagree" in stdout
    html = (tmp_path / "report.html").read_text()
    assert "Profile verdict × harness verdict" in html
    if verdict == "fail":
        assert row["profile_failing"] and all(
            c.startswith("live.client.openai_python.") for c in row["profile_failing"]
        )


def test_without_the_option_the_profile_slot_stays_empty(tmp_path: Path) -> None:
    with serve(mock_app(), quiet=True) as url:
        done = subprocess.run(
            [sys.executable, "-m", "conformance.cli", "clients", "--base-url", url,
             "--model", "gpt-5.4", "--client", "openai-python", "--flow", "parse",
             "--python", sys.executable, "--format", "json"],
            capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (entry,) = json.loads(done.stdout)["targets"].values()
    assert "agreement" not in entry and entry["clients"]["openai-python"]["profile"] is None


ALL = ",".join(CLIENTS)


@pytest.mark.skipif(
    os.environ.get("RESPONSES_CLIENTS") != "all",
    reason="on demand (Codex, Node clients): tox -e clients-harness, or RESPONSES_CLIENTS=all",
)
@pytest.mark.parametrize("target", ["mock", *sorted(CLIENT_LIVE)])
def test_every_client_profile_predicts_the_client(target: str, tmp_path: Path) -> None:
    code, entry, stdout = _agreement(target, ALL, tmp_path)
    table = entry["agreement"]
    assert table["disagree"] == 0 and table["undecided"] == 0, stdout[-3000:]
    assert code == (1 if any(r["harness"] == "fail" for r in table["clients"].values()) else 0)
