"""Real traffic is the arbiter: every file of ``openai-recorded-2`` — 1,045
responses that api.openai.com and Azure OpenAI sent to the test suites of ten public projects —
passes ``check --strict``; the streams listed in ``LEGACY.tsv``, recorded before OpenAI added
``sequence_number`` and text-delta ``logprobs`` (mid-2025), fail for exactly that and nothing else.

A stream the MANIFEST marks as resumed (``resume_after``) is judged as one. No body of this corpus is
a ``response.compaction`` object (four are Responses whose output holds a ``compaction`` item: they
are ordinary Responses and are judged here like every other).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from conformance import check_file, failing
from conformance.catalog.registry import Violation

CORPUS = Path(__file__).parents[2] / "data" / "openai-recorded-2"


def _manifest() -> list[dict[str, str]]:
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _legacy() -> frozenset[str]:
    with (CORPUS / "LEGACY.tsv").open(encoding="utf-8", newline="") as f:
        return frozenset(row["file"] for row in csv.DictReader(f, delimiter="\t"))


ROWS = _manifest()
LEGACY = _legacy()
KIND = {"stream": "sse", "body": "response", "error": "error"}
# What a stream from before mid-2025 lacks: the counter on every event, and `logprobs` on the
# text deltas / `.done` events (both required by OpenAI's schema for current traffic).
LEGACY_CHECKS = frozenset({"stream.sequence.present", "event.schema.required"})
LEGACY_FIELDS = frozenset({"sequence_number", "logprobs"})


def _resume_after(row: dict[str, str]) -> int | None:
    return int(row["resume_after"]) if row["resume_after"].strip() else None


def _judge(row: dict[str, str]) -> list[Violation]:
    verdict = check_file(CORPUS / row["file"], resume_after=_resume_after(row))
    assert verdict.kind == KIND[row["kind"]], row["file"]
    return failing(verdict.violations, strict=True)


def _fail_text(bad: dict[str, list[Violation]]) -> str:
    lines = []
    for name, violations in sorted(bad.items()):
        lines.append(f"{name}:")
        lines += [f"    {v.format()}" for v in violations[:5]]
    return "\n".join(lines)


def test_corpus_is_complete() -> None:
    # The counts the corpus README states; a lost file would silently shrink the proof.
    kinds = Counter(row["kind"] for row in ROWS)
    assert (kinds["stream"], kinds["body"], kinds["error"]) == (390, 616, 39)
    on_disk = {
        str(p.relative_to(CORPUS)) for sub in ("streams", "bodies", "errors")
        for p in (CORPUS / sub).iterdir()
    }  # fmt: skip
    assert on_disk == {row["file"] for row in ROWS}
    assert on_disk >= LEGACY and len(LEGACY) == 9
    errors = [row for row in ROWS if row["kind"] == "error"]
    assert all(int(row["http_status"]) >= 400 for row in errors)


@pytest.mark.parametrize("kind", ["stream", "body", "error"])
def test_every_current_file_passes_strict(kind: str) -> None:
    bad = {}
    for row in ROWS:
        if row["kind"] != kind or row["file"] in LEGACY:
            continue
        violations = _judge(row)
        if violations:
            bad[row["file"]] = violations
    assert not bad, f"{len(bad)} real file(s) flagged:\n" + _fail_text(bad)


@pytest.mark.parametrize("name", sorted(LEGACY), ids=lambda n: Path(n).stem)
def test_legacy_stream_fails_only_for_what_predates_mid_2025(name: str) -> None:
    row = next(r for r in ROWS if r["file"] == name)
    violations = _judge(row)
    assert {v.check_id for v in violations} == LEGACY_CHECKS, _fail_text({name: violations})
    # Each schema finding is a missing `sequence_number` or text-delta `logprobs`, and only that.
    schema = [v for v in violations if v.check_id == "event.schema.required"]
    assert {v.path.rsplit(".", 1)[-1] for v in schema} == LEGACY_FIELDS
    events = [v for v in violations if v.check_id == "stream.sequence.present"]
    assert len(events) == int(row["events"])  # every event lacks the counter


def test_cli_strict_over_the_whole_corpus_fails_exactly_the_legacy_files(tmp_path: Path) -> None:
    # The acceptance command itself: `responses-conformance check --strict --format json` over
    # every file of the corpus (no resumed stream in it today: see the MANIFEST test below).
    assert not any(_resume_after(row) is not None for row in ROWS)
    files = [row["file"] for row in ROWS]
    out = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "check", "--strict", "--format", "json", *files],
        cwd=CORPUS,
        capture_output=True,
        check=False,
    )
    assert out.returncode == 1, out.stderr.decode()
    report = json.loads(out.stdout)
    assert report["unreadable"] == []
    assert len(report["files"]) == len(ROWS) == 1045
    failed = {f["path"] for f in report["files"] if not f["passed"]}
    assert failed == LEGACY
