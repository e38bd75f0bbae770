"""``responses-reference`` without SGLang: help, store specs, and clear exits when SGLang is
missing or unreachable (issue 6; the SGLang paths themselves run in tox -e sglang)."""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from reference_impl.cli import build_parser, main, make_store
from reference_impl.sqlite_store import SQLiteStore
from reference_impl.store import MemoryStore


def test_help_explains_both_modes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for words in ("--model-path", "--sglang-url", "--store", "redis://", "127.0.0.1", "--api-key"):
        assert words in text


def test_store_specs(tmp_path: Path) -> None:
    assert isinstance(make_store("memory"), MemoryStore)
    assert make_store("memory:5").max_responses == 5
    assert isinstance(make_store(f"sqlite:{tmp_path / 'r.db'}"), SQLiteStore)
    for bad in ("memory:0", "sqlite:", "disk"):
        with pytest.raises(ValueError):
            make_store(bad)


def test_bad_store_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--store", "disk", "--sglang-url", "http://127.0.0.1:9"])
    assert exit_info.value.code == 2


def test_unreachable_sglang_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reference_impl.cli", "--port", "0", "--sglang-url",
         "http://127.0.0.1:9"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "cannot reach SGLang at http://127.0.0.1:9" in done.stderr


@pytest.mark.skipif(find_spec("sglang") is not None, reason="SGLang is installed here")
def test_in_process_without_sglang_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reference_impl.cli", "--port", "0", "--model-path", "m"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "SGLang is not installed" in done.stderr
