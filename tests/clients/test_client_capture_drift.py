"""Drift: the real clients, re-captured now, still send what conformance/clients/captured records.

Runs every client (scripts/capture_clients.py --check): a client update that changes its requests
fails here with the diff. Needs node/npm, the registry once (npm ci in scripts/client_capture) and
the Python clients installed, and takes minutes: on demand only, ``tox -e clients`` (it sets
RESPONSES_CLIENT_CAPTURE=1); skipped otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("RESPONSES_CLIENT_CAPTURE") != "1",
    reason="re-captures every client (minutes, node and npm): tox -e clients",
)


def test_a_fresh_capture_equals_the_catalogue() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "capture_clients.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-20000:]
