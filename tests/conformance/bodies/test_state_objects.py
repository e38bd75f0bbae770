"""`check` on the state objects besides the Response: compaction results, conversations,
deleted conversations, item lists. Each check ID has a minimal failing example and a passing
near-miss; the real bodies we hold pass; the CLI exits 0 / 1 on a valid / broken compaction body."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.bodies.state import state_kind, validate_state_body
from conformance.catalog.registry import REGISTRY
from conformance.cli import main
from conformance.offline.recorded import UnreadableFile, check_bytes

DATA = Path(__file__).parents[2] / "data" / "state-objects"
CORPUS = Path(__file__).parents[2] / "data" / "openai-recorded"

Body = dict[str, Any]


def _compaction() -> Body:
    return {
        "id": "resp_1",
        "object": "response.compaction",
        "created_at": 1_700_000_000,
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "user",
                "content": [{"type": "input_text", "text": "Remember the code word PLUM."}],
            },
            {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAB-opaque"},
        ],
        "usage": {
            "input_tokens": 12,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 17,
        },
    }


def _conversation() -> Body:
    return {"id": "conv_1", "object": "conversation", "created_at": 1_700_000_000, "metadata": {}}


def _deleted() -> Body:
    return {"id": "conv_1", "object": "conversation.deleted", "deleted": True}


def _item_list() -> Body:
    return {
        "object": "list",
        "data": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "user",
                "content": [{"type": "input_text", "text": "hi"}],
            },
            {
                "type": "message",
                "id": "msg_2",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "hello", "annotations": []}],
            },
        ],
        "first_id": "msg_1",
        "last_id": "msg_2",
        "has_more": False,
    }


def _ids(body: Body) -> set[str]:
    return {v.check.id for v in validate_state_body(body)}


def _set(path: str, value: Any) -> Callable[[Body], None]:
    def apply(body: Body) -> None:
        *head, last = path.split(".")
        target: Any = body
        for key in head:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is _DELETE:
            del target[int(last) if isinstance(target, list) else last]
        elif isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return apply


_DELETE = object()

# check ID -> (a valid body, the mutation that fires it, a near miss that must not)
CASES: dict[str, tuple[Callable[[], Body], Callable[[Body], None], Callable[[Body], None]]] = {
    "compaction.schema.required": (
        _compaction,
        _set("created_at", _DELETE),
        _set("created_at", 1),
    ),
    "compaction.schema.type": (_compaction, _set("created_at", "soon"), _set("created_at", 0)),
    "compaction.schema.value": (
        _compaction,
        _set("object", "response.compacted"),  # judged as a compaction by the caller
        _set("object", "response.compaction"),
    ),
    "compaction.schema.enum": (
        _compaction,
        _set("output.0.role", "narrator"),
        _set("output.0.role", "system"),
    ),
    "compaction.item.present": (
        _compaction,
        _set("output.1", _DELETE),
        _set("output.0", _DELETE),
    ),
    "compaction.item.encrypted_content": (
        _compaction,
        _set("output.1.encrypted_content", ""),
        _set("output.1.encrypted_content", "x"),
    ),
    "usage.total": (_compaction, _set("usage.total_tokens", 16), _set("usage.output_tokens", 5)),
    "conversation.schema.required": (
        _conversation,
        _set("created_at", _DELETE),
        _set("metadata", {"k": "v"}),
    ),
    "conversation.schema.type": (
        _conversation,
        _set("created_at", "2025-01-01"),
        _set("created_at", 1),
    ),
    "conversation.metadata": (
        _conversation,
        _set("metadata", {f"k{i}": "v" for i in range(17)}),
        _set("metadata", {f"k{i}": "v" * 512 for i in range(16)}),
    ),
    "conversation.id_prefix": (_conversation, _set("id", "thread_1"), _set("id", "conv_x")),
    "conversation.deleted.true": (_deleted, _set("deleted", False), _set("id", "conv_2")),
    "item_list.schema.required": (
        _item_list,
        _set("has_more", _DELETE),
        _set("has_more", True),
    ),
    "item_list.schema.type": (_item_list, _set("has_more", "no"), _set("has_more", False)),
    "item_list.schema.value": (
        _item_list,
        _set("object", "page"),  # judged as a list by the caller
        _set("data.0.content.0.text", "hey"),
    ),
    "item_list.schema.enum": (
        _item_list,
        _set("data.0.status", "archived"),
        _set("data.0.status", "incomplete"),
    ),
    "item_list.bounds": (_item_list, _set("last_id", "msg_1"), _set("has_more", True)),
    "item_list.id_unique": (_item_list, _set("data.1.id", "msg_1"), _set("data.1.id", "msg_3")),
}


@pytest.mark.parametrize("check_id", sorted(CASES))
def test_each_check_fires_on_its_example_and_not_on_the_near_miss(check_id: str) -> None:
    assert check_id in REGISTRY
    make, breaks, near_miss = CASES[check_id]
    ok = make()
    kind = state_kind(ok)
    assert not validate_state_body(ok), "the base body is valid"
    broken = copy.deepcopy(ok)
    breaks(broken)
    fired = {v.check.id for v in validate_state_body(broken, kind)}
    assert check_id in fired
    fine = copy.deepcopy(ok)
    near_miss(fine)
    assert check_id not in {v.check.id for v in validate_state_body(fine, kind)}


def test_every_state_check_has_an_example() -> None:
    groups = ("compaction.", "conversation.", "item_list.")
    state_ids = {i for i in REGISTRY if i.startswith(groups)}
    assert state_ids <= CASES.keys()


def test_item_list_judged_by_the_better_fitting_schema() -> None:
    """A conversation's list holds items an input_items list cannot (and the reverse): each
    passes against its own schema."""
    body = _item_list()
    body["data"].append({"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"})
    body["last_id"] = "cmp_1"
    assert _ids(body) == set()


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_held_bodies_pass(name: str) -> None:
    verdict = check_bytes((DATA / name).read_bytes(), name=name)
    assert verdict.kind in ("compaction", "conversation", "conversation_deleted", "item_list")
    assert verdict.violations == []


def test_corpus_compaction_responses_still_pass() -> None:
    for name in ("openai-compaction.1.json", "azure-compaction.1.json"):
        verdict = check_bytes((CORPUS / "bodies" / name).read_bytes(), name=name)
        assert verdict.kind == "response"
        assert verdict.violations == []


def test_cli_exit_codes_on_compaction_bodies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "compact.json"
    good.write_text(json.dumps(_compaction()))
    assert main(["check", str(good)]) == 0
    assert "(compaction)" in capsys.readouterr().out
    broken = _compaction()
    broken["output"][1]["encrypted_content"] = ""
    bad = tmp_path / "compact-broken.json"
    bad.write_text(json.dumps(broken))
    assert main(["check", "--format", "json", str(bad)]) == 1
    doc = json.loads(capsys.readouterr().out)
    (file,) = doc["files"]
    assert file["kind"] == "compaction"
    assert {v["check_id"] for v in file["violations"]} == {"compaction.item.encrypted_content"}


def test_other_json_objects_stay_unreadable() -> None:
    with pytest.raises(UnreadableFile, match="compaction result"):
        check_bytes(b'{"object": "thread", "id": "x"}')


def test_deeply_nested_state_body_is_reported_not_raised() -> None:
    body = _conversation()
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    body["metadata"] = {"k": deep}
    ids = _ids(body)
    assert ids & {"sse.limit.depth", "conversation.metadata"}
