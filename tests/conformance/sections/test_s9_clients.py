"""§9's rule, without a server: where a refusal is located, what a removal tries, what Codex
counts, what the Vercel provider's schemas require (conformance/sections/s9_clients.py)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.captured_flows import CLIENT_PROFILES, flows
from conformance.sections import s9_clients as S
from conformance.sections import s9_vercel_ai as V

BODY: dict[str, Any] = {
    "model": "m",
    "input": [
        {"role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "id": "msg_1", "phase": "final_answer",
         "content": [{"type": "output_text", "text": "ok"}]},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}",
         "status": "completed"},
    ],
    "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": True}],
    "prompt_cache_retention": "24h",
    "text": {"verbosity": "low", "format": {"type": "text"}},
    "store": False,
    "stream": True,
}  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "located", "part"),
    [
        ({"detail": "Unsupported parameter: prompt_cache_retention"}, "prompt_cache_retention",
         "parameters"),
        ({"detail": "Unsupported parameter: text.verbosity"}, "text.verbosity", "parameters"),
        ({"error": {"message": "Unknown parameter: 'input[1].phase'.", "param": "input[1].phase",
                    "type": "invalid_request_error", "code": "unknown_parameter"}},
         "input[1].phase", "input_items"),
        # the message alone names it, quoted
        ({"error": {"message": "Unknown parameter: 'input[2].status'.", "param": None}},
         "input[2].status", "input_items"),
        ({"error": {"message": "x", "param": "tools[0].strict"}}, "tools[0].strict", "tools"),
        # a field's bare name after "parameter"
        ({"error": {"message": "Unrecognized request argument supplied: store"}}, "store",
         "parameters"),
        # prose that merely contains a field's name (`text`, `input`) names nothing
        ({"error": {"message": "Invalid input text: the request could not be read"}}, None,
         "requests"),
        ({"detail": "Streaming is not supported"}, None, "requests"),
        ("not json", None, "requests"),
    ],
)  # fmt: skip
def test_a_refusal_is_located_at_what_it_names(answer: Any, located: str | None, part: str) -> None:
    text = answer if isinstance(answer, str) else ""
    assert S.locate(BODY, answer, text) == located
    assert S.check_for("codex", located) is S.ACCEPTANCE["codex"][part]


def test_removals_drop_one_part_at_a_time_and_never_what_makes_the_request() -> None:
    parts = dict(S.removals(BODY))
    assert list(parts) == [
        "tools", "prompt_cache_retention", "text.verbosity", "text.format", "text", "store",
        "input[1].id", "input[1].phase", "input[2].status",
    ]  # fmt: skip
    assert "prompt_cache_retention" not in parts["prompt_cache_retention"]
    assert parts["text.verbosity"]["text"] == {"format": {"type": "text"}}
    assert "tools" not in parts["tools"] and "tool_choice" not in parts["tools"]
    assert all("phase" not in i for i in parts["input[1].phase"]["input"])
    assert all(v["model"] == "m" and v["stream"] is True for v in parts.values())


def test_codex_counts_compaction_items_on_the_stream() -> None:
    done = [{"type": "response.output_item.done", "item": {"type": t}}
            for t in ("reasoning", "compaction")]  # fmt: skip
    assert S.compaction_items(done, None) == 1
    assert S.compaction_items(done + done[1:], None) == 2
    assert S.compaction_items(done[:1], {"output": [{"type": "compaction"}]}) == 0  # the stream
    assert S.compaction_items([], {"output": [{"type": "message"}]}) == 0
    assert S.compaction_items([], {"output": [{"type": "compaction"}]}) == 1


_MESSAGE = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "hi", "annotations": []}]}  # fmt: skip


def test_the_vercel_response_schema() -> None:
    ok = {"output": [_MESSAGE], "usage": {"input_tokens": 1, "output_tokens": 2}}
    assert V.vercel_response_problems(ok) == []
    bare = {"output": [{**_MESSAGE, "content": [{"type": "output_text", "text": "hi"}]}]}
    assert V.vercel_response_problems(bare) == [
        "output[0].content[0].annotations is not a array (None)"
    ]
    assert V.vercel_response_problems({"output": [{"type": "compaction", "id": "c"}]})
    assert V.vercel_response_problems({"output": [], "usage": {"input_tokens": "1"}})


def test_the_vercel_chunk_schema() -> None:
    call = {"type": "function_call", "id": "fc_1", "call_id": "c", "name": "f", "arguments": "{}"}
    done = {"type": "response.output_item.done", "item": {**call, "status": "completed"}}
    assert V.vercel_chunk_problem(done) is None
    # @ai-sdk/openai 4.0.126 accepts a done call in_progress (the real client runs it: the
    # agreement table of issue #34); a done call without a status it drops
    assert V.vercel_chunk_problem({**done, "item": {**call, "status": "in_progress"}}) is None
    assert V.vercel_chunk_problem({**done, "item": call})
    assert V.vercel_chunk_problem({**done, "item": {**call, "status": "done"}})
    completed = {"type": "response.completed",
                 "response": {"usage": {"input_tokens": 1, "output_tokens": 1}}}  # fmt: skip
    assert V.vercel_chunk_problem(completed) is None
    assert V.vercel_chunk_problem({**completed, "response": {"usage": None}})
    created = {"type": "response.created", "response": {"id": "r", "created_at": 1, "model": "m"}}
    assert V.vercel_chunk_problem(created) is None
    assert V.vercel_chunk_problem({**created, "response": {"id": "r", "model": "m"}})
    assert V.vercel_chunk_problem({"type": "response.custom_thing"}) is None  # unknown: fallback


def test_every_client_has_its_checks_and_flows() -> None:
    assert set(S.CLIENT_CHECKS) == set(CLIENT_PROFILES.values()) == {f.client for f in flows()}
    for client, checks in S.CLIENT_CHECKS.items():
        assert all(c.profile == f"client:{client}" for c in checks)
    assert len(flows()) == 29
