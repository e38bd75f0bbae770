"""Stateful: stored responses retrieve as created, `store: false` ones do not (KB26), delete
works, and input_items pages with limit / order / after (SPEC §4)."""

from __future__ import annotations

from typing import Any

import pytest

from ...catalog import live as L
from ...catalog.registry import Check
from ...schema import SCHEMAS
from ..probe import Probe
from .support import SHORT_PROMPT, differing_fields

pytestmark = pytest.mark.profiles("stateful")


def _retrieve(probe: Probe, response: dict[str, Any]) -> dict[str, Any]:
    ex = probe.send("GET", f"/responses/{response.get('id')}")
    probe.require(
        L.RETRIEVE_EQUALS, ex.status == 200, ex,
        expected="HTTP 200 with the stored response", actual=f"HTTP {ex.status}",
    )  # fmt: skip
    return ex.json


@pytest.mark.checks(L.RETRIEVE_EQUALS.id)
def test_retrieve_equals_created(probe: Probe) -> None:
    created = probe.create(probe.body(input=SHORT_PROMPT))
    retrieved = _retrieve(probe, created)
    diff = differing_fields(created, retrieved, extra_in_b=True)
    probe.check(
        L.RETRIEVE_EQUALS, not diff, probe.last,
        expected="the created response", actual=f"fields that differ: {diff}",
    )  # fmt: skip


@pytest.mark.checks(L.RETRIEVE_EQUALS.id, L.USAGE_RETRIEVE_EQUALS_STREAM.id)
def test_retrieve_equals_streamed(probe: Probe) -> None:
    terminal, _ = probe.create_stream(probe.body(input=SHORT_PROMPT))
    retrieved = _retrieve(probe, terminal)
    diff = differing_fields(terminal, retrieved, extra_in_b=True)
    probe.check(
        L.RETRIEVE_EQUALS, not diff, probe.last,
        expected="the stream's terminal response", actual=f"fields that differ: {diff}",
    )  # fmt: skip
    probe.check(
        L.USAGE_RETRIEVE_EQUALS_STREAM, terminal.get("usage") == retrieved.get("usage"),
        probe.last, expected=terminal.get("usage"), actual=retrieved.get("usage"),
    )  # fmt: skip


@pytest.mark.checks(L.STORE_FALSE.id)
@pytest.mark.parametrize("stream", [False, True], ids=["nonstream", "stream"])
def test_store_false_not_retrievable(probe: Probe, stream: bool) -> None:
    body = probe.body(input=SHORT_PROMPT, store=False)
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    ex = probe.send("GET", f"/responses/{response.get('id')}")
    probe.check(
        L.STORE_FALSE, ex.status == 404, ex,
        expected="HTTP 404 (the response was not stored)", actual=f"HTTP {ex.status}",
    )  # fmt: skip


@pytest.mark.checks(L.DELETE.id)
def test_delete(probe: Probe) -> None:
    created = probe.create(probe.body(input=SHORT_PROMPT))
    rid = created.get("id")
    ex = probe.send("DELETE", f"/responses/{rid}")
    want = {"id": rid, "object": "response", "deleted": True}
    probe.require(
        L.DELETE, ex.status == 200 and {k: ex.json.get(k) for k in want} == want, ex,
        expected=f"HTTP 200 {want}", actual=f"HTTP {ex.status} {ex.body or ex.text!r}",
    )  # fmt: skip
    for method in ("GET", "DELETE"):
        after = probe.send(method, f"/responses/{rid}")
        probe.check(
            L.DELETE, after.status == 404, after,
            expected=f"{method} after delete → HTTP 404", actual=f"HTTP {after.status}",
        )  # fmt: skip


_TEXTS = ("First note: apples.", "Second note: pears.", "Third: say OK in one word.")


def _data(page: dict[str, Any]) -> list[Any]:
    data = page.get("data")
    return data if isinstance(data, list) else []


def _texts(page: dict[str, Any]) -> list[str]:
    out: list[str] = []
    data = page.get("data")
    for item in data if isinstance(data, list) else ():
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("".join(p.get("text", "") for p in content if isinstance(p, dict)))
        else:
            out.append("")
    return out


@pytest.mark.checks(L.INPUT_ITEMS_LIST.id, L.INPUT_ITEMS_PAGING.id)
def test_input_items(probe: Probe) -> None:
    created = probe.create(probe.body(input=[{"role": "user", "content": t} for t in _TEXTS]))
    path = f"/responses/{created.get('id')}/input_items"

    def page(check: Check, **params: str) -> dict[str, Any]:
        ex = probe.send("GET", path, params=params or None)
        probe.require(check, ex.status == 200, ex, expected="HTTP 200", actual=f"HTTP {ex.status}")
        issues = SCHEMAS.validate("ResponseItemList", ex.json)
        probe.check(
            L.INPUT_ITEMS_LIST, not issues, ex, expected="a ResponseItemList",
            actual="; ".join(f"{i.path}: {i.expected} ≠ {i.actual}" for i in issues[:3]),
        )  # fmt: skip
        return ex.json

    default = page(L.INPUT_ITEMS_LIST)
    newest_first = list(reversed(_TEXTS))
    probe.check(
        L.INPUT_ITEMS_LIST, _texts(default) == newest_first, probe.last,
        expected=f"the 3 input messages, newest first (order defaults to desc): {newest_first}",
        actual=_texts(default),
    )  # fmt: skip
    one = page(L.INPUT_ITEMS_PAGING, limit="1")
    data = _data(one)
    first = data[0].get("id") if data and isinstance(data[0], dict) else None
    probe.check(
        L.INPUT_ITEMS_PAGING,
        len(data) == 1 and one.get("has_more") is True and one.get("first_id") == first
        and one.get("last_id") == first, probe.last,
        expected="limit=1: one item, has_more true, first_id = last_id = its id",
        actual=f"{len(data)} item(s), has_more {one.get('has_more')!r}, "
        f"first_id {one.get('first_id')!r}, last_id {one.get('last_id')!r}",
    )  # fmt: skip
    asc = page(L.INPUT_ITEMS_PAGING, order="asc")
    probe.check(
        L.INPUT_ITEMS_PAGING, _texts(asc) == list(_TEXTS), probe.last,
        expected=f"order=asc: {list(_TEXTS)}", actual=_texts(asc),
    )  # fmt: skip
    asc_data = _data(asc)
    if asc_data and isinstance(asc_data[0], dict) and isinstance(asc_data[0].get("id"), str):
        rest = page(L.INPUT_ITEMS_PAGING, order="asc", after=asc_data[0]["id"])
        probe.check(
            L.INPUT_ITEMS_PAGING, _texts(rest) == list(_TEXTS[1:]), probe.last,
            expected=f"order=asc&after=<first id>: {list(_TEXTS[1:])}", actual=_texts(rest),
        )  # fmt: skip
