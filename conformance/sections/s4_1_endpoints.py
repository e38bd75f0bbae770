"""§4.1 Endpoints (docs/spec.md#s4-1): ``live.store.*``, ``live.input_items.*``,
``live.usage.retrieve_equals_stream``.

A stored response is retrieved as it was created, streamed or not (a field only the retrieve
carries is no difference: OpenAI's retrieve adds ``billing``); a ``store: false`` one is not
retrievable (KB26); DELETE answers ``deleted: true`` and the id is gone after; input_items is a
``ResponseItemList`` that pages with ``limit``, ``order`` and ``after``. Each check's rule is the
case below that evaluates it (:mod:`.cases`), run against a target that declares ``stateful``;
its failing example is a misbehaving server (tests/suite/broken_servers.py), its near miss the
embedded mock. ``check DIR`` judges ``live.store.retrieve_equals``, ``live.store.delete`` and
``live.usage.retrieve_equals_stream`` on recorded exchanges too
(:mod:`conformance.offline.cassette_check`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.registry import Check, Level, register
from ..schema import SCHEMAS
from .case_support import SHORT_PROMPT, differing_fields
from .cases import STREAMS, case, params

if TYPE_CHECKING:
    from ..suite.probe import Probe

__all__ = [
    "DELETE",
    "INPUT_ITEMS_LIST",
    "INPUT_ITEMS_PAGING",
    "RETRIEVE_EQUALS",
    "STORE_FALSE",
    "USAGE_RETRIEVE_EQUALS_STREAM",
    "declare_examples",
]

STATEFUL = ("stateful",)

RETRIEVE_EQUALS = register(
    "live.store.retrieve_equals",
    Level.MUST,
    "§4.1",
    "GET /v1/responses/{id} returns the Response the create call returned (streamed or not)",
    profile="stateful",
)
USAGE_RETRIEVE_EQUALS_STREAM = register(
    "live.usage.retrieve_equals_stream",
    Level.MUST,
    "§3.2 (across requests)",
    "a retrieved response carries the usage its stream ended with",
    profile="stateful",
)
STORE_FALSE = register(
    "live.store.false_not_retrievable",
    Level.MUST,
    "§4.1 (store); KB26",
    "a `store: false` response cannot be retrieved (404)",
    profile="stateful",
)
DELETE = register(
    "live.store.delete",
    Level.MUST,
    "§4.1",
    'DELETE returns `{id, object: "response", deleted: true}`; afterwards GET and DELETE get 404',
    profile="stateful",
)
INPUT_ITEMS_LIST = register(
    "live.input_items.list",
    Level.MUST,
    "§4.1 [OAPI] ResponseItemList",
    "input_items is a `ResponseItemList` (`object: list`, `data`, `first_id`, `last_id`, "
    "`has_more`) holding the request's input items",
    profile="stateful",
)
INPUT_ITEMS_PAGING = register(
    "live.input_items.paging",
    Level.MUST,
    "§4.1",
    "input_items honours `limit` (with `has_more`), `order` (default `desc`) and `after`",
    profile="stateful",
)


def declare_examples() -> None:
    """The failing example (a misbehaving server) and the near miss (the mock) of each check."""
    from ..examples.live import live

    live(
        STORE_FALSE.id,
        "kb26_store_false_retrievable",
        "a server that stores, and serves on GET, a `store: false` response (KB26)",
    )
    live(DELETE.id, "delete_not_deleted", "a server whose DELETE answers `deleted: false`")
    live(
        INPUT_ITEMS_LIST.id,
        "input_items_not_a_list",
        'a server whose input_items answer `object: "items"` without `has_more`',
    )
    live(
        INPUT_ITEMS_PAGING.id,
        "input_items_ignore_limit",
        "a server whose input_items ignore `limit`",
    )
    live(
        USAGE_RETRIEVE_EQUALS_STREAM.id,
        "retrieved_usage_differs",
        "a server whose retrieved response reports other usage than its stream ended with",
    )
    live(
        RETRIEVE_EQUALS.id,
        "retrieved_output_differs",
        "a server whose GET returns another Response than the create call",
    )


def _retrieve(probe: Probe, response: dict[str, Any]) -> dict[str, Any]:
    ex = probe.send("GET", f"/responses/{response.get('id')}")
    probe.require(
        RETRIEVE_EQUALS, ex.status == 200, ex,
        expected="HTTP 200 with the stored response", actual=f"HTTP {ex.status}",
    )  # fmt: skip
    return ex.json


@case("store", RETRIEVE_EQUALS, profiles=STATEFUL)
def test_retrieve_equals_created(probe: Probe) -> None:
    created = probe.create(probe.body(input=SHORT_PROMPT))
    retrieved = _retrieve(probe, created)
    diff = differing_fields(created, retrieved, extra_in_b=True)
    probe.check(
        RETRIEVE_EQUALS, not diff, probe.last,
        expected="the created response", actual=f"fields that differ: {diff}",
    )  # fmt: skip


@case("store", RETRIEVE_EQUALS, USAGE_RETRIEVE_EQUALS_STREAM, profiles=STATEFUL)
def test_retrieve_equals_streamed(probe: Probe) -> None:
    terminal, _ = probe.create_stream(probe.body(input=SHORT_PROMPT))
    retrieved = _retrieve(probe, terminal)
    diff = differing_fields(terminal, retrieved, extra_in_b=True)
    probe.check(
        RETRIEVE_EQUALS, not diff, probe.last,
        expected="the stream's terminal response", actual=f"fields that differ: {diff}",
    )  # fmt: skip
    probe.check(
        USAGE_RETRIEVE_EQUALS_STREAM, terminal.get("usage") == retrieved.get("usage"),
        probe.last, expected=terminal.get("usage"), actual=retrieved.get("usage"),
    )  # fmt: skip


@case("store", STORE_FALSE, profiles=STATEFUL)
@params("stream", STREAMS)
def test_store_false_not_retrievable(probe: Probe, stream: bool) -> None:
    body = probe.body(input=SHORT_PROMPT, store=False)
    response = probe.create_stream(body)[0] if stream else probe.create(body)
    ex = probe.send("GET", f"/responses/{response.get('id')}")
    probe.check(
        STORE_FALSE, ex.status == 404, ex,
        expected="HTTP 404 (the response was not stored)", actual=f"HTTP {ex.status}",
    )  # fmt: skip


@case("store", DELETE, profiles=STATEFUL)
def test_delete(probe: Probe) -> None:
    created = probe.create(probe.body(input=SHORT_PROMPT))
    rid = created.get("id")
    ex = probe.send("DELETE", f"/responses/{rid}")
    want = {"id": rid, "object": "response", "deleted": True}
    probe.require(
        DELETE, ex.status == 200 and {k: ex.json.get(k) for k in want} == want, ex,
        expected=f"HTTP 200 {want}", actual=f"HTTP {ex.status} {ex.body or ex.text!r}",
    )  # fmt: skip
    for method in ("GET", "DELETE"):
        after = probe.send(method, f"/responses/{rid}")
        probe.check(
            DELETE, after.status == 404, after,
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


@case("store", INPUT_ITEMS_LIST, INPUT_ITEMS_PAGING, profiles=STATEFUL)
def test_input_items(probe: Probe) -> None:
    created = probe.create(probe.body(input=[{"role": "user", "content": t} for t in _TEXTS]))
    path = f"/responses/{created.get('id')}/input_items"

    def page(check: Check, **query: str) -> dict[str, Any]:
        ex = probe.send("GET", path, params=query or None)
        probe.require(check, ex.status == 200, ex, expected="HTTP 200", actual=f"HTTP {ex.status}")
        issues = SCHEMAS.validate("ResponseItemList", ex.json)
        probe.check(
            INPUT_ITEMS_LIST, not issues, ex, expected="a ResponseItemList",
            actual="; ".join(f"{i.path}: {i.expected} ≠ {i.actual}" for i in issues[:3]),
        )  # fmt: skip
        return ex.json

    default = page(INPUT_ITEMS_LIST)
    newest_first = list(reversed(_TEXTS))
    probe.check(
        INPUT_ITEMS_LIST, _texts(default) == newest_first, probe.last,
        expected=f"the 3 input messages, newest first (order defaults to desc): {newest_first}",
        actual=_texts(default),
    )  # fmt: skip
    one = page(INPUT_ITEMS_PAGING, limit="1")
    data = _data(one)
    first = data[0].get("id") if data and isinstance(data[0], dict) else None
    probe.check(
        INPUT_ITEMS_PAGING,
        len(data) == 1 and one.get("has_more") is True and one.get("first_id") == first
        and one.get("last_id") == first, probe.last,
        expected="limit=1: one item, has_more true, first_id = last_id = its id",
        actual=f"{len(data)} item(s), has_more {one.get('has_more')!r}, "
        f"first_id {one.get('first_id')!r}, last_id {one.get('last_id')!r}",
    )  # fmt: skip
    asc = page(INPUT_ITEMS_PAGING, order="asc")
    probe.check(
        INPUT_ITEMS_PAGING, _texts(asc) == list(_TEXTS), probe.last,
        expected=f"order=asc: {list(_TEXTS)}", actual=_texts(asc),
    )  # fmt: skip
    asc_data = _data(asc)
    if asc_data and isinstance(asc_data[0], dict) and isinstance(asc_data[0].get("id"), str):
        rest = page(INPUT_ITEMS_PAGING, order="asc", after=asc_data[0]["id"])
        probe.check(
            INPUT_ITEMS_PAGING, _texts(rest) == list(_TEXTS[1:]), probe.last,
            expected=f"order=asc&after=<first id>: {list(_TEXTS[1:])}", actual=_texts(rest),
        )  # fmt: skip
