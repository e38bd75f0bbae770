"""Every known-bugs row that needs a live server, and four stream-level ones, reproduced by a broken
server: the suite reports it under its check ID and exits 1 (KB25, a SHOULD: only with --strict)."""

from __future__ import annotations

from pathlib import Path

import pytest
from broken_servers import BROKEN
from suite_support import run_suite, serve


@pytest.mark.parametrize("kb", sorted(BROKEN))
def test_broken_server_is_caught(kb: str, tmp_path: Path) -> None:
    broken = BROKEN[kb]
    args = ["--model", "mock", "--profile", broken.profiles, "-k", broken.keyword,
            "--no-instructions", "--timeout", "10"]  # fmt: skip
    with serve(broken.factory()) as url:
        run = run_suite("--base-url", url, *args, report_dir=tmp_path / "plain")
        strict = (
            run_suite("--base-url", url, *args, "--strict", report_dir=tmp_path / "strict")
            if broken.should else None
        )  # fmt: skip
    outcomes = run.outcomes()
    if broken.should:
        assert run.code == 0, run.stdout[-3000:]
        assert {outcomes[c] for c in broken.expected} == {"warn"}
        assert strict is not None and strict.code == 1, strict.stdout[-3000:] if strict else ""
        assert broken.expected <= strict.failing()
    else:
        assert run.code == 1, run.stdout[-3000:] + run.stderr[-3000:]
        assert broken.expected <= run.failing(), sorted(run.failing())
    for check in broken.expected:  # evidence: the request and what came back
        evidence = run.index["targets"][next(iter(run.index["targets"]))]["checks"][check]
        first = evidence["evidence"][0]
        assert first["request"]["method"] and first["expected"] and first["actual"]
