"""Install SGLang 0.5.23 for CPU into a Python environment (the tox env `sglang`, or a venv).

    python scripts/install_sglang.py                 # into the running interpreter's environment
    python3 scripts/install_sglang.py --venv .venv-sglang   # create the venv first, then install

Why not `pip install sglang`: it pins a CUDA torch 2.14.1 and pulls sglang-kernel, flashinfer and
3.6 GB of CUDA libraries (291 s, 11 GB), after which `import sgl_kernel` fails on a machine
without libcuda (../shared/notes/sglang-on-cpu.md). What works, in order:

1. ``torch==2.13.0`` — the CPU build (on this machine's disk; found through pip's configured
   find-links);
2. ``sglang==0.5.23`` and ``torchvision==0.28.0`` with ``--no-deps`` (sglang is pinned because
   its internal import paths — the parsers the reference engine reuses — move between releases);
3. SGLang's pure-Python dependencies (``scripts/sglang-requirements.txt``) under the constraint
   ``torch==2.13.0``, so nothing can swap the CPU torch for a CUDA one;
4. the torchvision fix: PyPI's torchvision is linked against CUDA torch, so next to CPU torch its
   C++ operators cannot load and ``import torchvision`` raises (``operator torchvision::nms does
   not exist``) while registering fake kernels for them. SGLang imports torchvision at module load
   (multimodal processors) but a text model never calls a torchvision operator. The fix is a
   ``.pth`` hook (``responses_sglang_torchvision.pth``, code in
   ``scripts/sglang_cpu/torchvision_ops.py``) that declares the schemas of torchvision's operators,
   without kernels, before torchvision registers their fakes; calling one raises. No installed
   file is edited, and the hook lives only in this environment.

Installs go through ``uv pip install`` (uv itself is pip-installed into the environment first),
which takes ~30 s from cold caches where pip took ~250 s; plain pip is the fallback.
The step is idempotent: a stamp in site-packages records what was installed, so a second run with
nothing changed returns at once.
Exit codes: 0 installed, 2 a step failed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "sglang-requirements.txt"
HOOK_SOURCE = HERE / "sglang_cpu" / "torchvision_ops.py"
SGLANG = "sglang==0.5.23"
TORCH = "torch==2.13.0"
TORCHVISION = "torchvision==0.28.0"  # the release built for torch 2.13
PTH_NAME = "responses_sglang_torchvision.pth"
HOOK_MODULE = "responses_sglang_torchvision"


class Installer:
    """``uv pip install`` into ``python``'s environment (uv is pip-installed there first: it
    resolves and downloads in parallel — 30 s instead of 250 s from cold caches here), or plain
    pip where uv cannot be had. Both see pip's configured find-links (the local CPU torch wheel)."""

    def __init__(self, python: str) -> None:
        self.python = python
        self.uv: list[str] | None = None
        try:
            self._run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "uv"])
            self.uv = [python, "-m", "uv", "pip", "install", "--python", python]
            self.uv += [f"--find-links={link}" for link in _find_links(python)]
        except subprocess.CalledProcessError:
            print("install_sglang: uv unavailable, installing with pip", flush=True)

    @staticmethod
    def _run(cmd: list[str]) -> None:
        print("+", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)

    def __call__(self, *args: str) -> None:
        if self.uv is not None:
            self._run([*self.uv, "-q", *args])
        else:
            self._run(
                [self.python, "-m", "pip", "install", "--disable-pip-version-check", "-q", *args]
            )


def _find_links(python: str) -> list[str]:
    links = os.environ.get("PIP_FIND_LINKS", "").split()
    out = subprocess.run(
        [python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key.endswith("find-links"):
            links += value.strip().strip("'\"").split()
    return list(dict.fromkeys(links))


def _installed(python: str) -> dict[str, str]:
    out = subprocess.run(
        [python, "-m", "pip", "list", "--format", "freeze", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    pairs = (line.split("==", 1) for line in out.splitlines() if "==" in line)
    return {name.lower(): version for name, version in pairs}


def _purelib(python: str) -> Path:
    out = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return Path(out.strip())


def _stamp() -> str:
    # Everything that decides what gets installed; equal stamps mean there is nothing to do.
    parts = [SGLANG, TORCH, TORCHVISION, REQUIREMENTS.read_text(), HOOK_SOURCE.read_text()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def install(python: str, project: Path | None = None) -> None:
    site = _purelib(python)
    stamp = site / "responses_sglang_install.stamp"
    fresh = stamp.exists() and stamp.read_text() == _stamp()
    if fresh and project is None:
        print("install_sglang: up to date")
        return
    pip = Installer(python)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as constraints:
        constraints.write(f"{TORCH}\n{TORCHVISION}\n")
    try:
        if fresh:
            print("install_sglang: SGLang up to date")
        else:
            _install_sglang(pip, python, site, constraints.name)
            stamp.write_text(_stamp())
        if project is not None:
            # The project itself, under the same constraint (its dependencies must not move torch).
            pip("-c", constraints.name, "-e", str(project))
    finally:
        os.unlink(constraints.name)


def _install_sglang(pip: Installer, python: str, site: Path, constraints: str) -> None:
    have = _installed(python)
    if not have.get("torch", "").startswith("2.13.0"):
        pip(TORCH)
    wanted = {"sglang": "0.5.23", "torchvision": "0.28.0"}
    if any(have.get(name) != version for name, version in wanted.items()):
        pip("--no-deps", SGLANG, TORCHVISION)
    pip("-r", str(REQUIREMENTS), "-c", constraints)
    shutil.copyfile(HOOK_SOURCE, site / f"{HOOK_MODULE}.py")
    (site / PTH_NAME).write_text(f"import {HOOK_MODULE}; {HOOK_MODULE}.install()\n")
    # The hook works (importing sglang itself takes 15 s more; the tests do that anyway).
    subprocess.run([python, "-c", "import torchvision"], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--venv",
        type=Path,
        help="create this virtualenv (if missing) and install into it; default: the running "
        "interpreter's environment",
    )
    parser.add_argument(
        "--project",
        type=Path,
        help="also install this project (editable) into the environment, under the same constraint",
    )
    args = parser.parse_args(argv)
    python = sys.executable
    if args.venv is not None:
        if not (args.venv / "bin" / "python").exists():
            venv.EnvBuilder(with_pip=True).create(args.venv)
        python = str(args.venv / "bin" / "python")
    elif sys.prefix == sys.base_prefix and not os.environ.get("SGLANG_INSTALL_SYSTEM"):
        print(
            "install_sglang: refusing to install into the system Python; use --venv DIR "
            f"(running {python}, purelib {sysconfig.get_paths()['purelib']})",
            file=sys.stderr,
        )
        return 2
    try:
        install(python, args.project)
    except subprocess.CalledProcessError as error:
        print(f"install_sglang: step failed: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
