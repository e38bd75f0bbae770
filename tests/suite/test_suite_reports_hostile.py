"""Reports stay well-formed whatever the index holds (issue #40 item 3): junit.xml parses when
evidence carries XML-illegal characters (ESC, NUL, U+FFFE, a lone surrogate), written ``#xNN``
as pytest writes them; report.html (the suite's and the clients harness's) escapes every value,
counts, attempts and the labels of unknown outcomes included.

On main before this change: the junit.xml of the control-character cases did not parse, and
the HTML of the poisoned counts, attempt and outcome carried a live ``<script>``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any

import pytest
from test_suite_reports import _result

from conformance.clients.report import render_html as clients_html
from conformance.suite.reporting import build_index, render_html, render_junit
from conformance.suite.reporting.html import _NOT_HTML

SCRIPT = "<script>alert(1)</script>"
CONTROLS = ["\x1b[31m", "\x00", "\x07", "\ufffe", "\ud800", "\x0b\x0c"]


_NAMED = {"targets", "checks", "clients", "flows"}  # mappings keyed by a name, not a field


def _poison(value: Any, tail: str, *, numbers: bool, named: bool = False) -> Any:
    """Every string of ``value`` (and the names that key targets, checks, clients and flows)
    with ``tail`` appended; with ``numbers``, every integer replaced by ``tail`` (what a
    hand-edited or merged index may hold)."""
    if isinstance(value, dict):
        return {
            (k + tail if named else k): _poison(v, tail, numbers=numbers, named=k in _NAMED)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_poison(v, tail, numbers=numbers) for v in value]
    if isinstance(value, str):
        return value + tail
    if numbers and isinstance(value, int) and not isinstance(value, bool):
        return tail
    return value


def _index() -> dict[str, Any]:
    index = build_index([_result()], strict=False)
    case = index["targets"]["t"]["cases"][0]
    case["attempt_log"] = [
        {"run": 1, "attempt": 1, "result": "failed", "reason": "x", "violations": ["a"]},
        {"run": 1, "attempt": 2, "result": "passed"},
    ]
    case["passed_attempt"] = 2
    return index


@pytest.mark.parametrize("control", CONTROLS)
def test_junit_is_well_formed_with_control_characters(control: str) -> None:
    text = render_junit(_poison(_index(), control, numbers=False))
    root = ET.fromstring(text.split("\n", 1)[1].encode("utf-8", "surrogatepass"))
    assert root.tag == "testsuites"
    code = ord(control[0])
    assert (f"#x{code:02X}" if code <= 0xFF else f"#x{code:04X}") in text


def test_junit_keeps_tab_newline_and_text_beyond_the_bmp() -> None:
    text = render_junit(_poison(_index(), "\t😀é", numbers=False))
    root = ET.fromstring(text.split("\n", 1)[1])
    assert "😀é" in ET.tostring(root, encoding="unicode") and "#x09" not in text


@pytest.mark.parametrize("numbers", [False, True])
def test_every_value_of_the_html_report_is_escaped(numbers: bool) -> None:
    page = render_html(_poison(_index(), SCRIPT, numbers=numbers))
    assert "<script" not in page
    assert "&lt;script&gt;" in page


def test_an_unknown_outcome_is_escaped_in_every_view() -> None:
    index = _index()
    for entry in index["targets"]["t"]["checks"].values():
        entry["outcome"] = SCRIPT
    assert "<script" not in render_html(index)
    index["targets"]["u"] = index["targets"]["t"]  # two targets: the matrix view
    assert "<script" not in render_html(index)


def test_the_clients_report_escapes_every_value() -> None:
    index = {
        "targets": {
            "t": {
                "status": "ran",
                "reason": "",
                "clients": {
                    "codex": {
                        "status": "ran", "version": "1", "source": "s", "harness": "h",
                        "profile": "client:codex", "reason": "",
                        "flows": {"f": {"outcome": "fail", "reason": "r", "evidence": {"e": 1}}},
                    }
                },
            },
            "d": {"status": "unreachable", "reason": "r"},
        }
    }  # fmt: skip
    hostile = _poison(index, SCRIPT, numbers=True)
    page = clients_html(hostile)
    assert "<script" not in page and "&lt;script&gt;" in page
    # markup, quotes, a bare `&` and control characters: the benign page's tags and no more
    page = clients_html(_poison(index, HOSTILE, numbers=True))
    benign = _Page(clients_html(_poison(index, "plain", numbers=True)))
    parsed = _Page(page)
    assert parsed.tags <= benign.tags and parsed.attributes <= benign.attributes
    assert not _NOT_HTML.search(page)
    assert not re.search(r"&(?![a-z]+;|#[0-9]+;|#x[0-9a-f]+;)", page, re.I)
    assert any(SHOWN in text for text in parsed.values)
    for target in hostile["targets"].values():  # the branches of a run that ran, too
        target["status"] = "ran"
        target.setdefault("clients", {})
        for client in target["clients"].values():
            client["status"] = "ran"
    page = clients_html(hostile)
    assert "<script" not in page and "&lt;script&gt;" in page


# ---------------------------------------------------------------- each value, one at a time

#: what a hostile index may put in a value: markup, quotes that would end an attribute, a bare
#: ``&`` and an entity, and characters HTML refuses (ESC, NUL, BEL, DEL, a C1 control)
HOSTILE = "<script>alert(1)</script>\"' onmouseover=x &amp; & \x1b[31m\x00\x07\x7f\x85"
#: how the page shows it: the characters HTML refuses written ``#xNN`` (as junit.xml does)
SHOWN = "<script>alert(1)</script>\"' onmouseover=x &amp; & #x1B[31m#x00#x07#x7F#x85"


class _Page(HTMLParser):
    """A page's tags, attribute names, and its text and attribute values (entities read)."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.values: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes |= {name for name, _ in attrs}
        self.values += [value for _, value in attrs if value]

    def handle_data(self, data: str) -> None:
        self.values.append(data)


def _spot(index: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The target, a check entry with evidence (its first evidence) and the first case."""
    target = index["targets"]["t"]
    entry = next(e for e in target["checks"].values() if e.get("evidence"))
    return target, entry["evidence"][0], target["cases"][0]


def _rename_target(index: dict[str, Any], value: str) -> None:
    index["targets"] = {value: index["targets"].pop("t")}


def _rename_check(index: dict[str, Any], value: str) -> None:
    target, old = index["targets"]["t"], next(iter(index["targets"]["t"]["checks"]))
    target["checks"][value] = target["checks"].pop(old)
    index["checks"][value] = index["checks"].pop(old)


def _meta(field: str) -> Any:
    def put(index: dict[str, Any], value: str) -> None:
        for meta in index["checks"].values():
            meta[field] = value

    return put


def _evidence(*path: str) -> Any:
    def put(index: dict[str, Any], value: Any) -> None:
        _, ev, _ = _spot(index)
        for key in path[:-1]:
            ev = ev.setdefault(key, {})
        ev[path[-1]] = value

    return put


def _summary(field: str) -> Any:
    def put(index: dict[str, Any], value: str) -> None:
        index["targets"]["t"]["summary"][field] = value

    return put


def _outcomes(index: dict[str, Any], value: str) -> None:  # a label no outcome has
    for entry in index["targets"]["t"]["checks"].values():
        entry["outcome"] = value


def _attempt(field: str) -> Any:
    def put(index: dict[str, Any], value: str) -> None:
        _spot(index)[2]["attempt_log"][0][field] = value

    return put


def _case(field: str) -> Any:
    def put(index: dict[str, Any], value: str) -> None:
        _spot(index)[2][field] = value

    return put


def _target_info(field: str) -> Any:
    def put(index: dict[str, Any], value: Any) -> None:
        index["targets"]["t"]["target"][field] = [value] if field == "profiles" else value

    return put


def _status(index: dict[str, Any], value: str) -> None:
    index["targets"]["t"].update(status=value, reason=value)


def _entry_reasons(index: dict[str, Any], value: str) -> None:  # shown for skipped checks too
    for entry in index["targets"]["t"]["checks"].values():
        entry["reason"] = value
        entry["evidence_omitted"] = value


_VALUES = {
    "target name": _rename_target,
    "server URL": _target_info("base_url"),
    "model": _target_info("model"),
    "profile name": _target_info("profiles"),
    "status and reason": _status,
    "duration": lambda index, v: index["targets"]["t"].update(duration_s=v),
    **{f"count {k}": _summary(k) for k in ("exercised", "pass", "skip", "xfail", "xpass")},
    "check id": _rename_check,
    "unknown outcome label": _outcomes,
    "level": _meta("level"),
    "requirement": _meta("requirement"),
    "clause": _meta("clause"),
    "anchor": _meta("anchor"),
    "entry reason and omitted count": _entry_reasons,
    "evidence case": _evidence("case"),
    "evidence attempt": _evidence("attempt"),
    "evidence expected": _evidence("expected"),
    "evidence actual": _evidence("actual"),
    "evidence message": _evidence("message"),
    "evidence path": _evidence("path"),
    "evidence event index": _evidence("event_index"),
    "request method": _evidence("request", "method"),
    "request path": _evidence("request", "path"),
    "request body": _evidence("request", "body"),
    "response status": _evidence("response", "status"),
    "response content type": _evidence("response", "content_type"),
    "response events": _evidence("response", "events"),
    "response error": _evidence("response", "error"),
    "response body": _evidence("response", "body"),
    "event": lambda index, v: _evidence("events")(index, [{"index": v, "event": v}]),
    "attempt run": _attempt("run"),
    "attempt number": _attempt("attempt"),
    "attempt result": _attempt("result"),
    "attempt reason": _attempt("reason"),
    "attempt violations": lambda index, v: _attempt("violations")(index, [v]),
    "passed attempt": _case("passed_attempt"),
    "case id": _case("id"),
    "case outcome": _case("outcome"),
    "not judged": _case("not_judged"),
    "generated at": lambda index, v: index.update(generated_at=v),
    "tool": lambda index, v: index.update(tool={"name": v, "version": v}),
}


@pytest.mark.parametrize("targets", [1, 2], ids=["one target", "matrix"])
@pytest.mark.parametrize("value", list(_VALUES))
def test_each_value_is_shown_as_text_never_as_markup(value: str, targets: int) -> None:
    """Each value the report shows, hostile: the page has the tags and attributes of the page
    with a harmless value there and no more, no bare ``&`` or character HTML refuses, and shows the value as text."""

    def view(index: dict[str, Any]) -> str:
        if targets == 2:
            index["targets"]["second"] = index["targets"][next(iter(index["targets"]))]
        return render_html(index)

    benign = _index()  # the same value, harmless: the same page structure
    _VALUES[value](benign, "plain value")
    clean = _Page(view(benign))
    index = _index()
    _VALUES[value](index, HOSTILE)
    page = view(index)
    parsed = _Page(page)
    assert parsed.tags <= clean.tags, parsed.tags - clean.tags
    assert parsed.attributes <= clean.attributes, parsed.attributes - clean.attributes
    assert not re.search(r"&(?![a-z]+;|#[0-9]+;|#x[0-9a-f]+;)", page, re.I)
    assert not _NOT_HTML.search(page)
    assert any(SHOWN in text for text in parsed.values), f"{value} is not shown"
