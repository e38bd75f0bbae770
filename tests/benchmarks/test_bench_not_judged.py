"""responses-bench against a target it cannot judge: a refused key, a model the server does not
serve — one line and exit 2 before any load, not a run of failures; a 500 stays measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_support import run_bench, scripted_server

REFUSED = json.dumps({"error": {"message": "Incorrect API key provided.", "type":
                                "invalid_request_error", "param": None,
                                "code": "invalid_api_key"}}).encode()  # fmt: skip
NO_MODEL = json.dumps({"object": "error", "message": "The model `m` does not exist.",
                       "type": "NotFoundError", "param": None, "code": 404}).encode()  # fmt: skip


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (401, REFUSED, "authentication refused: HTTP 401"),
        (404, NO_MODEL, "does not serve the model 'm'"),
    ],
    ids=["wrong-key", "unknown-model"],
)
def test_could_not_judge_exits_2_in_one_line(
    tmp_path: Path, status: int, body: bytes, said: str
) -> None:
    with scripted_server(body, status=status) as url:
        run = run_bench(tmp_path / "r", "--base-url", url, "--model", "m", "-t", "2s", timeout=60)
    assert run.code == 2, run.output
    lines = [line for line in run.output.splitlines() if "could not judge" in line]
    assert len(lines) == 1 and said in lines[0], run.output
    assert "Traceback" not in run.output
    assert not (tmp_path / "r" / "summary.json").exists(), "no load ran"


def test_a_server_error_is_measured(tmp_path: Path) -> None:
    """Near miss: a 500 is an answer — the run goes on and counts it (exit 1)."""
    error = json.dumps({"error": {"message": "boom", "type": "server_error", "param": None,
                                  "code": None}}).encode()  # fmt: skip
    with scripted_server(error, status=500) as url:
        run = run_bench(tmp_path / "r", "--base-url", url, "--model", "m", "-u", "1", "-t", "1s")
    assert run.code == 1, run.output
    assert "could not judge" not in run.output
