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
    "live.previous_response.history",
    "kb19_wrong_history",
    "a server that replays the previous turn's instructions instead of its input and output (KB19)",
)
live(
    "live.background.cancel_idempotent",
    "kb20_cancel_not_idempotent",
    "a server that answers 400 to cancelling a finished background response (KB20)",
)

for _id, _server, _note in (
    ("live.previous_response.echo", "previous_id_not_echoed",
     "a server whose chained Responses carry `previous_response_id: null`"),
    ("live.errors.not_found_404", "unknown_id_400",
     "a server that answers 400 for an unknown response id"),
    ("live.errors.bad_input_4xx", "bad_input_500", "a server that answers bad input with 500"),
    ("live.errors.param_named", "param_not_named",
     "a server whose 400 errors name no field (`param: null`)"),
    ("live.background.cancel_foreground_4xx", "cancel_foreground_200",
     "a server that answers 200 to cancelling a foreground response"),
    ("live.previous_response.tool_round_trip", "call_output_with_previous_ignored",
     "a server that answers a `function_call_output` sent with `previous_response_id` with no "
     "text"),
    ("live.previous_response.unknown", "unknown_previous_500",
     "a server that answers 500 to an unknown `previous_response_id`"),
    ("live.input_tokens.count", "input_tokens_wrong_object",
     "a server whose input_tokens endpoint answers `object: \"count\"`"),
    ("live.input_tokens.matches_usage", "input_tokens_off_by_one",
     "a server whose input_tokens endpoint counts one token more than its responses report"),
    ("live.background.lifecycle", "background_returned_completed",
     "a server that returns a `background: true` response already `completed`"),
    ("live.background.resume", "resume_skips_an_event",
     "a server whose resumed stream leaves out the first event it should replay"),
):  # fmt: skip
    live(_id, _server, _note)

# the last HTTP live checks
for _id, _server, _note in (
    ("live.background.cancel", "cancel_ends_failed",
     "a server whose cancel aborts a running background response as `failed`, not `cancelled`"),
    ("live.previous_response.recall", "previous_response_ignored",
     "a server that silently ignores `previous_response_id` (echoing it all the same): a chained "
     "turn cannot repeat a code word told two turns back"),
):  # fmt: skip
    live(_id, _server, _note)

# tools beyond function calls
for _id, _server, _note in (
    ("live.openresponses.image_input", "image_input_refused",
     "a text-only server that answers 400 to an `input_image` data URL"),
    ("live.custom_tools.call", "custom_choice_ignored",
     "a server that serves `tool_choice: {type: custom}` as `none`"),
    ("live.custom_tools.grammar", "custom_input_off_grammar",
     "a server whose custom tool input ends in a `!` the grammar rejects"),
    ("live.custom_tools.output_round_trip", "custom_output_rejected",
     "a server that answers a custom tool's output with another call instead of a message"),
    ("live.hosted.mcp_approval", "mcp_approval_id_dropped",
     "a server whose approved MCP calls carry `approval_request_id: null`"),
    ("live.hosted.max_tool_calls", "max_tool_calls_ignored",
     "a server that ignores `max_tool_calls`"),
    ("live.hosted.web_search", "web_search_call_fails", "a server whose web searches fail"),
    ("live.hosted.file_search", "file_search_call_fails", "a server whose file searches fail"),
    ("live.hosted.code_interpreter", "code_interpreter_call_fails",
     "a server whose code interpreter calls fail"),
    ("live.hosted.image_generation", "image_generation_call_fails",
     "a server whose image generation calls fail"),
    ("live.hosted.mcp", "mcp_call_fails", "a server whose MCP calls fail"),
    ("live.hosted.tool_search", "tool_search_skipped",
     "a server that drops `tool_search` and `defer_loading`, calling deferred tools unsearched"),
    ("live.hosted.tool_search_client", "client_tool_search_run_by_server",
     "a server that runs a client-executed `tool_search` itself"),
    ("live.hosted.shell", "shell_output_ignored",
     "a server that answers a `shell_call_output` by making the call anew"),
    ("live.hosted.apply_patch", "apply_patch_output_ignored",
     "a server that answers an `apply_patch_call_output` by making the call anew"),
    ("live.hosted.computer_use_preview", "computer_output_ignored",
     "a server that answers a `computer_call_output` by making the call anew"),
):  # fmt: skip
    live(_id, _server, _note)
