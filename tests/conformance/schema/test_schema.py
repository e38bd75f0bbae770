"""Schema validation against [OAPI] with exactly SPEC §1a's relaxations (conformance/schema/).

(a) every member of the ``ResponseStreamEvent`` union: a minimal instance synthesized from its schema
passes, and each required key removed / each field mistyped is reported; (b) the corpus passes;
(c) each relaxation is needed by the recording it names, and relaxes no more than that; (d) the known
bugs KB12, KB17, KB21, KB27, KB28, KB29 and a missing ``logprobs``, applied to real events, are
reported; (e) extra fields, open enums, booleans and floats where integers belong; (f) the generated
predicates and the issue-collecting interpreter agree.
"""

from __future__ import annotations

import copy
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from conformance.schema import (  # _Checker: the agreement test runs it without pruning
    RELAXATIONS,
    SCHEMAS,
    Relaxation,
    SchemaIssue,
    SchemaValidator,
    _Checker,
    load_document,
)

REPO = Path(__file__).parents[3]
CORPUS = REPO / "tests" / "data" / "openai-recorded"
STREAMS = sorted((CORPUS / "streams").glob("*.jsonl"))
BODIES = sorted((CORPUS / "bodies").glob("*.json"))
ERRORS = sorted((CORPUS / "errors").glob("*.json"))

DOCUMENT = load_document()
RAW = DOCUMENT["schemas"]  # [OAPI] as extracted, before any relaxation
REF = "#/components/schemas/"
UNION_MEMBERS = sorted(b["$ref"][len(REF) :] for b in RAW["ResponseStreamEvent"]["anyOf"])

# The only enum misses in the whole corpus (kind "enum", reported at INFO by callers).
CORPUS_ENUM_ISSUES = {
    "openai-error.1.jsonl": {("response.failed", "response.error.code", '"insufficient_quota"')},
}


def _events(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _load(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(path.read_bytes())
    return value


def _stream(name: str) -> list[dict[str, Any]]:
    return _events(CORPUS / "streams" / name)


def _first(name: str, etype: str, pred: Any = None) -> dict[str, Any]:
    for event in _stream(name):
        if event["type"] == etype and (pred is None or pred(event)):
            return event
    raise LookupError(f"no {etype} in {name}")


def _failing(issues: list[SchemaIssue]) -> list[SchemaIssue]:
    return [i for i in issues if i.kind != "enum"]


def _paths(issues: list[SchemaIssue], kind: str) -> set[str]:
    return {i.path for i in issues if i.kind == kind}


# --- a minimal instance from a schema ------------------------------------------------------------


def _deref(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = RAW[schema["$ref"][len(REF) :]]
    return schema


def example(schema: dict[str, Any]) -> Any:
    """The smallest value [OAPI]'s ``schema`` accepts: required keys only, first union branch."""
    if "$ref" in schema:
        return example(RAW[schema["$ref"][len(REF) :]])
    if "allOf" in schema:
        # Required keys and their properties may sit in different parts: merge, then generate.
        parts = [_deref(p) for p in schema["allOf"]]
        props = {k: v for part in parts for k, v in part.get("properties", {}).items()}
        required = [k for part in parts for k in part.get("required", ())]
        return example({"type": "object", "properties": props, "required": required})
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = [b for b in schema[key] if b.get("type") != "null"]
            return example(branches[0])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: example(props.get(k, {"type": "string"})) for k in schema.get("required", ())}
    if kind == "array":
        return [example(schema["items"]) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        assert "pattern" not in schema, "no generator for patterns"
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    raise NotImplementedError(schema)


def _dict_paths(value: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any], str]]:
    """(path of the key, the dict holding it, the key) for every key of every nested dict."""
    if isinstance(value, dict):
        for key, sub in value.items():
            where = f"{path}.{key}" if path else key
            yield where, value, key
            yield from _dict_paths(sub, where)
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _dict_paths(sub, f"{path}[{i}]")


def _delete(value: Any, target: str) -> Any:
    mutated = copy.deepcopy(value)
    for where, holder, key in _dict_paths(mutated):
        if where == target:
            del holder[key]
            return mutated
    raise LookupError(target)


def _replace(value: Any, target: str, new: Any) -> Any:
    mutated = copy.deepcopy(value)
    for where, holder, key in _dict_paths(mutated):
        if where == target:
            holder[key] = new
            return mutated
    raise LookupError(target)


# Keys the minimal instance of a member holds that the relaxations make optional.
RELAXED_KEYS = {
    ("ResponseFunctionCallArgumentsDoneEvent", "name"),
    ("ResponseContentPartAddedEvent", "part.logprobs"),  # "output_text part logprobs optional"
    ("ResponseContentPartDoneEvent", "part.logprobs"),
}


# --- (a) every member of the ResponseStreamEvent union -------------------------------------------


def test_union_has_58_members_and_event_types_names_them_all() -> None:
    # SPEC §1: [OAPI] knows 58 event types.
    assert len(UNION_MEMBERS) == 58
    consts = {RAW[m]["properties"]["type"]["enum"][0] for m in UNION_MEMBERS}
    assert SCHEMAS.event_types() == frozenset(consts)
    assert len(consts) == 58


@pytest.mark.parametrize("member", UNION_MEMBERS)
def test_member_minimal_instance_is_valid(member: str) -> None:
    instance = example(RAW[member])
    assert SCHEMAS.validate_event(instance) == []
    assert SCHEMAS.validate(member, instance) == []


@pytest.mark.parametrize("member", UNION_MEMBERS)
def test_member_each_required_key_removed_is_reported(member: str) -> None:
    instance = example(RAW[member])
    for where, _, _ in list(_dict_paths(instance)):
        if where == "type":
            # validate_event dispatches on `type`; without it, the member's own schema says so.
            issues = SCHEMAS.validate(member, _delete(instance, where))
        else:
            issues = SCHEMAS.validate_event(_delete(instance, where))
        if (member, where) in RELAXED_KEYS:
            assert issues == [], (where, issues)
            continue
        assert where in _paths(issues, "required"), (where, issues)
        assert all(i.kind == "required" for i in issues), (where, issues)


@pytest.mark.parametrize("member", UNION_MEMBERS)
def test_member_each_top_level_field_mistyped_is_reported(member: str) -> None:
    instance = example(RAW[member])
    declared = _deref(RAW[member])["properties"]
    for key, value in instance.items():
        if key == "type" or key not in declared:
            # The response.audio.* events require `response_id` but do not declare it: any type.
            continue
        wrong = {"wrong": True} if isinstance(value, list) else [value]
        issues = SCHEMAS.validate_event({**instance, key: wrong})
        assert [(i.kind, i.path) for i in issues] == [("type", key)], (key, issues)


def test_sequence_number_mistyped_names_expected_type() -> None:
    event = example(RAW["ResponseTextDeltaEvent"])
    (issue,) = SCHEMAS.validate_event({**event, "sequence_number": "3"})
    assert issue == SchemaIssue("type", "sequence_number", "integer", '"3"')


# --- (b) the corpus is the arbiter (SPEC §1a) ------------------------------------------------------


def test_corpus_is_complete() -> None:
    assert (len(STREAMS), len(BODIES), len(ERRORS)) == (48, 44, 12)
    assert sum(len(_events(p)) for p in STREAMS) == 6031


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_corpus_stream_validates(path: Path) -> None:
    enums: set[tuple[str, str, str]] = set()
    for index, event in enumerate(_events(path)):
        issues = SCHEMAS.validate_event(event)
        assert _failing(issues) == [], (index, event["type"], issues)
        enums |= {(event["type"], i.path, i.actual) for i in issues}
        if isinstance(event.get("response"), dict):
            inner = SCHEMAS.validate_response(event["response"])
            assert _failing(inner) == [], (index, inner)
            assert {"response." + i.path for i in inner} == {i.path for i in issues}
    assert enums == CORPUS_ENUM_ISSUES.get(path.name, set())


@pytest.mark.parametrize("path", BODIES, ids=lambda p: p.name)
def test_corpus_body_validates(path: Path) -> None:
    assert SCHEMAS.validate_response(_load(path)) == []


@pytest.mark.parametrize("path", ERRORS, ids=lambda p: p.name)
def test_corpus_error_body_validates(path: Path) -> None:
    assert SCHEMAS.validate_error_body(_load(path)) == []


def test_every_corpus_event_type_outside_the_union_is_apply_patch() -> None:
    # SPEC §1: the only event types OpenAI sent that [OAPI] does not know.
    unknown = {e["type"] for p in STREAMS for e in _events(p)} - SCHEMAS.event_types()
    assert unknown == {
        "response.apply_patch_call_operation_diff.delta",
        "response.apply_patch_call_operation_diff.done",
    }
    assert SCHEMAS.validate_event(_first("openai-apply-patch-tool.1.jsonl", min(unknown))) == []


# --- (c) each relaxation is forced by its recording, and no wider ----------------------------------

SPEC_LISTED = {
    "response.user nullable",
    "response.usage nullable",
    "usage.input_tokens_details.cache_write_tokens optional",
    "response.function_call_arguments.done name optional",
    "web_search_call action optional while in_progress",
    "image_generation_call result optional while in_progress",
    "shell_call environment optional",
    "error event nested form",
}


def test_relaxation_table_holds_spec_list_and_names_recordings() -> None:
    names = [r.name for r in RELAXATIONS]
    assert len(names) == len(set(names))
    assert set(names) >= SPEC_LISTED
    for relaxation in RELAXATIONS:
        assert (CORPUS / relaxation.recording).is_file(), relaxation
        assert relaxation.clause.startswith("SPEC §1")


def _recording_issues(validator: SchemaValidator, recording: str) -> list[SchemaIssue]:
    path = CORPUS / recording
    if recording.startswith("streams/"):
        return [i for e in _events(path) for i in _failing(validator.validate_event(e))]
    return _failing(validator.validate_response(_load(path)))


@pytest.mark.parametrize("relaxation", RELAXATIONS, ids=lambda r: r.name)
def test_relaxation_is_needed_by_its_recording(relaxation: Relaxation) -> None:
    assert _recording_issues(SCHEMAS, relaxation.recording) == []
    without = SchemaValidator(relaxations=[r for r in RELAXATIONS if r is not relaxation])
    assert _recording_issues(without, relaxation.recording) != []


def test_unrelaxed_document_fails_the_corpus_only_where_the_table_says() -> None:
    strict = SchemaValidator(relaxations=())
    failed = {r.recording for r in RELAXATIONS if _recording_issues(strict, r.recording)}
    assert failed == {r.recording for r in RELAXATIONS}


def test_in_progress_relaxations_do_not_cover_finished_items() -> None:
    def web_search(event: dict[str, Any]) -> bool:
        return bool(event["item"]["type"] == "web_search_call")

    def image(event: dict[str, Any]) -> bool:
        return bool(event["item"]["type"] == "image_generation_call")

    search = _first("openai-web-search-tool.1.jsonl", "response.output_item.done", web_search)
    assert SCHEMAS.validate_event(search) == []
    del search["item"]["action"]
    issues = SCHEMAS.validate_event(search)
    assert [(i.kind, i.path) for i in issues] == [("required", "item.action")]

    generated = _first("openai-image-generation-tool.1.jsonl", "response.output_item.done", image)
    del generated["item"]["result"]
    issues = SCHEMAS.validate_event(generated)
    assert [(i.kind, i.path) for i in issues] == [("required", "item.result")]

    added = _first("openai-web-search-tool.1.jsonl", "response.output_item.added", web_search)
    assert "action" not in added["item"] and added["item"]["status"] == "in_progress"
    added["item"]["status"] = "searching"  # no recording lacks `action` in this state
    assert ("required", "item.action") in [(i.kind, i.path) for i in SCHEMAS.validate_event(added)]


def test_shell_call_without_environment_passes_when_done() -> None:
    done = _first("openai-shell-tool.1.part1.jsonl", "response.output_item.done")
    assert done["item"]["type"] == "shell_call" and "environment" not in done["item"]
    assert done["item"]["status"] == "completed"
    assert SCHEMAS.validate_event(done) == []


def test_error_event_both_forms() -> None:
    nested = _first("openai-error.1.jsonl", "error")
    assert SCHEMAS.validate_event(nested) == []
    flat = {"type": "error", "sequence_number": 2, "code": None, "message": "m", "param": None}
    assert SCHEMAS.validate_event(flat) == []
    broken = copy.deepcopy(nested)
    del broken["error"]["message"]
    assert _paths(SCHEMAS.validate_event(broken), "required") == {"error.message"}
    del broken["error"]  # neither form: the closer one (one issue, not three) is reported
    assert _paths(SCHEMAS.validate_event(broken), "required") == {"error"}


def test_usage_and_user_may_be_null_but_not_mistyped() -> None:
    created = _first("azure-text.1.jsonl", "response.created")
    assert created["response"]["usage"] is None and created["response"]["user"] is None
    assert SCHEMAS.validate_event(created) == []
    created["response"]["usage"] = 0
    created["response"]["user"] = 5
    assert _paths(SCHEMAS.validate_event(created), "type") == {"response.usage", "response.user"}


# --- (d) known bugs on real events ----------------------------------------------------------------


def _function_tools(event: dict[str, Any]) -> bool:
    return any(t.get("type") == "function" for t in event["response"]["tools"])


def test_kb27_tools_without_strict() -> None:
    event = _first("azure-tool-call.1.jsonl", "response.created", _function_tools)
    index = next(i for i, t in enumerate(event["response"]["tools"]) if t["type"] == "function")
    assert SCHEMAS.validate_event(event) == []
    issues = SCHEMAS.validate_event(_delete(event, f"response.tools[{index}].strict"))
    assert [(i.kind, i.path) for i in issues] == [("required", f"response.tools[{index}].strict")]
    body = _load(CORPUS / "bodies" / "azure-tool-call.1.json")
    index = next(i for i, t in enumerate(body["tools"]) if t["type"] == "function")
    issues = SCHEMAS.validate_response(_delete(body, f"tools[{index}].strict"))
    assert [(i.kind, i.path) for i in issues] == [("required", f"tools[{index}].strict")]


def test_kb28_output_text_without_annotations() -> None:
    part = _first("azure-text.1.jsonl", "response.content_part.added")
    issues = SCHEMAS.validate_event(_delete(part, "part.annotations"))
    assert [(i.kind, i.path) for i in issues] == [("required", "part.annotations")]
    done = _first("azure-text.1.jsonl", "response.output_item.done")
    issues = SCHEMAS.validate_event(_delete(done, "item.content[0].annotations"))
    assert [(i.kind, i.path) for i in issues] == [("required", "item.content[0].annotations")]
    completed = _first("azure-text.1.jsonl", "response.completed")
    index = next(i for i, o in enumerate(completed["response"]["output"]) if o["type"] == "message")
    where = f"response.output[{index}].content[0].annotations"
    issues = SCHEMAS.validate_event(_delete(completed, where))
    assert [(i.kind, i.path) for i in issues] == [("required", where)]


@pytest.mark.parametrize("etype", ["response.content_part.added", "response.content_part.done"])
def test_kb29_content_part_without_item_id(etype: str) -> None:
    event = _first("azure-text.1.jsonl", etype)
    issues = SCHEMAS.validate_event(_delete(event, "item_id"))
    assert [(i.kind, i.path) for i in issues] == [("required", "item_id")]


def test_output_text_delta_without_logprobs() -> None:
    delta = _first("azure-text.1.jsonl", "response.output_text.delta")
    issues = SCHEMAS.validate_event(_delete(delta, "logprobs"))
    assert [(i.kind, i.path) for i in issues] == [("required", "logprobs")]


@pytest.mark.parametrize("details", ["input_tokens_details", "output_tokens_details"])
def test_kb12_usage_without_details(details: str) -> None:
    completed = _first("azure-text.1.jsonl", "response.completed")
    where = f"response.usage.{details}"
    issues = SCHEMAS.validate_event(_delete(completed, where))
    assert [(i.kind, i.path) for i in issues] == [("required", where)]
    body = _load(CORPUS / "bodies" / "azure-text.1.json")
    issues = SCHEMAS.validate_response(_delete(body, f"usage.{details}"))
    assert [(i.kind, i.path) for i in issues] == [("required", f"usage.{details}")]


def test_kb12_cached_tokens_stays_required() -> None:
    completed = _first("azure-text.1.jsonl", "response.completed")
    where = "response.usage.input_tokens_details.cached_tokens"
    issues = SCHEMAS.validate_event(_delete(completed, where))
    assert [(i.kind, i.path) for i in issues] == [("required", where)]


def test_kb17_event_without_sequence_number() -> None:
    delta = _first("azure-text.1.jsonl", "response.output_text.delta")
    issues = SCHEMAS.validate_event(_delete(delta, "sequence_number"))
    assert [(i.kind, i.path) for i in issues] == [("required", "sequence_number")]


def test_kb21_error_code_as_http_status() -> None:
    body = _load(CORPUS / "errors" / "openai-error.1.json")
    issues = SCHEMAS.validate_error_body(_replace(body, "error.code", 429))
    assert [(i.kind, i.path, i.expected) for i in issues] == [
        ("type", "error.code", "string or null")
    ]


# --- (e) extra fields, open enums, integers ---------------------------------------------------------


def test_unknown_extra_fields_pass_everywhere() -> None:
    # SPEC §1: forward compatibility, even where [OAPI] says additionalProperties: false.
    completed = _first("openai-mcp-tool.1.jsonl", "response.completed")
    for _, holder, _ in list(_dict_paths(completed)):
        holder["x_future_field"] = {"anything": [1, None]}
    assert _failing(SCHEMAS.validate_event(completed)) == []


def test_enum_miss_is_kind_enum() -> None:
    created = _first("azure-text.1.jsonl", "response.created")
    created["response"]["status"] = "paused"
    (issue,) = SCHEMAS.validate_event(created)
    assert (issue.kind, issue.path, issue.actual) == ("enum", "response.status", '"paused"')
    assert "'in_progress'" in issue.expected


def test_unknown_item_or_part_type_is_kind_enum() -> None:
    added = _first("azure-text.1.jsonl", "response.output_item.added")
    added["item"]["type"] = "hologram"
    (issue,) = SCHEMAS.validate_event(added)
    assert (issue.kind, issue.path, issue.actual) == ("enum", "item.type", '"hologram"')
    part = _first("azure-text.1.jsonl", "response.content_part.added")
    part["part"]["type"] = "output_hologram"
    (issue,) = SCHEMAS.validate_event(part)
    assert (issue.kind, issue.path) == ("enum", "part.type")


def test_constant_mismatch_is_kind_value() -> None:
    created = _first("azure-text.1.jsonl", "response.created")
    created["response"]["object"] = "chat.completion"
    (issue,) = SCHEMAS.validate_event(created)
    assert (issue.kind, issue.path, issue.expected) == ("value", "response.object", "'response'")
    # A member validated on its own: its discriminator is a constant.
    message = {
        "type": "mesage",
        "id": "m",
        "role": "assistant",
        "status": "completed",
        "content": [],
    }
    issues = SCHEMAS.validate("OutputMessage", message)
    assert [(i.kind, i.path) for i in issues] == [("value", "type")]


def test_unknown_event_type_gives_no_issue() -> None:
    assert SCHEMAS.validate_event({"type": "acme:thing", "sequence_number": 0}) == []
    assert SCHEMAS.validate_event({"sequence_number": 0}) == []
    assert SCHEMAS.validate_event({"type": ["not", "hashable"]}) == []


def test_bool_and_integral_float_are_not_integers() -> None:
    delta = _first("azure-text.1.jsonl", "response.output_text.delta")
    for wrong in (True, False, 3.0):
        issues = SCHEMAS.validate_event({**delta, "output_index": wrong})
        assert [(i.kind, i.path, i.expected) for i in issues] == [
            ("type", "output_index", "integer")
        ]
    completed = _first("azure-text.1.jsonl", "response.completed")
    completed["response"]["usage"]["output_tokens"] = True
    issues = SCHEMAS.validate_event(completed)
    assert [(i.kind, i.path) for i in issues] == [("type", "response.usage.output_tokens")]


def test_number_accepts_int_and_float_but_not_bool() -> None:
    body = _load(CORPUS / "bodies" / "azure-text.1.json")
    assert SCHEMAS.validate_response({**body, "temperature": 0.7, "created_at": 1.5}) == []
    issues = SCHEMAS.validate_response({**body, "temperature": True})
    assert [(i.kind, i.path) for i in issues] == [("type", "temperature")]


def test_bounds_are_value_issues() -> None:
    body = _load(CORPUS / "bodies" / "azure-text.1.json")
    issues = SCHEMAS.validate_response({**body, "top_p": 1.5, "safety_identifier": "s" * 65})
    assert {(i.kind, i.path) for i in issues} == {
        ("value", "top_p"),
        ("value", "safety_identifier"),
    }


def test_metadata_values_are_checked() -> None:
    body = _load(CORPUS / "bodies" / "azure-text.1.json")
    assert SCHEMAS.validate_response({**body, "metadata": {"k": "v", "a.b": "c"}}) == []
    issues = SCHEMAS.validate_response({**body, "metadata": {"a.b": 1}})
    assert [(i.kind, i.path) for i in issues] == [("type", 'metadata["a.b"]')]


def test_actual_is_truncated() -> None:
    delta = _first("azure-text.1.jsonl", "response.output_text.delta")
    (issue,) = SCHEMAS.validate_event({**delta, "delta": ["x" * 500]})
    assert len(issue.actual) <= 80


def test_success_result_is_shared_and_immutable() -> None:
    delta = _first("azure-text.1.jsonl", "response.output_text.delta")
    first = SCHEMAS.validate_event(delta)
    assert first == [] and first is SCHEMAS.validate_response(_load(BODIES[0]))
    with pytest.raises(TypeError):
        first.append(SchemaIssue("type", "", "", ""))
    assert first == []


def test_validate_any_named_schema() -> None:
    items = [o for o in _load(CORPUS / "bodies" / "azure-text.1.json")["output"]]
    listing = {
        "object": "list",
        "data": items,
        "first_id": items[0]["id"],
        "last_id": items[-1]["id"],
        "has_more": False,
    }
    assert SCHEMAS.validate("ResponseItemList", listing) == []
    issues = SCHEMAS.validate("ResponseItemList", {**listing, "has_more": "no"})
    assert [(i.kind, i.path) for i in issues] == [("type", "has_more")]
    with pytest.raises(KeyError):
        SCHEMAS.validate("NoSuchSchema", {})


def test_instructions_as_input_items() -> None:
    # Response.instructions: a string, or input items (a union of 34 members, dispatched on `type`;
    # a message may omit `type` — EasyInputMessage).
    body = _load(CORPUS / "bodies" / "azure-text.1.json")
    items = [
        {"role": "developer", "content": "Be brief."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "item_reference", "id": "msg_1"},
    ]
    assert SCHEMAS.validate_response({**body, "instructions": items}) == []
    items[1]["content"][0]["text"] = 7
    issues = SCHEMAS.validate_response({**body, "instructions": items})
    assert [(i.kind, i.path) for i in issues] == [("type", "instructions[1].content[0].text")]
    issues = SCHEMAS.validate_response({**body, "instructions": [5]})
    assert [(i.kind, i.path, i.expected) for i in issues] == [("type", "instructions[0]", "object")]


def test_recursive_schema() -> None:
    # CompoundFilter refers to itself through $recursiveRef.
    leaf = {"type": "eq", "key": "k", "value": "v"}
    nested = {"type": "and", "filters": [leaf, {"type": "or", "filters": [leaf]}]}
    assert SCHEMAS.validate("CompoundFilter", nested) == []
    broken = {"type": "and", "filters": [{"type": "or", "filters": [{"type": "eq", "key": 1}]}]}
    issues = SCHEMAS.validate("CompoundFilter", broken)
    assert {(i.kind, i.path) for i in issues} == {
        ("type", "filters[0].filters[0].key"),
        ("required", "filters[0].filters[0].value"),
    }


# --- (f) the fast predicate and the interpreter agree ---------------------------------------------


def _shape(path: str) -> str:
    return re.sub(r"\[\d+\]", "[]", path)


def _mutations(value: dict[str, Any], done: set[str]) -> Iterator[dict[str, Any]]:
    """``value``, then with each key removed or replaced in turn (in place, restored after); a
    key whose path, indices aside, is in ``done`` is skipped: its mutations were seen already."""
    yield value
    for where, holder, key in list(_dict_paths(value)):
        if _shape(where) in done:
            continue
        done.add(_shape(where))
        old = holder.pop(key)
        yield value
        for new in (None, True, 1.5, "s", [], {}):
            holder[key] = new
            yield value
        holder[key] = old


def test_predicate_and_interpreter_agree_on_corpus_mutations() -> None:
    # The validator trusts a predicate's "valid" and asks the interpreter only after an "invalid";
    # a disagreement would hide an issue or report an empty list for an invalid value. Here the
    # interpreter runs without pruning (it does not consult the predicates at all), and the
    # pruning one must find exactly the same issues.
    compiled = SchemaValidator()._compile()
    plain = _Checker(compiled.lowerer)
    done: dict[str, set[str]] = {}
    checked = 0
    for path in STREAMS:
        for sample in _events(path):
            if sample["type"] not in compiled.events:
                continue
            name = next(
                m for m in UNION_MEMBERS if RAW[m]["properties"]["type"]["enum"] == [sample["type"]]
            )
            predicate = compiled.namespace[f"F_{name}"]
            node = compiled.lowerer.node(name)
            for mutated in _mutations(sample, done.setdefault(sample["type"], set())):
                found: list[SchemaIssue] = []
                plain.check(node, mutated, "", found)
                assert predicate(mutated) == (not found), (path.name, mutated, found)
                pruned: list[SchemaIssue] = []
                compiled.checker.check(node, mutated, "", pruned)
                assert pruned == found
                checked += 1
    assert checked > 10_000


# --- the extractor ---------------------------------------------------------------------------------


def test_subset_header_records_source_and_license() -> None:
    source = DOCUMENT["$source"]
    assert (source["repository"], source["commit"], source["license"]) == (
        "openai/openai-openapi",
        "f85dbe2",
        "MIT",
    )
    assert set(source["roots"]) == {
        "ResponseStreamEvent",
        "Response",
        "ErrorResponse",
        "ResponseItemList",
        "CompactResource",
        "ConversationResource",
        "ConversationItemList",
        "DeletedConversationResource",
    }


def test_extractor_renames_schema_names_that_are_not_identifiers() -> None:
    extractor = _extractor()
    assert extractor.python_name("MessagePhase-2") == "MessagePhase_2"
    ref = {"$ref": "#/components/schemas/MessagePhase-2"}
    assert extractor.rename_refs({"anyOf": [ref]}) == {
        "anyOf": [{"$ref": "#/components/schemas/MessagePhase_2"}]
    }
    assert all(name.isidentifier() for name in RAW)


def test_every_schema_compiles() -> None:
    validator = SchemaValidator()
    assert validator.schema_names() == frozenset(RAW)
    for name in RAW:
        validator.validate(name, {})  # no exception; the issues do not matter


_SCRIPT = REPO / "scripts" / "extract_openapi_schemas.py"


def _extractor() -> Any:
    pytest.importorskip("yaml")  # PyYAML is not a dependency of the package, only of the script
    spec = importlib.util.spec_from_file_location("extract_openapi_schemas", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_extractor_reproduces_the_committed_subset() -> None:
    extractor = _extractor()
    if not extractor.DEFAULT_SOURCE.is_file():
        pytest.skip(f"{extractor.DEFAULT_SOURCE} is not laid beside the repository")
    assert extractor.main(["--check"]) == 0


def test_extractor_strips_docs_only_at_schema_positions() -> None:
    extractor = _extractor()
    schema = {
        "type": "object",
        "description": "dropped",
        "properties": {"description": {"type": "string", "description": "dropped too"}},
        "enum": [{"description": "kept: data"}],
    }
    assert extractor.strip_docs(schema) == {
        "type": "object",
        "properties": {"description": {"type": "string"}},
        "enum": [{"description": "kept: data"}],
    }
