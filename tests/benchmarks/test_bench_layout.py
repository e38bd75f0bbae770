"""benchmarks/ holds three parts, one folder each, and the load tool's imports form no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import benchmarks

ROOT = Path(benchmarks.__file__).resolve().parent
PARTS = ("responses_bench", "perf", "vendors")


def _imports(path: Path, package: str) -> set[str]:
    """Every module of the project this file imports, at any level (TYPE_CHECKING included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    return {name for name in found if name.startswith("benchmarks")}


def _graph(part: str) -> dict[str, set[str]]:
    package = f"benchmarks.{part}"
    modules = {f"{package}.{p.stem}": p for p in (ROOT / part).glob("*.py") if p.stem != "__init__"}
    return {name: _imports(path, package) & set(modules) for name, path in modules.items()}


def test_only_the_three_parts_live_in_benchmarks() -> None:
    loose = sorted(p.name for p in ROOT.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    assert {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()} == set(PARTS)


def test_the_load_tool_depends_on_neither_other_part() -> None:
    package = "benchmarks.responses_bench"
    for path in (ROOT / "responses_bench").glob("*.py"):
        others = {
            n
            for n in _imports(path, package)
            if n.startswith(("benchmarks.perf", "benchmarks.vendors"))
        }
        assert not others, f"{path.name} imports {sorted(others)}"


def test_no_import_cycle_in_the_load_tool() -> None:
    graph = _graph("responses_bench")
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    # The cycle this layout removed: the report read the runtime's type.
    assert "benchmarks.responses_bench.runtime" not in graph["benchmarks.responses_bench.report"]
