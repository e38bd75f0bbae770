"""The suite's cases declared in their section modules (conformance/sections/cases.py, issue #31):
the suite finds every one, ``-k`` selects a case by its area as when each area was a module of its
own, and the judge that imports the section modules loads neither pytest nor jsonschema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from suite_support import ROOT, run_suite

from conformance.sections import SECTIONS
from conformance.sections.cases import STREAMS, Variant, case, cases_of, params
from conformance.suite import plugin as P
from conformance.suite.runner import case_files


def _cases(run_dir: Path, *args: str) -> list[str]:
    run = run_suite(*args, report_dir=run_dir)
    assert run.code == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return [c["id"] for c in run.index["targets"]["mock"]["cases"]]


def test_k_selects_by_area_not_by_the_section_modules_name(tmp_path: Path) -> None:
    # s1_7_hosted_cases.py declares the hosted and the client_tools cases: -k hosted is the
    # first area only, as when it was test_hosted.py.
    hosted = _cases(tmp_path / "h", "-k", "hosted")
    assert hosted and all(c.startswith("hosted/") for c in hosted)
    assert _cases(tmp_path / "c", "-k", "client_tools and shell") == [
        "client_tools/shell_call_round_trip"
    ]
    # a name no case's area, name or marker has matches nothing, though a module is named so
    run = run_suite("-k", "s1_7_hosted_cases", report_dir=tmp_path / "n")
    assert run.code == 2 and "no case selected" in run.stdout + run.stderr


def test_a_bad_k_expression_is_a_broken_run(tmp_path: Path) -> None:
    run = run_suite("-k", "and (", report_dir=tmp_path)
    assert run.code == 2
    assert "could not run: usage error" in run.stdout + run.stderr


def test_every_case_is_in_a_section_module() -> None:
    assert not (ROOT / "conformance" / "suite" / "cases").exists()
    files = case_files()
    assert files and all(Path(f).parent.name == "sections" for f in files)
    declared = [fn for module in SECTIONS for fn in cases_of(module)]
    assert len(declared) >= 80  # 81 when the cases moved here (152 with their parameters)
    assert all(fn.__name__.startswith("test_") for fn in declared)
    ids = [f"{fn.__case__.area}/{fn.__name__}" for fn in declared]  # type: ignore[attr-defined]
    assert len(ids) == len(set(ids))  # a case ID names one case


# The suite's plugin registers its markers in its own pytest run; not in this one.
UNREGISTERED = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")


@UNREGISTERED
def test_a_cases_marks_are_its_declaration() -> None:
    @params("form", {"a": 1, "b": 2})
    @params("stream", STREAMS)
    @case("area", profiles=("stateful",), attempts=2, chain=True, needs_instructions=True)
    def test_x(probe: object, stream: bool, form: int) -> None: ...

    marks = [m.mark for m in P.case_marks(test_x.__case__, test_x.__case_params__)]  # type: ignore[attr-defined]
    by_name = {m.name: m for m in marks if m.name != "parametrize"}
    assert by_name["profiles"].args == ("stateful",) and by_name["attempts"].args == (2,)
    assert {"chain", "needs_instructions", "checks"} <= set(by_name)
    parametrize = [m.args for m in marks if m.name == "parametrize"]
    assert parametrize == [("stream", [False, True]), ("form", [1, 2])]
    assert [m.kwargs["ids"] for m in marks if m.name == "parametrize"] == [
        ["nonstream", "stream"], ["a", "b"]
    ]  # fmt: skip


@UNREGISTERED
def test_a_variant_carries_its_own_profiles_and_checks() -> None:
    @params("flow", [Variant("f", "f1", profiles=("client:codex",), checks=("live.ws.upgrade",))])
    @case("clients")
    def test_flow(probe: object, flow: str) -> None: ...

    (mark,) = [m.mark for m in P.case_marks(test_flow.__case__, test_flow.__case_params__)  # type: ignore[attr-defined]
               if m.name == "parametrize"]  # fmt: skip
    (param,) = mark.args[1]
    assert param.id == "f1" and {m.name for m in param.marks} == {"profiles", "checks"}


def test_a_declaration_out_of_bounds_fails_at_import() -> None:
    with pytest.raises(ValueError, match="attempts"):
        case("x", attempts=4)
    with pytest.raises(ValueError, match="test_"):
        case("x")(lambda probe: None)


def test_the_judge_loads_neither_pytest_nor_jsonschema() -> None:
    code = (
        "import sys, conformance.cli, conformance.sections\n"
        "print(sorted(m for m in ('pytest', '_pytest', 'jsonschema') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_test_function_not_declared_a_case_is_refused() -> None:
    # pytest collects any test_ function of a section module: one that is not a declared case
    # (a helper named so) would run with no checks and no profiles; the suite refuses it.
    plugin = P.SuitePlugin.__new__(P.SuitePlugin)
    plugin._records = {}
    item = SimpleNamespace(obj=lambda probe: None, nodeid="sections/s4_1_x.py::test_helper")
    with pytest.raises(pytest.UsageError, match="not declared a case"):
        plugin._record_for(item)  # type: ignore[arg-type]
