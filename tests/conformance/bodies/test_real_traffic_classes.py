"""The real-traffic and peer classes of issue #32 item 6, each settled at the rule level
(docs/spec.md): what the evidence lets through passes, its nearest defect still fails."""

from __future__ import annotations

from typing import Any

from conformance.bodies.kinds import judge_body
from conformance.examples.build import response, usage

OR = ("core", "openresponses")


def _ids(body: dict[str, Any], profiles: tuple[str, ...] = OR) -> set[str]:
    return {v.check_id for v in judge_body(body, "response", profiles=profiles)}


def _done() -> dict[str, Any]:
    return response("completed", usage=usage(5, 2))


def test_openresponses_does_not_require_user() -> None:
    # §3.4: the compliance tool's own ResponseResource schema has no `user`
    body = _done()
    del body["user"]
    assert "response.openresponses.required_fields" not in _ids(body)
    del body["prompt_cache_key"]  # a field every version of [OR] requires: still required
    assert "response.openresponses.required_fields" in _ids(body)


def test_openresponses_still_types_user() -> None:
    body = {**_done(), "user": 5}
    assert "response.schema.type" in _ids(body)


def _cut(text: str, usage_: dict[str, Any]) -> dict[str, Any]:
    message = {
        "id": "msg_1", "type": "message", "role": "assistant", "status": "incomplete",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }  # fmt: skip
    return response(
        "incomplete",
        [message],
        usage=usage_,
        incomplete_details={"reason": "max_output_tokens"},
        max_output_tokens=16,
    )


def test_a_max_output_tokens_cut_with_usage_all_zero() -> None:
    # §7.2: held-back OpenAI traffic: the text streamed, the usage all zero, input too
    assert "usage.output_nonzero" not in _ids(_cut("The answer is", usage(0, 0)), ("core",))
    # the nearest defect: input counted, output 0 beside the text (KB11)
    assert "usage.output_nonzero" in _ids(_cut("The answer is", usage(12, 0)), ("core",))
    # and a completed response with text and usage all zero (KB11)
    done = response("completed", _cut("Hi", usage(0, 0))["output"], usage=usage(0, 0))
    done["output"][0]["status"] = "completed"
    assert "usage.output_nonzero" in _ids(done, ("core",))


def _stream_ids(events: list[dict[str, Any]]) -> set[str]:
    from conformance.validator import StreamValidator

    validator = StreamValidator()
    for event in events:
        validator.feed(event)
    validator.close()
    return {v.check_id for v in validator.violations}


def test_function_call_arguments_only_in_done() -> None:
    # §2.8: OpenAI's Codex backend (pi #2745) sends the arguments whole in `.done`, no delta
    from conformance.examples.build import call_stream, numbered

    whole = [e for e in call_stream() if e["type"] != "response.function_call_arguments.delta"]
    assert _stream_ids(numbered(whole)) == set()
    # deltas that were sent still join to the `.done` value
    partial = call_stream()
    partial.remove(next(e for e in partial if e["type"].endswith("arguments.delta")))
    assert "stream.text.deltas_equal_done" in _stream_ids(numbered(partial))


def test_echoed_tools_may_carry_null_for_optional_fields() -> None:
    # §1a: a connector's server_url and filters the client never sent, echoed as null
    body = _done()
    body["tools"] = [
        {
            "type": "mcp", "server_label": "gmail", "connector_id": "connector_gmail",
            "server_url": None, "authorization": None, "require_approval": "never",
            "allowed_tools": {"tool_names": None, "read_only": None},
        }
    ]  # fmt: skip
    assert _ids(body, ("core",)) == set()
    body["tools"][0]["server_url"] = 5  # a wrong type still fails
    assert "response.schema.type" in _ids(body, ("core",))
    del body["tools"][0]["server_label"]  # and a required field is still required
    assert "response.schema.required" in _ids(body, ("core",))
