"""Reports stay well-formed whatever the index holds (issue #40 item 3): junit.xml parses when
evidence carries XML-illegal characters (ESC, NUL, U+FFFE, a lone surrogate), written ``#xNN``
as pytest writes them; report.html (the suite's and the clients harness's) escapes every value,
counts, attempts and the labels of unknown outcomes included.

On main before this change: the junit.xml of the control-character cases did not parse, and
the HTML of the poisoned counts, attempt and outcome carried a live ``<script>``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from test_suite_reports import _result

from conformance.clients.report import render_html as clients_html
from conformance.suite.reporting import build_index, render_html, render_junit

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
    for target in hostile["targets"].values():  # the branches of a run that ran, too
        target["status"] = "ran"
        target.setdefault("clients", {})
        for client in target["clients"].values():
            client["status"] = "ran"
    page = clients_html(hostile)
    assert "<script" not in page and "&lt;script&gt;" in page
