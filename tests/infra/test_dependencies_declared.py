"""Every third-party package the project's code imports is declared in pyproject.toml (issue #40
item 5): psutil and Jinja2 once arrived only through locust, h11 through uvicorn, referencing
through jsonschema, gevent and geventhttpclient through locust.

The rule, per import (read from the source's AST, not by importing it):

- a module-level import in the judge or the judged (conformance/, mock_server/, reference_impl/,
  cassettes/) is a core dependency (``[project].dependencies``): they run without extras;
- a module-level import in benchmarks/ is a core dependency or one of the ``bench`` or
  ``parquet`` extras (``responses-bench`` and the perf scripts run with them);
- an import inside a function, guarded by ``except ImportError`` (an optional part: the Redis
  store, SGLang, uvloop) or under ``if TYPE_CHECKING:``, is a core dependency or an extra's, but not ``test``'s or ``dev``'s only.

A module is matched to its distribution by importlib.metadata's ``packages_distributions()``
(``yaml`` is PyYAML); one not installed here (sglang on a CPU machine) by its own name.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = ("conformance", "mock_server", "reference_impl", "cassettes", "benchmarks")
JUDGE_AND_JUDGED = ("conformance", "mock_server", "reference_impl", "cassettes")
BENCH_EXTRAS = {"bench", "parquet"}
NOT_RUNTIME = {"test", "dev"}  # extras for working on the project, not for running it
# Run by `responses-conformance clients` with each client's own interpreter and pinned packages
# (conformance/clients/node/*/package-lock.json, the harness's venvs): not this package's imports.
OWN_ENVIRONMENT = ("conformance/clients/scripts/",)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    """The core dependencies and each extra's, as normalised distribution names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> set[str]:
        return {_normal(re.match(r"[A-Za-z0-9._-]+", r)[0]) for r in requirements}  # type: ignore[index]

    extras = {k: names(v) for k, v in project["optional-dependencies"].items()}
    return names(project["dependencies"]), extras


def _lazy(node: ast.AST) -> bool:
    """A function body, a ``try`` that catches ImportError (an optional import), or an
    ``if TYPE_CHECKING:`` block (for the type checker only)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return True
    if isinstance(node, ast.If):
        return "TYPE_CHECKING" in ast.unparse(node.test)
    if isinstance(node, ast.Try):
        caught = " ".join(ast.unparse(h.type) for h in node.handlers if h.type is not None)
        return "ImportError" in caught or "ModuleNotFoundError" in caught
    return False


def _imports(tree: ast.AST, lazy: bool = False) -> Iterator[tuple[str, bool, int]]:
    """(top-level module, imported lazily, line) for each absolute import under ``tree``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], lazy, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.split(".")[0], lazy, node.lineno
        yield from _imports(node, lazy or _lazy(node))


def _third_party() -> Iterator[tuple[str, str, bool, int]]:
    """(file, top-level module, lazily, line) for each third-party import of the project."""
    for part in FIRST_PARTY:
        for path in sorted((ROOT / part).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(OWN_ENVIRONMENT):
                continue
            for module, lazy, line in _imports(ast.parse(path.read_text(), rel)):
                if module in sys.stdlib_module_names or module in FIRST_PARTY:
                    continue
                yield rel, module, lazy, line


def _problems() -> list[str]:
    core, extras = _declared()
    runtime_extras = {d for name, ds in extras.items() if name not in NOT_RUNTIME for d in ds}
    bench = {d for name in BENCH_EXTRAS for d in extras[name]}
    distributions = metadata.packages_distributions()
    problems = []
    for rel, module, lazy, line in _third_party():
        dists = {_normal(d) for d in distributions.get(module, [module])}
        if lazy:
            allowed, where = core | runtime_extras, "a dependency or a runtime extra"
        elif rel.startswith(JUDGE_AND_JUDGED):
            allowed, where = core, "a core dependency (imported at module level)"
        else:
            allowed, where = core | bench, "a core dependency or the bench/parquet extra"
        if not dists & allowed:
            problems.append(
                f"{rel}:{line} imports {module} ({', '.join(sorted(dists))}): not {where}"
            )
    return problems


def test_every_imported_package_is_declared() -> None:
    assert _problems() == []


def test_the_walk_finds_what_it_checks() -> None:
    # The walk itself: it sees module-level, lazy and guarded imports, and the modules it must.
    found = {(rel, module, lazy) for rel, module, lazy, _ in _third_party()}
    assert ("cassettes/vcr.py", "yaml", True) in found
    assert ("conformance/suite/reporting/html.py", "jinja2", False) in found
    assert ("benchmarks/responses_bench/exchange.py", "geventhttpclient", False) in found
    assert ("conformance/proxy/cli.py", "uvloop", True) in found
    assert not any(rel.startswith(OWN_ENVIRONMENT) for rel, _, _ in found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import psutil\n", [("psutil", False)]),
        ("def f():\n    import psutil\n", [("psutil", True)]),
        ("try:\n    import uvloop\nexcept ImportError:\n    pass\n", [("uvloop", True)]),
        ("try:\n    import uvloop\nexcept OSError:\n    pass\n", [("uvloop", False)]),
        (
            "from geventhttpclient._parser import x\nfrom . import y\n",
            [("geventhttpclient", False)],
        ),
        ("if TYPE_CHECKING:\n    import openai\n", [("openai", True)]),
    ],
)
def test_imports_are_read_as_written(source: str, expected: list[tuple[str, bool]]) -> None:
    assert [(m, lazy) for m, lazy, _ in _imports(ast.parse(source))] == expected
