"""The build step pyproject.toml cannot say: the documents a check's clause cites (docs/spec.md,
docs/known-bugs.md) are packaged into the wheel as ``conformance/_docs/``, so that ``explain`` and
the HTML report of a wheel installed anywhere cite text the user has. docs/ stays the one source;
the wheel's copy is made here at build time (tests/conformance/catalog/test_spec_in_wheel.py builds
a wheel and compares)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# The documents conformance/catalog/docs.py resolves (SPEC_DOC, KNOWN_BUGS_DOC).
CITED_DOCS = ("docs/spec.md", "docs/known-bugs.md")


class BuildPyWithSpec(build_py):
    """build_py, then the cited documents copied beside the package."""

    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "conformance" / "_docs"
        target.mkdir(parents=True, exist_ok=True)
        for doc in CITED_DOCS:
            source = root / doc
            if not source.is_file():
                raise SystemExit(f"setup.py: {doc} is missing; the wheel must carry it")
            shutil.copyfile(source, target / source.name)


setup(cmdclass={"build_py": BuildPyWithSpec})
