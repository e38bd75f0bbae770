"""`responses-conformance report` on an index whose `format` is right but whose shape is not:
refused in one line naming the field (exit 2), never a traceback, never a made-up verdict; and
every index the project writes (run, build_index, merge_indexes, the proxy) is well-formed."""

from __future__ import annotations

import copy
import io
import json
import shutil
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from broken_servers import kb26_store_false_retrievable
from suite_support import ROOT, run_suite, serve

from benchmarks.perf.localhost import free_port
from conformance import catalog as C
from conformance.catalog import live as L
from conformance.cli import main
from conformance.suite.reporting import build_index, merge_indexes, render_html, render_junit
from conformance.suite.results import CaseResult, Finding, TargetResult
from conformance.suite.targets import flag_target

PUBLISHED = ROOT / "docs" / "vendors" / "matrix" / "index.json"
PREFIX = "responses-conformance report: "

Where = tuple[str | int, ...]  # a place in a JSON value: keys and list indices


# -- helpers -------------------------------------------------------------------------------------


class Text(str):
    """A file's text as it is, for :func:`_report` (any other value is written as JSON)."""


def _report(tmp_path: Path, *docs: Any, out: str = "out") -> tuple[int, str, str, Path]:
    """``responses-conformance report`` in this process on ``docs`` (each written to a file)."""
    paths = []
    for n, doc in enumerate(docs):
        path = tmp_path / f"in{n}.json"
        path.write_text(doc if isinstance(doc, Text) else json.dumps(doc), encoding="utf-8")
        paths.append(str(path))
    report_dir = tmp_path / out
    stdout, stderr = io.StringIO(), io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(stderr):
        code = main(["report", "--report-dir", str(report_dir), *paths])
    return code, stdout.getvalue(), stderr.getvalue(), report_dir


def _sample() -> dict[str, Any]:
    """A trimmed copy of the published matrix: its target with the most kinds of outcome, one
    check per outcome (with evidence where one has it: events, request, response), a case per
    case outcome, two findings per check at most, and a catalogue of those checks and one more
    (a check the target has no outcome for)."""
    full = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    name, target = max(
        full["targets"].items(),
        key=lambda kv: len({e["outcome"] for e in kv[1]["checks"].values()}),
    )
    checks = target["checks"]
    chosen: list[str] = []
    for outcome in sorted({e["outcome"] for e in checks.values()}):
        ids = sorted(cid for cid, e in checks.items() if e["outcome"] == outcome)
        chosen.append(next((cid for cid in ids if checks[cid]["evidence"]), ids[0]))
    with_events = next(
        cid for cid in sorted(checks) if any("events" in ev for ev in checks[cid]["evidence"])
    )
    if with_events not in chosen:
        chosen.append(with_events)
    cases = []
    for outcome in ("passed", "failed", "skipped"):
        case = next((c for c in target["cases"] if c["outcome"] == outcome), None)
        if case is None:
            continue
        case = copy.deepcopy(case)
        if case["violations"]:
            first = case["violations"][0]
            if first not in chosen:
                chosen.append(first)
            case["violations"] = [first]
        if outcome == "passed":
            case["retried"] = ["attempt 1: HTTP 429"]
        cases.append(case)
    entry = {k: v for k, v in target.items() if k not in ("checks", "cases", "capabilities")}
    entry["checks"] = {cid: copy.deepcopy(checks[cid]) for cid in chosen}
    for outcome in entry["checks"].values():
        outcome["evidence"] = outcome["evidence"][:2]
        outcome["cases"] = outcome["cases"][:2]
        outcome["kinds"] = outcome["kinds"][:1]
    entry["cases"] = cases
    spare = next(cid for cid in sorted(full["checks"]) if cid not in chosen)
    return {
        **{k: v for k, v in full.items() if k not in ("checks", "targets")},
        "checks": {cid: full["checks"][cid] for cid in sorted({*chosen, spare})},
        "targets": {name: entry},
    }


@pytest.fixture(scope="module")
def sample() -> dict[str, Any]:
    return _sample()


def _paths(value: Any, at: Where = ()) -> Iterator[Where]:
    """Every place in ``value``, the document itself included, parents before children."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _paths(item, (*at, n))


def _get(doc: Any, at: Where) -> Any:
    for step in at:
        doc = doc[step]
    return doc


def _set(doc: Any, at: Where, value: Any) -> Any:
    if not at:
        return value
    _get(doc, at[:-1])[at[-1]] = value
    return doc


def _shown(at: Where) -> str:
    """A path as the refusal names it: ``targets.mock.cases[0].duration_s``."""
    text = ""
    for step in at:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def _judged(tmp_path: Path, doc: Any, at: Where, clean: dict[str, Any]) -> str | None:
    """What is wrong with how the report took ``doc`` (``None``: refused well, or rendered)."""
    try:
        code, _, err, out = _report(tmp_path, doc)
    except Exception as exc:
        return f"{_shown(at)}: raised {type(exc).__name__}: {exc}"
    try:
        if code == 2:
            lines = err.splitlines()
            if len(lines) != 1 or not lines[0].startswith(PREFIX) or "Traceback" in err:
                return f"{_shown(at)}: refused with {err!r}"
            if out.exists():
                return f"{_shown(at)}: refused, but {out} was written"
            if "is not a well-formed index: " in err:
                named = _shown(at)
                if named not in err and not (at == ("checks",) and "no such check" in err):
                    return f"{_shown(at)}: the refusal names another field: {err!r}"
            elif "is not a responses-conformance.index/1 file" not in err:
                return f"{_shown(at)}: refused for another reason: {err!r}"
            return None
        if code not in (0, 1) or err:
            return f"{_shown(at)}: exit {code}, stderr {err!r}"
        if {p.name for p in out.iterdir()} != {"index.json", "junit.xml", "report.html"}:
            return f"{_shown(at)}: rendered, but not every report was written"
        # accepted: it renders in a matrix of several targets too (one target's page differs)
        both = merge_indexes([doc, clean])
        render_html(both)
        render_junit(both)
        return None
    except Exception as exc:
        return f"{_shown(at)}: accepted, then raised {type(exc).__name__}: {exc}"
    finally:
        shutil.rmtree(out, ignore_errors=True)


# -- every field of a real index, given a value of another type ----------------------------------

OTHERS: list[Any] = [None, 5, 1.5, "x", [], {}, True, 10**400]  # 10**400: too big for a float
OTHER_IDS = ["null", "int", "float", "str", "list", "object", "bool", "huge-int"]


@pytest.mark.parametrize("other", OTHERS, ids=OTHER_IDS)
def test_every_field_replaced_by_another_type_is_refused_or_rendered(
    tmp_path: Path, sample: dict[str, Any], other: Any
) -> None:
    problems = []
    places = list(_paths(sample))
    assert len(places) > 150  # the sample holds every part the renderers read
    for at in places:
        before = _get(sample, at)
        if type(before) is type(other) and before == other:
            continue
        doc = _set(copy.deepcopy(sample), at, copy.deepcopy(other))
        found = _judged(tmp_path, doc, at, sample)
        if found:
            problems.append(found)
    assert problems == [], "\n".join(problems[:20])


def test_every_field_removed_is_refused_or_rendered(tmp_path: Path, sample: dict[str, Any]) -> None:
    problems = []
    for at in _paths(sample):
        if not at or isinstance(at[-1], int):
            continue
        doc = copy.deepcopy(sample)
        del _get(doc, at[:-1])[at[-1]]
        found = _judged(tmp_path, doc, at, sample)
        if found:
            problems.append(found)
    assert problems == [], "\n".join(problems[:20])


def test_unknown_fields_are_let_through(tmp_path: Path, sample: dict[str, Any]) -> None:
    """A field of a later version, in every object of the index, does not stop the report."""
    doc = copy.deepcopy(sample)
    for at in list(_paths(doc)):
        value = _get(doc, at)
        if isinstance(value, dict) and at[-1:] not in (("checks",), ("targets",), ("summary",)):
            value["x_later_field"] = {"anything": [1, None]}
    code, _, err, out = _report(tmp_path, doc)
    assert code in (0, 1) and err == "", err
    assert (out / "report.html").is_file()


# -- named malformations: exit 2, one line, the field named ---------------------------------------


def _target(doc: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    ((name, target),) = doc["targets"].items()
    return name, target


def _a_check(doc: dict[str, Any], *, with_evidence: bool = False) -> str:
    _, target = _target(doc)
    return next(
        str(cid) for cid, e in target["checks"].items() if e["evidence"] or not with_evidence
    )


def _edit(doc: dict[str, Any], edit: str) -> str:
    """Apply ``edit`` to ``doc``; returns the text the refusal must contain."""
    name, target = _target(doc)
    cid = _a_check(doc)
    if edit == "target-null":
        doc["targets"][name] = None
        return f"targets.{name}: expected an object, got null"
    if edit == "cases-a-string":
        target["cases"] = "x"
        return f'targets.{name}.cases: expected a list, got "x"'
    if edit == "check-outcome-a-number":
        target["checks"][cid] = 5
        return f"targets.{name}.checks.{cid}: expected an object, got 5"
    if edit == "catalogue-entry-a-number":
        doc["checks"][cid] = 5
        return f"checks.{cid}: expected an object, got 5"
    if edit == "unknown-outcome":
        target["checks"][cid]["outcome"] = "passed-mostly"
        return f"targets.{name}.checks.{cid}.outcome: expected one of fail, xpass"
    if edit == "check-not-in-catalogue":
        target["checks"]["no.such.check"] = dict(target["checks"][cid])
        return f"targets.{name}.checks.no.such.check: no such check in the index's checks"
    if edit == "violation-not-in-catalogue":
        failed = next(c for c in target["cases"] if c["outcome"] == "failed")
        failed["violations"] = ["no.such.check"]
        n = target["cases"].index(failed)
        return f'targets.{name}.cases[{n}].violations[0]: "no.such.check" is not a check'
    if edit == "no-status":
        del target["status"]
        return f"targets.{name}.status: missing, expected a string"
    if edit == "duration-too-big":
        target["duration_s"] = 10**400
        return f"targets.{name}.duration_s: expected a finite number, got 1000"
    if edit == "case-duration-a-string":
        target["cases"][0]["duration_s"] = "fast"
        return f'targets.{name}.cases[0].duration_s: expected a finite number, got "fast"'
    if edit == "evidence-an-object":
        cid = _a_check(doc, with_evidence=True)
        target["checks"][cid]["evidence"] = {"case": "x"}
        return f"targets.{name}.checks.{cid}.evidence: expected a list, got an object"
    if edit == "exit-code-a-word":
        target["exit_code"] = "one"
        return f'targets.{name}.exit_code: expected one of 0, 1, 2, got "one"'
    if edit == "catalogue-level-a-number":
        doc["checks"][cid]["level"] = 1
        return f"checks.{cid}.level: expected a string, got 1"
    if edit == "targets-a-list":
        doc["targets"] = [target]
        return "targets: expected an object, got a list"
    raise AssertionError(edit)


EDITS = [
    "target-null",
    "cases-a-string",
    "check-outcome-a-number",
    "catalogue-entry-a-number",
    "unknown-outcome",
    "check-not-in-catalogue",
    "violation-not-in-catalogue",
    "no-status",
    "duration-too-big",
    "case-duration-a-string",
    "evidence-an-object",
    "exit-code-a-word",
    "catalogue-level-a-number",
    "targets-a-list",
]


@pytest.mark.parametrize("edit", EDITS)
def test_a_malformed_index_is_refused_in_one_line(
    tmp_path: Path, sample: dict[str, Any], edit: str
) -> None:
    doc = copy.deepcopy(sample)
    named = _edit(doc, edit)
    code, stdout, err, out = _report(tmp_path, sample, doc)  # the good one first: nothing merged
    assert code == 2, (code, err)
    assert stdout == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"{PREFIX}{tmp_path / 'in1.json'} is not a well-formed index: "), err
    assert named in err, err
    assert not out.exists()


# -- what is not a shape problem ------------------------------------------------------------------


def test_the_published_matrix_renders(tmp_path: Path) -> None:
    """No false refusal: the whole published matrix (13 targets, some failing) is well-formed."""
    from conformance.suite.reporting.shape import shape_errors

    doc = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert shape_errors(doc) == []
    code, stdout, err, out = _report(tmp_path, Text(PUBLISHED.read_text(encoding="utf-8")))
    assert code == 1 and err == "", err  # targets of it fail checks
    assert stdout.startswith("reports: ")
    assert {p.name for p in out.iterdir()} == {"index.json", "junit.xml", "report.html"}


def test_a_long_anchor_is_shown_as_text(tmp_path: Path, sample: dict[str, Any]) -> None:
    """An anchor naming a file the file system cannot even look up (a name too long) is text,
    not an OSError out of the HTML report."""
    doc = copy.deepcopy(sample)
    cid = _a_check(doc)
    doc["checks"][cid]["anchor"] = "docs/" + "a" * 300 + ".md#x"
    code, _, err, out = _report(tmp_path, doc)
    assert code in (0, 1) and err == "", err
    assert "a" * 300 in (out / "report.html").read_text()


def test_a_lone_surrogate_is_written_as_its_escape(tmp_path: Path, sample: dict[str, Any]) -> None:
    """``"\\ud800"`` in a JSON string is a lone surrogate once read: the reports used to fail
    to encode it (UnicodeEncodeError) after index.json and junit.xml were half written."""
    doc = copy.deepcopy(sample)
    name, target = _target(doc)
    target["reason"] = "odd \ud800 text"
    code, _, err, out = _report(tmp_path, Text(json.dumps(doc, ensure_ascii=True)))
    assert code in (0, 1) and err == "", err
    again = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert again["targets"][name]["reason"] == "odd \ud800 text"


def test_json_nested_too_deeply_is_refused_in_one_line(tmp_path: Path) -> None:
    code, _, err, out = _report(tmp_path, Text("[" * 100_000))
    assert code == 2 and err.count("\n") == 1 and err.startswith(PREFIX), err
    assert "nested too deeply" in err and not out.exists()


def test_a_renderer_bug_is_one_line_and_writes_nothing(
    tmp_path: Path, sample: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last resort behind the shape check: a renderer that still raises is exit 2, one
    line, and no report folder (index.json and junit.xml are not written before report.html)."""
    import conformance.suite.reporting as reporting

    def broken(index: dict[str, Any]) -> str:
        raise KeyError("summary")

    monkeypatch.setattr(reporting, "render_html", broken)
    code, stdout, err, out = _report(tmp_path, sample)
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(PREFIX + "the reports could not be rendered (KeyError: "), err
    assert not out.exists()


def test_write_reports_writes_nothing_until_every_report_is_rendered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import conformance.suite.reporting as reporting
    from cassettes.redaction import Redactor
    from conformance.suite.reporting import write_reports

    def broken(index: object) -> str:
        raise ValueError("report.html cannot be rendered")

    # report.html escapes whatever the index holds now (a duration of "slow" once broke it):
    # the last report to render fails by hand; junit.xml and index.json were rendered first.
    monkeypatch.setattr(reporting, "render_html", broken)
    doc = build_index([_result()], strict=False)
    with pytest.raises(ValueError):
        write_reports(doc, tmp_path / "out", Redactor())
    assert not (tmp_path / "out").exists()


# -- what the project writes is well-formed -------------------------------------------------------


def _result(
    name: str = "t", *, expected: tuple[str, ...] = (), status: str = "ran"
) -> TargetResult:
    """A target with every outcome: fail, warn, info, pass, skip, not_exercised (and xfail /
    xpass with ``expected``), a failed case with an error, a retried one, a skipped one."""
    target = flag_target(
        base_url="http://127.0.0.1:9/v1", model="m", name=name,
        profiles=["stateful", "reasoning"], expected_failures=expected,
    )  # fmt: skip
    case = CaseResult("store/x", ("stateful",), (L.STORE_FALSE.id, L.DELETE.id), outcome="failed")
    case.exercised |= {L.STORE_FALSE.id, L.DELETE.id, L.REASONING_TOKENS_HARDCODED.id}
    case.error = "RuntimeError: boom (at f:1)"
    case.retried = ["attempt 1: HTTP 429"]
    case.attempts = 2
    evidence = {
        "request": {"method": "POST", "path": "/responses", "body": "{}"},
        "response": {"status": None, "content_type": "", "error": "reset by peer"},
    }
    stream = {
        "request": {"method": "POST", "path": "/responses", "body": "{}"},
        "response": {"status": 200, "content_type": "text/event-stream", "events": 3},
        "events": [{"index": 2, "event": '{"type": "x"}'}],
    }
    for check, ev in (
        (L.STORE_FALSE, evidence),
        (L.REASONING_TOKENS_HARDCODED, stream),
        (C.EVENT_TYPE_KNOWN, {}),
    ):
        for n in range(7):  # more than are kept: evidence_omitted
            violation = check.violation(expected="404", actual=f"HTTP {200 + n}", event_index=n)
            case.findings.append(Finding(violation, case.id, 1, ev))
    skipped = CaseResult("tools/y", ("tools",), (L.TOOLS_NONE.id,), outcome="skipped",
                         skip_reason="profile `tools` not declared by the target")  # fmt: skip
    result = TargetResult(target, False, status=status, cases=[case, skipped], duration=1.25)
    if status != "ran":
        result.cases, result.reason = [], "cannot connect to http://127.0.0.1:9/v1"
    return result


def _produced() -> dict[str, dict[str, Any]]:
    from conformance.proxy.judge import Verdict
    from conformance.proxy.kinds import classify
    from conformance.proxy.ledger import Ledger
    from conformance.suite.http import HttpExchange

    plain = build_index([_result()], strict=False)
    expected = build_index(
        [_result("x", expected=(L.STORE_FALSE.id, L.DELETE.id, L.RECALL.id))], strict=True
    )
    broken = build_index(
        [_result("down", status="unreachable"), _result("broke", status="broken")], strict=False
    )
    ledger = Ledger(flag_target(base_url="http://127.0.0.1:9/v1", model="m", name="upstream"),
                    strict=False, out=io.StringIO(), quiet=True)  # fmt: skip
    info = classify("POST", "/responses", "", {"model": "m", "stream": True})
    exchange = HttpExchange("POST", "/responses", {"model": "m"}, stream=True, status=200,
                        content_type="text/event-stream", events=[{"type": "x"}])  # fmt: skip
    bad = C.EVENT_TYPE_KNOWN.violation(expected="a documented event type", actual="x")
    ledger.record(Verdict(info, exchange, [bad], {C.EVENT_TYPE_KNOWN.id}))
    bad = C.RESPONSE_SCHEMA_TYPE.violation(expected="object", actual="null", path="text")
    ws = Verdict(info, exchange, [bad], {C.RESPONSE_SCHEMA_TYPE.id},
                 evidence={"url": "/v1/responses", "frames": [{"dir": "in", "frame": "{}"}]})  # fmt: skip
    ledger.record(ws)
    proxy = ledger.index()
    return {
        "plain": plain,
        "expected-failures": expected,
        "unreachable-and-broken": broken,
        "proxy": proxy,
        "merged": merge_indexes([plain, expected, broken, proxy, plain]),
        "merged-nothing": merge_indexes([]),
    }


PRODUCED = [
    "plain",
    "expected-failures",
    "unreachable-and-broken",
    "proxy",
    "merged",
    "merged-nothing",
]


@pytest.mark.parametrize("kind", PRODUCED)
def test_what_the_producers_write_is_well_formed(tmp_path: Path, kind: str) -> None:
    from conformance.suite.reporting.shape import shape_errors

    produced = _produced()
    assert list(produced) == PRODUCED
    doc = json.loads(json.dumps(produced[kind]))  # as a file holds it
    outcomes = {e["outcome"] for t in doc["targets"].values() for e in t["checks"].values()}
    if kind == "expected-failures":
        assert {"xfail", "xpass", "not_exercised", "skip", "info", "warn"} <= outcomes
    if kind == "unreachable-and-broken":
        assert {t["status"] for t in doc["targets"].values()} == {"unreachable", "broken"}
    assert shape_errors(doc) == []
    code, _, err, out = _report(tmp_path, doc)
    failing = any(t["exit_code"] for t in doc["targets"].values())
    assert code == (1 if failing else 0) and err == "", err
    assert (out / "report.html").is_file()


def _closed_port() -> int:
    return free_port()  # nothing listens on it


def test_a_run_writes_a_well_formed_index(tmp_path: Path) -> None:
    """``responses-conformance run`` with three targets — the embedded mock (an expected
    failure that passes: XPASS), a server that fails it (XFAIL), one that is not there
    (unreachable) — writes an index that ``report`` reads back, alone and merged."""
    from conformance.suite.reporting.shape import shape_errors

    targets = tmp_path / "targets.toml"
    with serve(kb26_store_false_retrievable()) as url:
        targets.write_text(f"""
[targets.mock]
embedded = true
expected_failures = ["live.store.false_not_retrievable"]

[targets.kb26]
base_url = "{url}"
model = "mock"
profiles = ["stateful"]
follows_instructions = false
expected_failures = {{ "live.store.false_not_retrievable" = "KB26, known" }}

[targets.gone]
base_url = "http://127.0.0.1:{_closed_port()}/v1"
model = "m"
""")  # fmt: skip
        run = run_suite("--targets", str(targets), "-k", "store_false", report_dir=tmp_path / "r")
    assert run.code == 2, run.stderr  # the unreachable target
    doc = run.index
    assert run.outcomes("mock")["live.store.false_not_retrievable"] == "xpass"
    assert run.outcomes("kb26")["live.store.false_not_retrievable"] == "xfail"
    assert doc["targets"]["gone"]["status"] == "unreachable"
    assert shape_errors(doc) == []
    text = Text((tmp_path / "r" / "index.json").read_text(encoding="utf-8"))
    code, _, err, out = _report(tmp_path, text, text)
    assert code == 1 and err == "", err
    merged = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert len(merged["targets"]) == 6 and shape_errors(merged) == []
