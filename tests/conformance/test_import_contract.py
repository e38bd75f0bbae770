"""The one rule of the architecture, read from the source: the judge (`conformance/`) imports nothing of
the judged (`mock_server/`, `reference_impl/`), and they import nothing of the judge.

Static on purpose: imports are read with `ast`, not by running code, so an import that only a
rarely taken branch, a function body or `TYPE_CHECKING` makes is caught too, and so is
`importlib.import_module("…")` / `__import__("…")` with a literal name. A package both sides may
share goes in `NEUTRAL` (`cassettes/`: bytes, headers, timings, redaction); it imports
neither side, and nothing else is neutral.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

JUDGE = frozenset({"conformance"})
JUDGED = frozenset({"mock_server", "reference_impl"})
# Top-level packages of this repository that both the judge and the judged may import.
NEUTRAL: frozenset[str] = frozenset({"cassettes"})
# Every top-level package of this repository that holds code (benchmarks and tests may import all).
OURS = JUDGE | JUDGED | NEUTRAL | {"benchmarks", "tests"}

_DYNAMIC = frozenset({"import_module", "__import__"})


def _package_of(path: Path) -> str:
    return path.relative_to(ROOT).parts[0]


def _module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_packages(path: Path) -> set[tuple[str, int]]:
    """The top-level packages a source file imports, with the line of each import; relative
    imports are resolved against the file's own package."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module[:-1]
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update((alias.name.split(".")[0], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                target = [*base, *(node.module.split(".") if node.module else [])]
                if target:
                    found.add((target[0], node.lineno))
            elif node.module:
                found.add((node.module.split(".")[0], node.lineno))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in _DYNAMIC and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add((arg.value.split(".")[0], node.lineno))
                elif isinstance(arg, ast.JoinedStr) and arg.values:
                    head = arg.values[0]
                    if isinstance(head, ast.Constant) and isinstance(head.value, str):
                        found.add((head.value.split(".")[0], node.lineno))
    return found


def _sources(packages: frozenset[str]) -> list[Path]:
    return sorted(p for name in packages for p in (ROOT / name).rglob("*.py"))


def _crossings(sources: list[Path], forbidden: frozenset[str]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line} imports {package}"
        for path in sources
        for package, line in sorted(imported_packages(path))
        if package in forbidden
    ]


def test_the_judge_imports_nothing_of_the_judged() -> None:
    sources = _sources(JUDGE)
    assert len(sources) > 40  # the whole package was read
    assert _crossings(sources, JUDGED) == []


def test_the_judged_import_nothing_of_the_judge() -> None:
    sources = _sources(JUDGED)
    assert len(sources) > 20
    assert _crossings(sources, JUDGE) == []


def test_neutral_packages_are_neither_side() -> None:
    assert not NEUTRAL & (JUDGE | JUDGED)


def test_neutral_packages_import_neither_side() -> None:
    # Not the judge, not the judged, nor anything else of this repository but themselves.
    sources = _sources(NEUTRAL)
    assert len(sources) >= 6  # cassettes/ was read
    assert _crossings(sources, OURS - NEUTRAL) == []


def test_both_sides_may_import_the_neutral_packages() -> None:
    # The contract allows it, and the mock's record/replay and the judge's `check DIR` do so.
    assert _crossings(_sources(JUDGE), NEUTRAL) != []
    assert _crossings(_sources(JUDGED), NEUTRAL) != []


@pytest.mark.parametrize(
    ("where", "source", "expected"),
    [
        ("conformance/x.py", "import mock_server\n", {"mock_server"}),
        ("conformance/x.py", "import mock_server.engine as e\n", {"mock_server"}),
        ("conformance/x.py", "from reference_impl.app import app\n", {"reference_impl"}),
        ("conformance/x.py", "def f():\n    from mock_server import engine\n", {"mock_server"}),
        (
            "conformance/x.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import reference_impl\n",
            {"typing", "reference_impl"},
        ),
        (
            "conformance/x.py",
            "import importlib\nimportlib.import_module('mock_server.cli')\n",
            {"importlib", "mock_server"},
        ),
        ("conformance/x.py", "__import__('reference_impl')\n", {"reference_impl"}),
        (
            "conformance/x.py",
            "import importlib\nimportlib.import_module(f'mock_server.{x}')\n",
            {"importlib", "mock_server"},
        ),
        ("conformance/suite/x.py", "from .. import catalog\n", {"conformance"}),
        ("conformance/suite/x.py", "from . import probe\n", {"conformance"}),
        ("mock_server/x.py", "from conformance import StreamValidator\n", {"conformance"}),
        ("mock_server/x.py", "from . import engine\n", {"mock_server"}),
        ("reference_impl/sub/__init__.py", "from .. import app\n", {"reference_impl"}),
    ],
)
def test_every_kind_of_import_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, source: str, expected: set[str]
) -> None:
    # The reader itself must not miss an import form, or the two tests above prove nothing.
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_text(source)
    assert {package for package, _ in imported_packages(path)} == expected
