"""One virtualenv per vendor, installed at the pinned version, audited after every install.

Never the project's venv: each vendor gets ``<root>/<key>`` (default root: ``.venv-vendors/`` in
the repository, git-ignored). A third-party vendor is installed in three steps:

1. its own wheel alone (``pip download --no-deps --only-binary :all:``), whose sha256 must equal
   the pin in :mod:`catalog` — a re-uploaded or substituted file stops the run;
2. the ``locks/`` file as it is (``--no-deps --require-hashes``: every dependency the version
   that was judged, each file checked against its sha256), then that wheel (``--no-deps``);
3. the audit: no distribution of :data:`catalog.BANNED` is present, the vendor is at its pinned
   version, and every ``.pth`` file of the venv's site-packages is one the vendor is known to
   ship (``allowed_pth``). A ``.pth`` line that starts with ``import`` runs at every interpreter
   start — the persistence trick of the litellm 1.82.7/1.82.8 compromise.

A stamp file records what was installed; a venv whose stamp matches is reused (and audited
again). SGLang is installed by the project's own CPU recipe (``scripts/install_sglang.py``, issue
6) or taken from ``--sglang-python``; this project ("ours") from the working tree, non-editable.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import venv
from collections.abc import Callable
from pathlib import Path

from .catalog import BANNED, LOCKS, VENDORS, Vendor
from .errors import InstallError

__all__ = ["InstallError", "audit", "ensure_vendor", "installed_versions", "pth_files"]

STAMP = ".vendors-stamp.json"
Log = Callable[[str], None]


def _run(cmd: list[str], log: Log, *, cwd: Path | None = None) -> str:
    log("+ " + " ".join(cmd))
    done = subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
    )
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        raise InstallError(f"`{' '.join(cmd[:6])} …` failed ({done.returncode}):\n{tail}")
    return done.stdout


def _python(venv_dir: Path) -> Path:
    return venv_dir / "bin" / "python"


def _create(venv_dir: Path, log: Log) -> Path:
    if not _python(venv_dir).exists():
        log(f"creating {venv_dir}")
        venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    return _python(venv_dir)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def site_packages(python: Path) -> list[Path]:
    out = subprocess.run(
        [
            str(python),
            "-c",
            "import json, sysconfig; p = sysconfig.get_paths(); "
            "print(json.dumps(sorted({p['purelib'], p['platlib']})))",
        ],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    ).stdout
    return [Path(p) for p in json.loads(out)]


def pth_files(python: Path) -> list[Path]:
    return sorted(p for site in site_packages(python) if site.is_dir() for p in site.glob("*.pth"))


def installed_versions(python: Path) -> dict[str, str]:
    out = subprocess.run(
        [
            str(python),
            "-c",
            "import json; from importlib import metadata as m; "
            "print(json.dumps({(d.metadata['Name'] or '').lower(): d.version "
            "for d in m.distributions()}))",
        ],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    ).stdout
    return {name.replace("_", "-"): version for name, version in json.loads(out).items()}


def audit(vendor: Vendor, python: Path, log: Log) -> dict[str, str]:
    """Raise :class:`InstallError` unless the venv is clean; return its installed versions."""
    versions = installed_versions(python)
    for (name, version), why in BANNED.items():
        if versions.get(name) == version:
            raise InstallError(f"{name} {version} is installed in {python.parent.parent}: {why}")
    if vendor.distribution and versions.get(vendor.distribution) != vendor.version:
        raise InstallError(
            f"{vendor.distribution} is {versions.get(vendor.distribution)!r} in "
            f"{python.parent.parent}, pinned {vendor.version}"
        )
    unexpected = [p for p in pth_files(python) if p.name not in vendor.allowed_pth]
    if unexpected:
        shown = "; ".join(f"{p}: {p.read_text(errors='replace')[:200]!r}" for p in unexpected)
        raise InstallError(
            f"unexpected .pth file(s) in the {vendor.key} venv (code that runs at every Python "
            f"start): {shown}"
        )
    log(
        f"{vendor.key}: audit ok ({len(versions)} distributions; .pth: "
        f"{', '.join(p.name for p in pth_files(python)) or 'none'})"
    )
    return versions


def _stamp_matches(venv_dir: Path, want: dict[str, str]) -> bool:
    try:
        return bool(json.loads((venv_dir / STAMP).read_text()) == want)
    except (OSError, ValueError):
        return False


def _install_pinned(vendor: Vendor, root: Path, log: Log) -> Path:
    venv_dir = root / vendor.key
    lock = LOCKS / vendor.lock
    want = {"requirement": vendor.requirement, "sha256": vendor.wheel_sha256, "lock": _sha256(lock)}
    if _stamp_matches(venv_dir, want) and _python(venv_dir).exists():
        return _python(venv_dir)
    if (vendor.distribution, vendor.version) in BANNED:
        raise InstallError(
            f"refusing {vendor.requirement}: {BANNED[(vendor.distribution, vendor.version)]}"
        )
    python = _create(venv_dir, log)
    with tempfile.TemporaryDirectory(prefix=f"vendor-{vendor.key}-") as tmp:
        _run(
            [
                str(python),
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--only-binary",
                ":all:",
                f"{vendor.distribution}=={vendor.version}",
                "-d",
                tmp,
            ],
            log,
        )
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise InstallError(f"expected one wheel of {vendor.requirement}, got {wheels}")
        digest = _sha256(wheels[0])
        if digest != vendor.wheel_sha256:
            raise InstallError(
                f"{wheels[0].name}: sha256 {digest}, pinned {vendor.wheel_sha256} — not the "
                "file that was judged; refusing to install it"
            )
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        # Not `WHEEL[extras] -c LOCK`: hashes in a constraints file put pip in hash-checking
        # mode, where the wheel's path (no `==`) is refused; the lock holds the extras' packages.
        _run([*pip, "--no-deps", "--require-hashes", "-r", str(lock)], log)
        _run([*pip, "--no-deps", str(wheels[0])], log)
    (venv_dir / STAMP).write_text(json.dumps(want, indent=1))
    return python


def export_head(repo: Path, root: Path) -> Path:
    """The repository at its HEAD commit, exported once to ``<root>/src/<commit>``: what "ours"
    means in the matrix is a commit, not a working tree with someone's uncommitted edits."""
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    dest = root / "src" / commit[:12]
    if not (dest / "pyproject.toml").is_file():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit], cwd=repo, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    for old in dest.parent.iterdir():  # earlier commits' exports: the venvs move to this one
        if old != dest:
            shutil.rmtree(old, ignore_errors=True)
    return dest


def _install_ours(vendor: Vendor, root: Path, repo: Path, log: Log) -> Path:
    python = _create(root / vendor.key, log)
    source = export_head(repo, root)
    # Non-editable, from the HEAD commit: like a user's install of that commit.
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    with tempfile.TemporaryDirectory(prefix="vendor-ours-") as tmp:
        _run([*pip, "--force-reinstall", "--no-deps", str(source)], log, cwd=Path(tmp))
        _run([*pip, str(source)], log, cwd=Path(tmp))  # its dependencies, if missing
    return python


def _install_sglang(root: Path, repo: Path, log: Log) -> Path:
    script = repo / "scripts" / "install_sglang.py"
    if not script.is_file():
        raise InstallError(f"{script} is missing: the SGLang CPU install (issue 6) is not here yet")
    venv_dir = root / "sglang"
    # --project: this project too, for the reference server (responses-reference): the HEAD
    # commit, exported (install_sglang.py installs it editable, from that export)
    source = export_head(repo, root)
    _run([sys.executable, str(script), "--venv", str(venv_dir), "--project", str(source)], log)
    return _python(venv_dir)


def ensure_vendor(
    key: str, root: Path, repo: Path, log: Log, *, sglang_python: Path | None = None
) -> tuple[Path, dict[str, str]]:
    """The vendor's interpreter, installed and audited, and the venv's distribution versions."""
    vendor = VENDORS[key]
    if key == "sglang":
        if sglang_python is not None:
            if not sglang_python.exists():
                raise InstallError(f"--sglang-python {sglang_python} does not exist")
            python = sglang_python
        else:
            python = _install_sglang(root, repo, log)
        versions = installed_versions(python)
        if versions.get("sglang") != vendor.version:
            raise InstallError(
                f"SGLang in {python} is {versions.get('sglang')!r}, pinned {vendor.version}"
            )
        return python, versions
    if key == "ours":
        python = _install_ours(vendor, root, repo, log)
        return python, installed_versions(python)
    python = _install_pinned(vendor, root, log)
    return python, audit(vendor, python, log)


def remove(key: str, root: Path) -> None:
    shutil.rmtree(root / key, ignore_errors=True)
