"""The files a command reads whole stop at a limit: a targets file (or ``-``),
the mock's ``--script`` and ``--prompts``, a vendor run's ``run.json``. Each was read with
``read_text`` / ``read_bytes``, so ``/dev/zero`` (or a pipe that does not end) grew the process
without end; now each is a one-line error, exit 2, after reading the limit + 1 byte. The near
miss in each: a file of exactly the limit is read."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

import benchmarks.vendors.cli as vendors_cli
import conformance.suite.targets as targets_module
import mock_server.cli as mock_cli
import reference_impl.request.prompts as prompts_module
from conformance.suite.targets import TargetError, load_targets
from reference_impl.request.prompts import PromptFileError, PromptRegistry

LIMIT = 4096
TARGETS = '[targets.t]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
PROMPTS = '{"p": {"1": {"instructions": "hi"}}}'


def _endless(tmp_path: Path, name: str) -> Path:
    link = tmp_path / name
    os.symlink("/dev/zero", link)  # stat() says size 0: the read itself must stop
    return link


def test_a_targets_file_past_the_limit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(targets_module, "MAX_TARGETS_FILE_BYTES", LIMIT)
    with pytest.raises(TargetError, match=f"more than the {LIMIT:,}-byte limit for a targets"):
        load_targets(_endless(tmp_path, "t.toml"))
    exact = tmp_path / "exact.toml"
    exact.write_text(TARGETS + "#" * (LIMIT - len(TARGETS) - 1) + "\n")
    assert exact.stat().st_size == LIMIT
    assert [t.name for t in load_targets(exact)] == ["t"]


def test_targets_on_stdin_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(targets_module, "MAX_TARGETS_FILE_BYTES", LIMIT)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"#" * (LIMIT + 1))))
    with pytest.raises(TargetError, match="-: more than the 4,096-byte limit for a targets file"):
        load_targets("-")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(TARGETS.encode())))
    assert [t.name for t in load_targets("-")] == ["t"]


def test_a_script_past_the_limit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(mock_cli, "MAX_SCRIPT_BYTES", LIMIT)
    path = _endless(tmp_path, "script.json")
    with pytest.raises(SystemExit) as exit_info:
        mock_cli.main(["--script", str(path), "--port", "0"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert f"--script: {path}: more than the 4,096-byte limit for a script" in err
    # The near miss: a script of exactly the limit gets past the read, to the parser.
    exact = tmp_path / "exact.json"
    exact.write_text('[{"say": "x"}]' + " " * (LIMIT - 14))
    assert exact.stat().st_size == LIMIT
    assert mock_cli.read_at_most(exact, LIMIT) == exact.read_bytes()


def test_a_prompts_file_past_the_limit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(prompts_module, "MAX_PROMPTS_FILE_BYTES", LIMIT)
    with pytest.raises(PromptFileError, match="more than the 4,096-byte limit for a prompts file"):
        PromptRegistry.from_file(_endless(tmp_path, "prompts.json"))
    exact = tmp_path / "exact.json"
    exact.write_text(PROMPTS + " " * (LIMIT - len(PROMPTS)))
    assert exact.stat().st_size == LIMIT
    PromptRegistry.from_file(exact)


def test_a_vendor_run_record_past_the_limit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(vendors_cli, "_MAX_JSON_BYTES", LIMIT)
    _endless(tmp_path, "run.json")
    with pytest.raises(SystemExit) as exit_info:
        vendors_cli.main(["summary", str(tmp_path)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1
    assert "run.json: more than the 4,096-byte limit for a JSON file" in err
    exact = tmp_path / "exact.json"
    exact.write_text("{}" + " " * (LIMIT - 2))
    assert vendors_cli._read_json(exact, "x") == {}
