"""The HTML matrix for two targets (the embedded mock and a broken server), rendered by headless
Chromium through ``scripts/render_report_png.py`` (skipped where Chromium is not installed).
Set CONFORMANCE_SCREENSHOT_DIR to keep the report and the PNG."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from broken_servers import several_defects
from suite_support import ROOT, run_suite, serve

SCRIPT = ROOT / "scripts" / "render_report_png.py"
CHROMIUM = next(
    (p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))), None
)


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
def test_matrix_of_two_targets_renders_to_png(tmp_path: Path) -> None:
    with serve(several_defects()) as url:
        targets = tmp_path / "targets.toml"
        targets.write_text(
            "[targets.mock]\nembedded = true\n\n"
            f'[targets.broken]\nbase_url = "{url}"\nmodel = "mock"\n'
            'profiles = ["stateful", "tools", "reasoning", "structured", "openresponses"]\n'
            "follows_instructions = false\n"
        )
        run = run_suite("--targets", str(targets), report_dir=tmp_path / "reports")
    assert run.code == 1
    assert run.outcomes("mock")["live.store.false_not_retrievable"] == "pass"
    failing = run.failing("broken")
    assert {"stream.output_index.contiguous", "live.max_output_tokens.incomplete",
            "error.code.type", "live.store.false_not_retrievable"} <= failing  # fmt: skip
    png = tmp_path / "matrix.png"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "reports" / "report.html"), str(png)],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1400, 1000)
    assert len(data) > 20_000  # a rendered page, not a blank one
    keep = os.environ.get("CONFORMANCE_SCREENSHOT_DIR")
    if keep:
        shutil.copytree(tmp_path / "reports", Path(keep) / "reports", dirs_exist_ok=True)
        shutil.copy(png, Path(keep) / "matrix.png")
