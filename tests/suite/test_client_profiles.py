"""The client profiles from a user's seat (docs/spec.md §9, issue #33's acceptance):

- the embedded mock passes every client profile: every flow of the catalogue replayed (Codex's
  WebSocket flow with its prewarm and its store: false chains on the socket), every client
  check passed;
- each defect class, as a gateway in front of the mock (broken_client_servers.py), fails
  exactly the checks of the clients that send the request it breaks, and no other check it
  does not list;
- the catalogue the judge replays is the one the tests and the capture script read.
"""

from __future__ import annotations

from pathlib import Path

import broken_servers  # first: broken_client_servers takes its Broken from it
import pytest
from broken_client_servers import ACCUMULATOR_LIVE, CLIENT_LIVE, refuses_websocket
from client_catalogue import FIXTURES
from suite_support import run_suite, serve

import conformance.clients.captured_flows
from conformance.clients.captured_flows import CLIENT_PROFILES
from conformance.sections.s9_clients import CLIENT_CHECKS

ALL_CLIENTS = ",".join(CLIENT_PROFILES)


def test_the_mock_passes_every_client_profile(tmp_path: Path) -> None:
    run = run_suite("--profile", f"{ALL_CLIENTS},websocket", "-k", "clients",
                    report_dir=tmp_path)  # fmt: skip
    assert run.code == 0, run.stdout[-3000:]
    outcomes = run.outcomes()
    for checks in CLIENT_CHECKS.values():
        for check in checks:
            assert outcomes[check.id] == "pass", (check.id, run.stdout[-3000:])
    cases = run.index["targets"]["mock"]["cases"]
    assert len(cases) == 29
    assert [c["id"] for c in cases if c.get("outcome") != "passed"] == []


@pytest.mark.parametrize("server", sorted(CLIENT_LIVE))
def test_each_defect_class_fails_the_checks_of_the_clients_it_breaks(
    server: str, tmp_path: Path
) -> None:
    _fails_exactly(CLIENT_LIVE[server], tmp_path)


@pytest.mark.parametrize("server", sorted(ACCUMULATOR_LIVE))
def test_a_stream_the_accumulator_cannot_place_fails_its_client(
    server: str, tmp_path: Path
) -> None:
    """A stream a client's accumulator throws on (LiteLLM's events without their index) fails
    the `live.client.<client>.stream_accumulates` checks that name it as their failing example,
    and no client check it does not list (kept apart from CLIENT_LIVE: broken_client_servers.py
    says why)."""
    _fails_exactly(ACCUMULATOR_LIVE[server], tmp_path)


def _fails_exactly(broken: broken_servers.Broken, tmp_path: Path) -> None:
    with serve(broken.factory()) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile", broken.profiles,
                        "-k", broken.keyword, "--timeout", broken.timeout, "--strict",
                        report_dir=tmp_path)  # fmt: skip
    assert run.code == 1
    assert run.failing() == broken.expected, run.stdout[-3000:]


def test_a_refused_websocket_upgrade_breaks_the_clients_that_use_websocket_mode(
    tmp_path: Path,
) -> None:
    """The upgrade is a request the client sends: refused, it fails the client's ``requests``
    (the vendor matrix had openai-node "accepting" servers that refuse its ResponsesWS with a 403,
    the refusal counted only under ``live.ws.upgrade``). The near miss, the mock, passes them
    (test_the_mock_passes_every_client_profile)."""
    with serve(refuses_websocket()) as url:
        run = run_suite("--base-url", url, "--model", "mock", "--profile",
                        "core,websocket,client:codex,client:openai-python,client:openai-node",
                        "-k", "flow and (connect or websocket)", "--timeout", "10",
                        report_dir=tmp_path)  # fmt: skip
    assert run.code == 1
    assert run.failing() == {
        "live.ws.upgrade", "live.client.codex.requests", "live.client.openai_python.requests",
        "live.client.openai_node.requests",
    }, run.stdout[-3000:]  # fmt: skip


def test_the_judge_replays_the_catalogue_the_tests_read() -> None:
    # Under tox the package is installed as a wheel: the judge reads its own copy, which must
    # hold the same files, byte for byte, as the one the tests and the capture script read.
    packaged = Path(conformance.clients.captured_flows.__file__).parent / "captured"
    assert sorted(p.name for p in packaged.iterdir()) == sorted(CLIENT_PROFILES.values())
    files = sorted(str(p.relative_to(packaged)) for p in packaged.rglob("*.json"))
    assert files == sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.rglob("*.json"))
    assert files
    for name in files:
        assert (packaged / name).read_bytes() == (FIXTURES / name).read_bytes(), name
