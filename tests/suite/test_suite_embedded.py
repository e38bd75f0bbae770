"""The README's main-job command against the embedded mock: every profile green, exit 0, every
report written."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from suite_support import ROOT, run_suite

from conformance.suite.embedded import EmbeddedMock, EmbeddedMockError
from conformance.suite.targets import EMBEDDED_PROFILES

# What no case makes the mock send: no case asks a server to fail a stream.
# (The hosted:web_search case's answer cites its sources, the hosted:shell case streams a command,
# the core logprobs case asks for logprobs: those checks are exercised.)
NOT_EXERCISED_ON_THE_MOCK = {"stream.error.followed_by_failed"}
# Checks a case evaluates through the probe's helpers, whatever it is tagged with.
HARNESS = {"live.transport.deadline", "live.case.completed", "live.http.status_ok",
           "live.stream.content_type"}  # fmt: skip


def test_main_job_every_profile_green(tmp_path: Path) -> None:
    started = time.monotonic()
    # A user with OPENAI_BASE_URL set must not be sent anywhere by it.
    run = run_suite(report_dir=tmp_path, env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    wall = time.monotonic() - started
    assert run.code == 0, run.stdout[-3000:] + run.stderr[-3000:]
    print(f"all profiles against the embedded mock: {wall:.1f} s wall")
    assert wall < 60
    target = run.index["targets"]["mock"]
    assert target["status"] == "ran"
    assert target["target"]["profiles"] == list(EMBEDDED_PROFILES)
    outcomes = run.outcomes()
    assert not {c for c, o in outcomes.items() if o in ("fail", "xpass", "warn")}
    # Every check runs: the mock even follows the recall case's instruction (it is deterministic),
    # and it claims every profile, WebSocket steering included: none is skipped.
    from conformance.catalog.registry import REGISTRY

    skipped = {c for c, o in outcomes.items() if o == "skip"}
    assert skipped == set()
    assert {c for c, o in outcomes.items() if o == "not_exercised"} == NOT_EXERCISED_ON_THE_MOCK
    summary = target["summary"]
    assert summary["exercised"] == len(outcomes) - len(NOT_EXERCISED_ON_THE_MOCK) - len(skipped)
    assert f"{summary['exercised']} checks exercised" in run.stdout
    assert all(
        o == "pass"
        for c, o in outcomes.items()
        if c.startswith("live.") and REGISTRY[c].profile in EMBEDDED_PROFILES
    )
    for name in ("index.json", "junit.xml", "report.html"):
        assert (tmp_path / name).stat().st_size > 1000
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.get("failures") == "0" and int(junit.get("tests", "0")) > 100
    assert "Matrix" in (tmp_path / "report.html").read_text()
    assert "-- mock: passed" in run.stdout


def test_cases_are_tagged_with_the_checks_they_evaluate(tmp_path: Path) -> None:
    run = run_suite("-k", "not create", report_dir=tmp_path)
    target = run.index["targets"]["mock"]
    tags = {c["id"]: set(c["checks"]) for c in target["cases"]}
    untagged = [
        (check_id, case)
        for check_id, entry in target["checks"].items()
        if check_id.startswith("live.") and check_id not in HARNESS
        for case in entry["cases"]
        if check_id not in tags[case]
    ]
    assert untagged == []
    # A retried case says so, and never runs more than three times.
    assert all(c["attempts"] <= 3 for c in target["cases"])
    assert all(len(c["retried"]) in (c["attempts"] - 1, c["attempts"]) for c in target["cases"])
    # The mock's auto mode answers the case's two-city request with two calls at once
    # (mock_server/instructions.py), deterministically: no retry needed.
    parallel = next(c for c in target["cases"] if c["id"] == "tools/parallel_calls")
    assert parallel["outcome"] == "passed" and parallel["attempts"] == 1


def test_the_judge_never_imports_the_judged() -> None:
    code = (
        "import sys\n"
        "from conformance.cli import main\n"
        "rc = main(['run', '-k', 'create and string and not stream'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('mock_server', 'reference_impl'))\n"
        "print('IMPORTED', bad)\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "IMPORTED []" in done.stdout


def test_index_is_json_keyed_target_check_outcome(tmp_path: Path) -> None:
    run = run_suite("-k", "store_false", "--profile", "core,stateful", report_dir=tmp_path)
    doc = json.loads((tmp_path / "index.json").read_text())
    entry = doc["targets"]["mock"]["checks"]["live.store.false_not_retrievable"]
    assert entry["outcome"] == "pass" and entry["level"] == "MUST"
    assert entry["cases"] == ["store/store_false_not_retrievable[nonstream]",
                              "store/store_false_not_retrievable[stream]"]  # fmt: skip
    meta = doc["checks"]["live.store.false_not_retrievable"]
    assert meta["clause"].startswith("§4.1") and meta["anchor"] == "docs/spec.md#s4-1"
    assert run.code == 0


def test_an_embedded_mock_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(EmbeddedMockError, match=r"did not start: .*bad store"):
        EmbeddedMock(extra_args=("--store", "bogus")).start()
