#!/usr/bin/env python3
"""Render an HTML report (``report.html`` of ``responses-conformance run``) to a PNG with headless
Chromium, to look at what a person sees.

    python scripts/render_report_png.py reports/report.html report.png [--window-size 1400,1000]

Needs Debian's ``chromium`` package (``apt-get install -y chromium``). Exit codes: 0 the PNG was
written, 1 Chromium ran but wrote no PNG, 2 no Chromium found or bad arguments.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def render(html: Path, png: Path, *, chromium: str, window: str, timeout: float = 120) -> bool:
    png = png.resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        command = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}",
            f"--screenshot={png}", f"--window-size={window}", html.resolve().as_uri(),
        ]  # fmt: skip
        subprocess.run(
            command, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
        )
    return png.is_file() and png.stat().st_size > 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path, help="the report.html to render")
    parser.add_argument("png", type=Path, help="where to write the screenshot")
    parser.add_argument("--window-size", default="1400,1000", help="W,H (default 1400,1000)")
    parser.add_argument("--chromium", default=None, help="the browser binary (default: search)")
    args = parser.parse_args(argv)
    if not args.html.is_file():
        print(f"render_report_png: no such file: {args.html}", file=sys.stderr)
        return 2
    chromium = args.chromium or find_chromium()
    if chromium is None:
        print("render_report_png: no Chromium found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    if not render(args.html, args.png, chromium=chromium, window=args.window_size):
        print("render_report_png: Chromium wrote no screenshot", file=sys.stderr)
        return 1
    print(args.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
