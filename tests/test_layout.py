"""The packages' layout, read from the source: every module opens with a docstring and holds at
most 600 lines, and the imports among the modules form no cycle.

Static on purpose, as in tests/conformance/test_import_contract.py: imports are read with `ast`,
so one made inside a function body counts (a function-local import hides a dependency, it does
not remove it), and so does ``importlib.import_module("…")`` with a literal name; an import under
``if TYPE_CHECKING:`` does not (it never runs). ``from pkg import name`` depends on the module
``pkg.name`` where there is one, else on ``pkg`` itself (its ``__init__``).

benchmarks/ has its own cycle test (tests/benchmarks/test_bench_layout.py); the four packages
here are the judge, the judged and the neutral cassette format.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PACKAGES = ("conformance", "mock_server", "reference_impl", "cassettes", "benchmarks")
ACYCLIC = ("conformance", "mock_server", "reference_impl", "cassettes")
MAX_LINES = 600

# Modules over MAX_LINES whose split is under way elsewhere, with where. An entry goes as soon
# as its module is split: test_pending_modules_are_still_over_the_limit fails until it does.
PENDING: Mapping[str, str] = {}


def _sources(root: Path, packages: Iterable[str]) -> list[Path]:
    return sorted(
        p for name in packages for p in (root / name).rglob("*.py") if "__pycache__" not in p.parts
    )


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _known(name: str, modules: Collection[str]) -> str | None:
    """The longest prefix of the dotted ``name`` that is one of ``modules``."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path, root: Path, modules: Collection[str]) -> set[str]:
    """The ``modules`` that ``path`` imports at run time (see the module docstring), relative
    imports resolved."""
    module = _module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str | None] = set()

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for branch in child.orelse:
                    walk(branch)
                continue
            if isinstance(child, ast.Import):
                found.update(_known(alias.name, modules) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    target = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    target = child.module or ""
                for alias in child.names:
                    name = f"{target}.{alias.name}"
                    found.add(name if name in modules else _known(target, modules))
            elif isinstance(child, ast.Call) and child.args:
                func = child.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                arg = child.args[0]
                if name in ("import_module", "__import__") and isinstance(arg, ast.Constant):
                    found.add(_known(str(arg.value), modules))
            walk(child)

    walk(ast.parse(path.read_bytes(), filename=str(path)))
    return {name for name in found if name is not None and name != module}


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Module → the modules of ``packages`` it imports."""
    paths = {_module_name(p, root): p for p in _sources(root, packages)}
    return {module: _imports(path, root, paths.keys()) for module, path in paths.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each
    sorted: every import cycle lies within one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_every_module_opens_with_a_docstring() -> None:
    sources = _sources(ROOT, PACKAGES)
    assert len(sources) > 250  # every package was read
    missing = [
        str(p.relative_to(ROOT))
        for p in sources
        if ast.get_docstring(ast.parse(p.read_bytes(), filename=str(p))) is None
    ]
    assert missing == []


def test_no_module_is_over_the_limit() -> None:
    over = {
        str(p.relative_to(ROOT)): n
        for p in _sources(ROOT, PACKAGES)
        if (n := _lines(p)) > MAX_LINES and str(p.relative_to(ROOT)) not in PENDING
    }
    assert over == {}


def test_pending_modules_are_still_over_the_limit() -> None:
    # Once a pending module is split (or gone), its entry must go, or PENDING hides the next one.
    done = {
        name: why
        for name, why in PENDING.items()
        if not (ROOT / name).is_file() or _lines(ROOT / name) <= MAX_LINES
    }
    assert done == {}, "split now: remove these from PENDING"


def test_no_import_cycle() -> None:
    graph = import_graph(ROOT, ACYCLIC)
    assert len(graph) > 200
    assert sum(map(len, graph.values())) > 500  # the imports were read
    assert cycles(graph) == []


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {
                "pkg/__init__.py": "",
                "pkg/a.py": "from . import b\n",
                "pkg/b.py": "def f():\n    from .a import x\n",
            },
            [["pkg.a", "pkg.b"]],
            id="function-local",
        ),
        pytest.param(
            {
                "pkg/__init__.py": "",
                "pkg/a.py": "from pkg import b\n",
                "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from pkg.a import x\nelse:\n    pass\n",
            },
            [],
            id="type-checking-only",
        ),
        pytest.param(
            {
                "pkg/__init__.py": "from .a import f\nVERSION = 1\n",
                "pkg/a.py": "from pkg import VERSION\n",
            },
            [["pkg", "pkg.a"]],
            id="a-name-of-the-package",
        ),
        pytest.param(
            {
                "pkg/__init__.py": "from .a import f\n",
                "pkg/a.py": "from . import b\n",
                "pkg/b.py": "",
            },
            [],
            id="a-submodule-of-the-package",
        ),
        pytest.param(
            {
                "pkg/__init__.py": "",
                "pkg/sub/__init__.py": "",
                "pkg/sub/a.py": "from .. import c\n",
                "pkg/c.py": "import importlib\nimportlib.import_module('pkg.sub.a')\n",
            },
            [["pkg.c", "pkg.sub.a"]],
            id="relative-and-dynamic",
        ),
    ],
)
def test_the_reader_sees_every_kind_of_cycle(
    tmp_path: Path, files: Mapping[str, str], expected: list[list[str]]
) -> None:
    # The reader must not miss an import form, nor count one that never runs, or the test
    # above proves nothing.
    _write(tmp_path, files)
    assert cycles(import_graph(tmp_path, ["pkg"])) == expected
