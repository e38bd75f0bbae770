"""Examples of the live checks (``live.*``): a misbehaving server that breaks the rule, and the
near miss — the embedded mock, which obeys it. ``tests/suite/broken_servers.py`` builds each
server under the name given here and ``tests/suite/test_live_examples.py`` runs the suite's cases
for the check against it (and against the mock)."""

from __future__ import annotations

from .registry import Sample, example

__all__ = ["LIVE_SERVERS", "live"]

# check ID -> the name of its broken server in tests/suite/broken_servers.py
LIVE_SERVERS: dict[str, str] = {}

_MOCK = Sample("live", lambda: "mock", "the embedded mock server, which obeys the rule")


def live(check_id: str, server: str, note: str) -> None:
    LIVE_SERVERS[check_id] = server
    example(check_id, Sample("live", lambda: server, f"{note} (test server `{server}`)"), _MOCK)


live(
    "live.max_output_tokens.incomplete",
    "kb10_completed_after_cutoff",
    "a server that reports `status: completed` after a `max_output_tokens` cut-off (KB10)",
)
live(
    "live.usage.reasoning_tokens_hardcoded",
    "kb25_reasoning_tokens_zero",
    "a server whose reasoning responses all report `reasoning_tokens: 0` (KB25)",
)

for _id, _server, _note in (
    ("live.response.echo", "echo_drops_metadata",
     "a server whose Responses echo `metadata: {}` whatever the request set"),
    ("live.tools.none", "tool_choice_none_ignored",
     "a server that calls a tool under `tool_choice: none`"),
    ("live.tools.required", "tool_choice_required_ignored",
     "a server that answers `tool_choice: required` with a message"),
    ("live.tools.arguments_valid", "arguments_not_json",
     "a server whose function call arguments are not JSON"),
    ("live.tools.parallel", "parallel_calls_share_call_id",
     "a server whose parallel calls share one `call_id`"),
    ("live.usage.stream_equals_nonstream", "usage_differs_when_streamed",
     "a server that counts one input token more when the request is streamed"),
    ("live.stream.equals_nonstream", "nonstream_has_more_fields",
     "a server whose non-stream Responses carry a field the streamed ones lack"),
    ("live.structured.json_schema", "structured_not_json",
     "a server that answers `text.format: json_schema` with text that is not JSON"),
    ("live.reasoning.items", "reasoning_items_dropped",
     "a server that answers reasoning requests without reasoning items"),
    ("live.stream.content_type", "sse_as_text_plain",
     "a server that sends its streams as `Content-Type: text/plain`"),
    ("live.tools.output_round_trip", "call_output_round_trip_ignored",
     "a server that answers a request carrying a `function_call` and its output with no text"),
    ("live.create.input_forms", "developer_role_refused",
     "a server that refuses (400) a message with the `developer` role"),
    ("live.http.status_ok", "create_answers_201", "a server that answers create requests 201"),
    ("live.create.answer", "answer_is_a_refusal",
     "a server that answers a plain request with a refusal, no `output_text`"),
    ("live.transport.deadline", "slow_creates",
     "a server that answers create requests after 3 s (the suite's timeout: 1 s)"),
    ("live.tools.named", "named_choice_ignored",
     "a server that answers a named `tool_choice` with a call to another tool"),
    ("live.tools.auto", "calls_an_undeclared_tool",
     "a server that answers `tool_choice: auto` with a call to a tool the request did not declare"),
):  # fmt: skip
    live(_id, _server, _note)

# the last HTTP live checks
for _id, _server, _note in (
    ("live.case.completed", "cancel_answers_an_ack",
     "a server whose cancel answers an acknowledgement (`{id, cancelled: true}`) instead of the "
     "Response, so the case cannot read the status it goes on with"),
):  # fmt: skip
    live(_id, _server, _note)

# tools beyond function calls
for _id, _server, _note in (
    ("live.tools.allowed_tools", "allowed_tools_ignored",
     "a server that serves `allowed_tools` as `required` over every declared tool"),
):  # fmt: skip
    live(_id, _server, _note)
