"""Examples of the stream checks (``stream.*``; the framing and event checks' are in their
section modules, :mod:`conformance.sections`, the refinements of ``stream.part.order`` /
``stream.summary.order`` in :mod:`.offline_refinements`): see :mod:`.`."""

from __future__ import annotations

from .build import (
    Event,
    at,
    call_stream,
    drop,
    retext,
    text_stream,
)
from .registry import example
from .stream_samples import OR, R, S

# The helpers other example modules used from here before the split, kept importable.
__all__ = ["ANNOTATION", "OR", "TOKEN", "R", "S"]

ANNOTATION = {
    "type": "url_citation", "url": "https://example.com", "title": "Example",
    "start_index": 0, "end_index": 5,
}  # fmt: skip

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
example(
    "stream.item.id_prefix",
    S(lambda: retext(text_stream(), "msg_example", "item_example")),
    S(text_stream),
)

# stream.item.added_state: with its rules, in conformance.sections.s2_6_inside_item_parts.
example(
    "stream.item.closed_before_terminal",
    S(lambda: drop(text_stream(), "response.output_item.done"), "no `output_item.done`"),
    S(text_stream),
    also={"stream.output.equals_items"},
)

# stream.item.incomplete_last: with its rules, in conformance.sections.s2_10_incomplete_last.
example(
    "stream.item.content_matches",
    S(lambda: retext(text_stream(), '"text": "Hello"}], "role"', '"text": "Hello!"}], "role"'),
      "the finished item (and the output) hold another text than was streamed"),
    S(text_stream),
)  # fmt: skip

# --- stream.part.*, stream.summary.*, stream.arguments.*, stream.delta.* -------------------------
# stream.part.added_before_use, content_index, order, closed, kind_matches and
# stream.summary.*: with their rules, in conformance.sections.s2_6_inside_item_parts;
# stream.arguments.order, added_first and stream.delta.type_fits_item in
# conformance.sections.s2_6_inside_item_values.
# stream.part.type_fits_item: with its rules, in conformance.sections.s2_11_part_fits.

# --- stream.text.*, stream.output.* --------------------------------------------------------------
example(
    "stream.text.deltas_equal_done",
    S(
        lambda: at(text_stream(), "response.output_text.delta", "delta", "Hal"),
        "the deltas make `Hallo`, the `.done` says `Hello`",
    ),
    S(text_stream),
)
example(
    "stream.text.done_equals_part",
    S(
        lambda: retext(text_stream(), '"text": "Hello"}', '"text": "Hello!"}'),
        "the part, the item and the output say `Hello!`, `output_text.done` says `Hello`",
    ),
    S(text_stream),
)
example(
    "stream.text.annotations_match",
    S(
        lambda: drop(
            text_stream(annotations=[ANNOTATION]), "response.output_text.annotation.added"
        ),
        "the part's annotation was never streamed",
    ),
    S(lambda: text_stream(annotations=[ANNOTATION])),
)
example(
    "stream.output.equals_items",
    S(
        lambda: at(text_stream(), "response.completed", "response.output", []),
        "`output: []` although an item was streamed",
    ),
    S(text_stream),
)


# --- judge-truth: stream rules clients enforce (docs/spec.md §7.8–§7.10) -------------------------

TOKEN = {"token": "Hel", "logprob": -0.25, "bytes": [72, 101, 108], "top_logprobs": []}


def _with_logprobs(done_logprob: float) -> list[Event]:
    """A text stream whose one delta and its `.done` carry logprobs (the `.done`'s as given)."""
    events = text_stream(("Hel",))
    at(events, "response.output_text.delta", "logprobs", [dict(TOKEN)])
    return at(events, "response.output_text.done", "logprobs", [{**TOKEN, "logprob": done_logprob}])


def _call_renamed(key: str, value: str) -> list[Event]:
    events = call_stream()
    at(events, "response.output_item.done", f"item.{key}", value)
    return at(events, "response.completed", f"response.output.0.{key}", value)


example(
    "stream.item.call_identity_stable",
    S(lambda: _call_renamed("call_id", "call_other"), "`output_item.done` renames the call"),
    S(call_stream),
)
example(
    "stream.logprobs.deltas_equal_done",
    S(lambda: _with_logprobs(-0.5), "the delta's token -0.25, the `.done`'s -0.5"),
    S(lambda: _with_logprobs(-0.25)),
)
