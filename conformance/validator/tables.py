"""The validator's knowledge of the event families (SPEC §2): which events write to which parts,
values and item types. Data only; the rules that use it live in the sibling modules."""

from __future__ import annotations

from ..sections.s2_6_inside_item_values import ADDED_FIRST as ADDED_FIRST
from ..sections.s2_6_inside_item_values import fits_for as fits_for

LIFECYCLE_INTERIM = ("response.created", "response.queued", "response.in_progress")
# vLLM's names for what OpenAI sends as content_part.* with a reasoning_text part (SPEC §1, KB24).
NONSTANDARD = frozenset({"response.reasoning_part.added", "response.reasoning_part.done"})

# Part-framed text kinds: event family -> (delta field, done field, the part type it writes to).
PART_TEXT = {
    "response.output_text": ("text", "output_text"),
    "response.refusal": ("refusal", "refusal"),
    "response.reasoning_text": ("text", "reasoning_text"),
}
# The text field of each part type, in content_part.done and in the finished item.
PART_TEXT_FIELD = {"output_text": "text", "refusal": "refusal", "reasoning_text": "text"}
# Part types allowed in each item type (SPEC §2.11; KB04): conformance.sections.s2_11_part_fits.
# Single-valued streamed fields: family -> (done field, item type, path of the value in the
# finished item; `None` in the path stands for the event's `command_index`).
VALUE_STREAMS: dict[str, tuple[str, str | None, tuple[str | None, ...] | None]] = {
    "response.function_call_arguments": ("arguments", "function_call", ("arguments",)),
    "response.custom_tool_call_input": ("input", "custom_tool_call", ("input",)),
    "response.mcp_call_arguments": ("arguments", "mcp_call", ("arguments",)),
    "response.code_interpreter_call_code": ("code", "code_interpreter_call", ("code",)),
    "response.apply_patch_call_operation_diff": ("diff", "apply_patch_call", ("operation", "diff")),
    # keyed additionally by command_index
    "response.shell_call_command": ("command", "shell_call", ("action", "commands", None)),
    # deltas are `{stdout?, stderr?}` objects, the `.done` carries `output: [{stdout, stderr, …}]`
    "response.shell_call_output_content": ("output", "shell_call_output", None),
}
# Families whose deltas and `.done` carry separate output channels.
CHANNELS = {"response.shell_call_output_content": ("stdout", "stderr")}
# Families whose value is opened by an `.added` event ([SDK]), the event-name prefixes and the
# item types such events may name (SPEC §2.6): conformance.sections.s2_6_inside_item_values.
# Observed id prefixes per item type (SPEC §2.14): conformance.sections.s2_14_id_prefix.


# [OR] `schema/events.tsp`: the streaming events Open Responses defines; any other event type
# must carry its implementor's prefix (`acme:trace_event`, [OR] "Extending streaming events").
OPENRESPONSES_EVENTS = frozenset(
    {
        "response.created",
        "response.queued",
        "response.in_progress",
        "response.completed",
        "response.failed",
        "response.incomplete",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.reasoning.delta",
        "response.reasoning.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "error",
    }
)
