"""The pytest plugin that runs the cases against one target and collects their results.

A case is declared in the section module of the checks it exercises, with
:func:`conformance.sections.cases.case` and :func:`~conformance.sections.cases.params`; this
plugin turns those declarations into the markers below when pytest collects the case
(:meth:`SuitePlugin.pytest_pycollect_makeitem`), runs the cases area by area, and selects them
by ``-k`` itself: a case's area stands where pytest would match its module's name
(:func:`keywords`: ``-k store`` is the ``store`` cases, as when each area was a module of its
own, whichever section module declares them). Markers (registered here):

- ``checks(*ids)`` — the check IDs the case exercises (each must be in the registry);
- ``profiles(*names)`` — the profiles a target must declare for the case to run (default core);
- ``attempts(n)`` — how often a nondeterministic case may run (at most 3); an attempt is
  retried only when the model missed what it was asked (:meth:`Probe.nondeterministic`): what
  any attempt found — a protocol violation, a server error — stays a finding, and the record
  keeps every attempt (``attempt_log``) and the one that passed (``passed_attempt``);
- ``chain`` — a stateful chain (``previous_response_id``): ``--repeat N`` runs it N times, to
  surface a server that loses a chain now and then;
- ``needs_instructions`` — the case needs a model that follows natural-language instructions.

The ``probe`` fixture hands a case its :class:`~conformance.suite.probe.Probe`, and the probe
the suite's WebSocket client (:meth:`~conformance.suite.probe.Probe.websocket`). The plugin runs
the case function itself (``pytest_pyfunc_call``) so that it can retry it and turn the probe's
control-flow exceptions into outcomes; pytest's own pass/fail is not the verdict — the findings are.
"""

from __future__ import annotations

import traceback
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest
from _pytest.mark import KeywordMatcher
from _pytest.mark.expression import Expression

from ..catalog import live as L
from ..catalog.registry import REGISTRY
from ..sections.cases import MAX_ATTEMPTS, CaseSpec, Param, Variant
from .console import Console
from .http import TargetClient
from .probe import CaseAborted, NotJudged, Probe, Retry, Skipped
from .replay import FlowReplay
from .results import CaseResult, Finding
from .targets import Target
from .ws import judged_session

if TYPE_CHECKING:
    from ..clients.captured_flows import Flow

__all__ = ["MAX_ATTEMPTS", "SuitePlugin"]


PROFILE_SKIP = "not declared by the target"
_MARKERS = (
    "checks(*ids): the check IDs this case exercises",
    "profiles(*names): the profiles a target must declare for this case to run (default: core)",
    f"attempts(n): run a nondeterministic case up to n times (n <= {MAX_ATTEMPTS})",
    "chain: a stateful chain (previous_response_id); --repeat N runs it N times",
    "needs_instructions: the case needs a model that follows natural-language instructions",
)


def case_area(item: pytest.Item) -> str:
    """The area a case declared (``store``); for a function not declared a case (which the
    suite refuses to run), its module's name."""
    spec = getattr(getattr(item, "obj", None), "__case__", None)
    if isinstance(spec, CaseSpec):
        return spec.area
    module = getattr(item, "module", None)
    return module.__name__.rsplit(".", 1)[-1] if module is not None else item.nodeid


def case_id(item: pytest.Item) -> str:
    return f"{case_area(item)}/{item.name.removeprefix('test_')}"


def case_marks(spec: CaseSpec, parameters: tuple[Param, ...]) -> list[pytest.MarkDecorator]:
    """pytest's markers for a case declared with :func:`~conformance.sections.cases.case`."""
    marks = [pytest.mark.checks(*spec.checks)]
    if spec.profiles:
        marks.append(pytest.mark.profiles(*spec.profiles))
    if spec.attempts > 1:
        marks.append(pytest.mark.attempts(spec.attempts))
    if spec.chain:
        marks.append(pytest.mark.chain)
    if spec.needs_instructions:
        marks.append(pytest.mark.needs_instructions)
    for param in parameters:
        values = [_value(v) for v in param.resolve()]
        ids = list(param.ids) if param.ids is not None else None
        marks.append(pytest.mark.parametrize(param.names, values, ids=ids))
    return marks


def _value(value: Any) -> Any:
    if not isinstance(value, Variant):
        return value
    marks = [pytest.mark.profiles(*value.profiles)] if value.profiles else []
    if value.checks:
        marks.append(pytest.mark.checks(*value.checks))
    if value.chain:
        marks.append(pytest.mark.chain)
    return pytest.param(value.value, id=value.id, marks=marks)


class SuitePlugin:
    def __init__(
        self,
        target: Target,
        client: TargetClient,
        *,
        strict: bool,
        console: Console,
        repeat: int = 1,
        keyword: str | None = None,
    ) -> None:
        self.target = target
        self.keyword = keyword
        self.repeat = max(1, repeat)
        self.client = client
        self.strict = strict
        self.console = console
        self.results: list[CaseResult] = []
        self.collect_errors: list[str] = []
        self._records: dict[str, CaseResult] = {}

    # ------------------------------------------------------------------ collection

    def pytest_configure(self, config: pytest.Config) -> None:
        for line in _MARKERS:
            config.addinivalue_line("markers", line)

    @pytest.hookimpl(wrapper=True)
    def pytest_pycollect_makeitem(
        self, collector: pytest.Collector, name: str, obj: object
    ) -> Generator[None, Any, Any]:
        spec = getattr(obj, "__case__", None)
        if isinstance(spec, CaseSpec):
            obj.pytestmark = [  # type: ignore[attr-defined]
                m.mark for m in case_marks(spec, getattr(obj, "__case_params__", ()))
            ]
        return (yield)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {report.longreprtext}")

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        items.sort(key=case_area)  # area by area, each in its declared order (the sort is stable)
        if self.keyword:
            _select(self.keyword, items, config)
        for item in items:
            record = self._record_for(item)
            reason = self._skip_reason(item, record)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))

    def _record_for(self, item: pytest.Item) -> CaseResult:
        if not isinstance(getattr(getattr(item, "obj", None), "__case__", None), CaseSpec):
            raise pytest.UsageError(
                f"{item.nodeid}: a test_ function of a section module that is not declared a "
                "case (conformance.sections.cases.case)"
            )
        checks = tuple(c for m in item.iter_markers("checks") for c in m.args)
        unknown = [c for c in checks if c not in REGISTRY]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: tagged with unknown check(s) {unknown}")
        # A case's own marker and its module's may both name a profile: keep each once.
        profiles = tuple(dict.fromkeys(p for m in item.iter_markers("profiles") for p in m.args))
        profiles = profiles or ("core",)
        record = CaseResult(case_id(item), profiles, checks)
        self._records[item.nodeid] = record
        return record

    def _skip_reason(self, item: pytest.Item, record: CaseResult) -> str:
        missing = [p for p in record.profiles if p not in self.target.profiles]
        if missing:
            return f"profile `{'`, `'.join(missing)}` {PROFILE_SKIP}"
        if item.get_closest_marker("needs_instructions") and not self.target.follows_instructions:
            return "needs a model that follows instructions (the target sets follows_instructions = false)"
        return ""

    # ------------------------------------------------------------------ running

    @pytest.fixture
    def probe(self, request: pytest.FixtureRequest) -> Probe:
        record = self._records[request.node.nodeid]
        return Probe(self.target, self.client, record, replay=_replay, websocket=judged_session)

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool:
        record = self._records[pyfuncitem.nodeid]
        probe = pyfuncitem.funcargs.get("probe")
        marker = pyfuncitem.get_closest_marker("attempts")
        attempts = min(MAX_ATTEMPTS, int(marker.args[0])) if marker else 1
        runs = self.repeat if pyfuncitem.get_closest_marker("chain") else 1
        for run in range(1, runs + 1):
            if isinstance(probe, Probe):
                probe.runs = runs
            self._run_once(pyfuncitem, record, probe, attempts, run)
            if record.skip_reason or record.not_judged or record.error:
                break  # a skip, a refusal or a crash says the same on every run
        if record.not_judged and not record.skip_reason:
            record.skip_reason = f"could not judge: {record.not_judged}"
        if record.skip_reason:
            pytest.skip(record.skip_reason)
        return True

    def _run_once(
        self, item: pytest.Function, record: CaseResult, probe: Any, attempts: int, run: int
    ) -> None:
        """One run of a case: up to ``attempts`` attempts, each recorded (docs/cli.md, retries):
        a retry is for the model's content only — what an attempt found stays found."""
        if isinstance(probe, Probe):
            probe.max_attempts = attempts
        names = item._fixtureinfo.argnames
        args: dict[str, Any] = {name: item.funcargs[name] for name in names}
        for attempt in range(1, attempts + 1):
            record.attempts = len(record.attempt_log) + 1
            if isinstance(probe, Probe):
                probe.attempt = attempt
                probe.run = run
            before = len(record.findings)
            entry: dict[str, Any] = {"run": run, "attempt": attempt, "result": "passed"}
            record.attempt_log.append(entry)
            try:
                item.obj(**args)
            except Retry as exc:
                record.retried.append(str(exc))
                entry["result"], entry["reason"] = "retried", str(exc)
                if attempt < attempts:
                    entry["violations"] = _ids(record, before)
                    continue
                record.skip_reason = f"{exc} (in {attempt} attempts)"
                entry["result"] = "skipped"
            except NotJudged as exc:
                record.not_judged = str(exc)
                entry["result"], entry["reason"] = "not_judged", str(exc)
            except Skipped as exc:
                record.skip_reason = str(exc)
                entry["result"], entry["reason"] = "skipped", str(exc)
            except CaseAborted as exc:
                entry["result"], entry["reason"] = "aborted", str(exc)
            except Exception as exc:
                record.error = _summary(exc)
                entry["result"], entry["reason"] = "error", record.error
                record.exercised.add(L.CASE_COMPLETED.id)
                if isinstance(probe, Probe):
                    probe.check(
                        L.CASE_COMPLETED, False, expected="the case runs to its end",
                        actual=f"{type(exc).__name__}: {exc}", message=record.error,
                    )  # fmt: skip
            else:
                record.exercised.add(L.CASE_COMPLETED.id)
            found = _ids(record, before)
            entry["violations"] = found
            if entry["result"] == "passed" and self._failing(record.findings[before:]):
                entry["result"] = "failed"
            if entry["result"] == "passed" and record.passed_attempt is None:
                record.passed_attempt = attempt
            break

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = self._records.get(report.nodeid)
        if record is None:
            return
        record.duration += report.duration
        if report.skipped and not record.skip_reason:
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            record.skip_reason = reason.removeprefix("Skipped: ")
        elif report.failed and not record.error:
            record.error = report.longreprtext[-800:]  # a fixture or plugin failure
        if report.when == "teardown":
            self._finish(record)

    def _failing(self, findings: list[Finding]) -> list[Finding]:
        return [
            f for f in findings
            if f.violation.level.fails(strict=self.strict)
            and f.check_id not in self.target.expected_failures
        ]  # fmt: skip

    def _finish(self, record: CaseResult) -> None:
        failing = self._failing(record.findings)
        if record.skip_reason and not failing:
            record.outcome = "skipped"
        elif failing or (record.error and not record.findings):
            record.outcome = "failed"
        self.results.append(record)
        self.console.case(record, failing=failing)


def _replay(probe: Probe, flow: Flow) -> None:
    """A client's flow replayed by the probe (:meth:`Probe.replay`, the §9 case)."""
    FlowReplay(probe, flow).run()


def keywords(item: pytest.Item) -> set[str]:
    """The names ``-k`` matches for a case: pytest's (its name, its markers, its parameters' IDs),
    but for the module that declares it, ``test_<area>.py`` — a case is selected by its area
    (``-k store``), as when each area was a module of its own, not by its section module's name
    (``-k hosted`` does not select the ``client_tools`` cases of ``s1_7_hosted_cases``)."""
    skip = pytest.Session | pytest.Directory | pytest.Module
    names = {node.name for node in item.listchain() if not isinstance(node, skip)}
    names.update(item.listextrakeywords())
    names.update(mark.name for mark in item.iter_markers())
    names.add(f"test_{case_area(item)}.py")
    return names


def _select(keyword: str, items: list[pytest.Item], config: pytest.Config) -> None:
    """Keep the cases ``keyword`` (pytest's ``-k`` expression) selects."""
    try:
        expression = Expression.compile(keyword)
    except SyntaxError as exc:  # pytest's ParseError
        raise pytest.UsageError(f"-k {keyword!r}: {exc}") from None
    chosen: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        matched = expression.evaluate(KeywordMatcher(frozenset(keywords(item))))
        (chosen if matched else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = chosen


def _ids(record: CaseResult, since: int) -> list[str]:
    """The check IDs an attempt found violated (its findings from index ``since`` on)."""
    return sorted({f.check_id for f in record.findings[since:]})


def _summary(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = "; ".join(f"{f.name}:{f.lineno}" for f in frames)
    return f"{type(exc).__name__}: {exc} (at {where})"
