"""Examples of the stream checks (``stream.*``; the framing and event checks' are in
:mod:`.offline_framing`, the refinements of ``stream.part.order`` / ``stream.summary.order`` in
:mod:`.offline_refinements`): see :mod:`.`."""

from __future__ import annotations

from .build import (
    Event,
    at,
    call_stream,
    drop,
    find,
    insert,
    reasoning_stream,
    retext,
    shell_stream,
    text_stream,
)
from .registry import example
from .stream_samples import OR, R, S, late_delta, swap

# The helpers other example modules used from here before the split, kept importable.
__all__ = ["OR", "R", "S"]

# stream.sequence.*: with its rule, in conformance.sections.s2_1_sequence.


# stream.lifecycle.*, stream.response.terminal_status: with their rules, in
# conformance.sections.s2_2_lifecycle; stream.response.id_stable, created_at_stable and
# interim_state in conformance.sections.s2_3_one_response; stream.error.followed_by_failed
# (docs/spec.md §1.2) in conformance.sections.s1_2_error_event.

# --- stream.item.*, stream.output_index.* --------------------------------------------------------
# stream.item.added_before_use, added_once, done_once: with their rules, in
# conformance.sections.s2_4_items_opened.


# stream.output_index.contiguous, stream.item.no_interleave: with their rules, in
# conformance.sections.s2_5_output_index.
# stream.item.id_unique, done_matches_added, item_id_matches: with their rules, in
# conformance.sections.s2_7_identity.
# stream.item.id_prefix: with its rule, in conformance.sections.s2_14_id_prefix.

example(
    "stream.item.added_state",
    S(lambda: at(text_stream(), "response.output_item.added", "item.status", "completed")),
    S(text_stream),
)
# stream.item.closed_before_terminal: with its rule, in conformance.sections.s2_9_output_items.

# stream.item.incomplete_last: with its rules, in conformance.sections.s2_10_incomplete_last.
# stream.item.content_matches: with its rule, in conformance.sections.s2_8_values_agree.

# --- stream.part.*, stream.summary.*, stream.arguments.*, stream.delta.* -------------------------
example(
    "stream.part.added_before_use",
    S(lambda: drop(text_stream(), "response.content_part.added")),
    S(text_stream),
)
example(
    "stream.part.content_index",
    S(
        lambda: retext(text_stream(), '"content_index": 0', '"content_index": 1'),
        "the only part has `content_index` 1",
    ),
    S(text_stream),
    also={"stream.item.content_matches"},
)
example(
    "stream.part.order",
    S(lambda: late_delta(text_stream(), "response.output_text"),
      "an (empty) delta after the part's `output_text.done`"),
    S(text_stream),
)  # fmt: skip
example(
    "stream.part.closed",
    S(lambda: drop(text_stream(), "response.content_part.done")),
    S(text_stream),
)
# stream.part.type_fits_item: with its rules, in conformance.sections.s2_11_part_fits.


def _refusal_part() -> list[Event]:
    events = text_stream()
    refusal = {"type": "refusal", "refusal": "Hello"}
    events[3]["part"] = {"type": "refusal", "refusal": ""}
    events[7]["part"] = refusal
    events[8]["item"]["content"] = [refusal]
    events[9]["response"]["output"][0]["content"] = [refusal]
    return events


example(
    "stream.part.kind_matches",
    S(_refusal_part, "`output_text` events into a `refusal` part"),
    S(text_stream),
    also={"stream.part.order.done_before_part_done"},
)  # fmt: skip
example(
    "stream.summary.part_added",
    S(lambda: drop(drop(reasoning_stream(), "response.reasoning_summary_part.added"),
                   "response.reasoning_summary_part.done"), "summary text without its part events"),
    S(reasoning_stream),
)  # fmt: skip
example(
    "stream.summary.index",
    S(lambda: retext(reasoning_stream(), '"summary_index": 0', '"summary_index": 1')),
    S(reasoning_stream),
    also={"stream.item.content_matches"},
)
example(
    "stream.summary.order",
    S(lambda: late_delta(reasoning_stream(), "response.reasoning_summary_text"),
      "an (empty) summary delta after its `.done`"),
    S(reasoning_stream),
)  # fmt: skip
example(
    "stream.arguments.order",
    S(lambda: swap(call_stream(), find(call_stream(), "response.function_call_arguments.delta", 1)),
      "an argument delta after `function_call_arguments.done`"),
    S(call_stream),
    also={"stream.text.deltas_equal_done"},
)  # fmt: skip
example(
    "stream.arguments.added_first",
    S(lambda: drop(shell_stream(), "response.shell_call_command.added")),
    S(shell_stream),
)
example(
    "stream.delta.type_fits_item",
    S(lambda: insert(text_stream(), 5, {"type": "response.function_call_arguments.delta",
                                        "item_id": "msg_example", "output_index": 0, "delta": "{"}),
      "an argument delta naming a message"),
    S(text_stream),
)  # fmt: skip

# --- stream.text.*, stream.output.* --------------------------------------------------------------
# stream.text.deltas_equal_done, done_equals_part, annotations_match: with their rules, in
# conformance.sections.s2_8_values_agree.
# stream.output.equals_items: with its rule, in conformance.sections.s2_9_output_items.


# --- judge-truth: stream rules clients enforce (docs/spec.md §7.8–§7.10) -------------------------

# stream.item.call_identity_stable: with its rule, in conformance.sections.s2_7_identity;
# stream.logprobs.deltas_equal_done in conformance.sections.s2_8_values_agree.
example(
    "event.type.openresponses",
    S(
        lambda: insert(text_stream(), 2, {"type": "response.keepalive"}),
        "an event type Open Responses does not define, without a vendor prefix",
        profiles=OR,
    ),
    S(
        lambda: insert(text_stream(), 2, {"type": "acme:keepalive"}),
        "the same extension, prefixed with its implementor's slug",
        profiles=OR,
    ),
    also={"event.type.known"},
)
