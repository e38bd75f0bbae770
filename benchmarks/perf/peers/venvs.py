"""Each peer in its own virtual environment, made on demand from PyPI, pinned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.perf.errors import PeerUnavailable

#: the versions the published table was measured with (both speak /v1/responses)
PINS = {"guidellm": "0.8.1", "aiperf": "0.13.0"}
ENTRY = {"guidellm": "guidellm", "aiperf": "aiperf"}
DEFAULT_ROOT = Path.home() / ".cache" / "responses-conformance" / "peers"


def venv_dir(root: Path, name: str) -> Path:
    return root / f"{name}-{PINS[name]}"


def ensure(root: Path, name: str, *, install: bool = True) -> Path:
    """The peer's executable, installing ``name==PIN`` into its own venv first if missing."""
    venv = venv_dir(root, name)
    exe = venv / "bin" / ENTRY[name]
    if exe.exists():
        return exe
    if not install:
        raise PeerUnavailable(f"{name} {PINS[name]} is not installed in {venv} (--no-install)")
    root.mkdir(parents=True, exist_ok=True)
    log = root / f"{venv.name}.install.log"
    print(f"installing {name}=={PINS[name]} into {venv} (log: {log})", file=sys.stderr)
    with log.open("w") as out:
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"{name}=={PINS[name]}"],
        ]
        for cmd in steps:
            rc = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT, env=os.environ.copy())
            if rc != 0:
                tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["?"]
                raise PeerUnavailable(f"{name}: `{' '.join(cmd[-3:])}` exited {rc}: {tail[0]}")
    if not exe.exists():
        raise PeerUnavailable(f"{name}: installed, but {exe} is missing")
    return exe


def version(exe: Path) -> str:
    """The installed distribution's version, read from the venv's own metadata."""
    python = exe.parent / "python"
    name = exe.name
    try:
        out = subprocess.run(
            [str(python), "-c", f"import importlib.metadata as m; print(m.version('{name}'))"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return out.stdout.strip() or "?"
