"""The spec travels with the package: a wheel built from this checkout carries docs/spec.md and
docs/known-bugs.md (setup.py copies them to ``conformance/_docs/``), byte for byte, and
``responses-conformance explain`` run from another folder, with that wheel installed in a fresh
venv, prints the text of the clause a check cites; the report it writes carries the clauses it
links."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import conformance.cli  # noqa: F401  (the full registry)
from conformance.catalog.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[3]
_SOURCES = ("conformance", "mock_server", "reference_impl", "benchmarks", "cassettes")
_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "docs/spec.md",
          "docs/known-bugs.md")  # fmt: skip


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built (``pip wheel --no-deps``) from a copy of this checkout's sources."""
    src = tmp_path_factory.mktemp("src")
    for name in _SOURCES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in _FILES:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:  # no setuptools to build with (no index and no cache): not ours
        pytest.skip(f"pip wheel could not build here: {done.stderr.strip()[-300:]}")
    (built,) = out.glob("responses_conformance-*.whl")
    return built


def test_the_wheel_carries_the_cited_documents_as_in_docs(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        for doc in ("spec.md", "known-bugs.md"):
            packaged = zf.read(f"conformance/_docs/{doc}")
            assert packaged == (ROOT / "docs" / doc).read_bytes()


def test_the_wheel_carries_the_clients_flows_and_pinned_packages(wheel: Path) -> None:
    # `responses-conformance clients` runs these from the installed package (conformance/clients)
    names = (
        "clients/scripts/python_flows.py", "clients/node/js/flows.mjs",
        "clients/node/js/package.json", "clients/node/js/package-lock.json",
        "clients/node/codex/package.json", "clients/node/codex/package-lock.json",
    )  # fmt: skip
    with zipfile.ZipFile(wheel) as zf:
        for name in names:
            assert zf.read(f"conformance/{name}") == (ROOT / "conformance" / name).read_bytes()


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with the wheel installed (its dependencies from this environment), and the
    environment to run it in."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)  # fmt: skip
    py = venv / "bin" / "python"
    purelib = Path(subprocess.check_output(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True,
    ).strip())  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    pip = [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
           "--no-index", str(wheel)]  # fmt: skip
    done = subprocess.run(pip, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr
    # The dependencies come from the running environment's site-packages, after the venv's own
    # (a bare path in a .pth: the editable finder a .pth there may install is not run). Written
    # after the install: pip would otherwise see this package already installed there (a tox
    # env installs it non-editable) and install nothing into the venv.
    (purelib / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = subprocess.check_output(
        [str(py), "-c", "import conformance; print(conformance.__file__)"], cwd=venv.parent, env=env,
        text=True,
    )  # fmt: skip
    assert Path(where.strip()).is_relative_to(venv), where
    return venv, env


def test_explain_from_an_installed_wheel_prints_the_clause(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = installed
    cli = [str(venv / "bin" / "responses-conformance"), "explain", "stream.sequence.contiguous"]
    done = subprocess.run(cli, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "docs/spec.md#s2-1:" in done.stdout
    assert "**§2.1 Sequence numbers.** `sequence_number` counts 0, 1, 2," in done.stdout
    assert "not found" not in done.stdout
    # report.html comes from the packaged templates (conformance/suite/reporting/templates)
    # a vendor's published index, its catalogue anchored as this version writes it (that index
    # predates the `anchor` field, and a clause without one is shown as text)
    index, out = tmp_path / "index.json", tmp_path / "merged"
    published = json.loads((ROOT / "docs/vendors/sglang-0.5.23/index.json").read_text())
    for check_id, meta in published["checks"].items():
        if check_id in REGISTRY:
            meta.update(clause=REGISTRY[check_id].clause, anchor=REGISTRY[check_id].anchor)
    index.write_text(json.dumps(published))
    cli = [str(venv / "bin" / "responses-conformance"), "report", "--report-dir", str(out),
           str(index)]  # fmt: skip
    done = subprocess.run(cli, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
                          check=False)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<h2>Findings</h2>" in page
    # its clauses are on the page, from the packaged spec: every link lands on the page itself
    assert '<div class="clause" id="clause-spec-s2-1"><h3>docs/spec.md#s2-1</h3>' in page
    hrefs, ids = re.findall(r'href="([^"]*)"', page), set(re.findall(r'\bid="([^"]*)"', page))
    assert hrefs and all(h.startswith("#") and h[1:] in ids for h in hrefs)


def test_the_suite_runs_its_cases_from_an_installed_wheel(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    # The cases are declared in the installed section modules (conformance/sections): the suite
    # collects them there, from another folder, against the installed embedded mock.
    venv, env = installed
    cli = [str(venv / "bin" / "responses-conformance"), "run", "--profile", "core,stateful",
           "-k", "store_false or delete", "--report-dir", str(tmp_path / "r")]  # fmt: skip
    done = subprocess.run(cli, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=240,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    cases = json.loads((tmp_path / "r" / "index.json").read_text())["targets"]["mock"]["cases"]
    ran = {c["id"]: c["outcome"] for c in cases if c["outcome"] != "skipped"}
    assert ran == {
        "store/store_false_not_retrievable[nonstream]": "passed",
        "store/store_false_not_retrievable[stream]": "passed",
        "store/delete": "passed",
        "errors/unknown_response_id[delete]": "passed",
    }


def test_the_wheel_carries_the_report_templates(wheel: Path) -> None:
    # the suite's report.html and the clients harness's
    with zipfile.ZipFile(wheel) as zf:
        paths = sorted((ROOT / "conformance").glob("**/templates/*.j2"))
        assert {p.parent.parent.name for p in paths} == {"reporting", "clients"}
        assert paths, "no templates found"
        for path in paths:
            name = path.relative_to(ROOT).as_posix()
            assert zf.read(name) == path.read_bytes()


def test_the_wheel_carries_the_client_catalogue(wheel: Path) -> None:
    # The client profiles replay it (docs/client-catalogue.md): a vendor's installed judge has no
    # checkout of the tests.
    catalogue = ROOT / "conformance" / "clients" / "captured"
    with zipfile.ZipFile(wheel) as zf:
        packaged = {n for n in zf.namelist() if n.startswith("conformance/clients/captured/")}
        assert packaged == {p.relative_to(ROOT).as_posix() for p in catalogue.glob("*/*.json")}
        some = sorted(packaged)[0]
        assert zf.read(some) == (ROOT / some).read_bytes()
