"""Every live check of the state profiles (conversations, compaction, stateless-reasoning) fails
against a server with that one defect (tests/suite/broken_state_servers.py) and passes on the
mock: the suite names the defect by its check ID, with evidence, and exits 1 (a SHOULD check:
only with --strict)."""

from __future__ import annotations

from pathlib import Path

import pytest
from broken_state_servers import BROKEN_STATE
from suite_support import mock_app, run_suite, serve

from conformance import catalog_live  # noqa: F401  (registers the live.* checks)
from conformance.checks import REGISTRY

STATE_PROFILES = ("conversations", "compaction", "stateless-reasoning")


def test_every_state_check_has_a_broken_server() -> None:
    ids = {c.id for c in REGISTRY.values() if c.profile in STATE_PROFILES}
    assert ids == BROKEN_STATE.keys()


@pytest.mark.parametrize("check_id", sorted(BROKEN_STATE))
def test_broken_state_server_is_caught(check_id: str, tmp_path: Path) -> None:
    broken = BROKEN_STATE[check_id]
    args = ["--model", "mock", "--profile", broken.profiles, "-k", broken.keyword,
            "--timeout", "10"]  # fmt: skip
    if broken.should:
        args.append("--strict")
    with serve(broken.factory()) as url:
        run = run_suite("--base-url", url, *args, report_dir=tmp_path)
    assert run.code == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert check_id in run.failing(), sorted(run.failing())
    entry = run.index["targets"][next(iter(run.index["targets"]))]["checks"][check_id]
    first = entry["evidence"][0]
    assert first["request"]["method"] and first["expected"] and first["actual"]


def test_state_profiles_pass_on_the_mock(tmp_path: Path) -> None:
    with serve(mock_app()) as url:
        run = run_suite(
            "--base-url", url, "--model", "mock", "--profile", ",".join(STATE_PROFILES),
            "--strict", "--timeout", "10", report_dir=tmp_path,
        )  # fmt: skip
    assert run.code == 0, run.stdout[-3000:] + run.stderr[-3000:]
    outcomes = run.outcomes()
    for check_id in BROKEN_STATE:
        assert outcomes[check_id] == "pass", (check_id, outcomes[check_id])
