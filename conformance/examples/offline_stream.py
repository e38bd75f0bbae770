"""Examples of the stream checks (``stream.*``; the framing and event checks' are in
:mod:`.offline_framing`, the refinements of ``stream.part.order`` / ``stream.summary.order`` in
:mod:`.offline_refinements`): see :mod:`.`."""

from __future__ import annotations

from .stream_samples import OR, R, S

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

# stream.item.added_state: with its rules, in conformance.sections.s2_6_inside_item_parts.
# stream.item.closed_before_terminal: with its rule, in conformance.sections.s2_9_output_items.

# stream.item.incomplete_last: with its rules, in conformance.sections.s2_10_incomplete_last.
# stream.item.content_matches: with its rule, in conformance.sections.s2_8_values_agree.

# --- stream.part.*, stream.summary.*, stream.arguments.*, stream.delta.* -------------------------
# stream.part.added_before_use, content_index, order, closed, kind_matches and
# stream.summary.*: with their rules, in conformance.sections.s2_6_inside_item_parts;
# stream.arguments.order, added_first and stream.delta.type_fits_item in
# conformance.sections.s2_6_inside_item_values.
# stream.part.type_fits_item: with its rules, in conformance.sections.s2_11_part_fits.

# --- stream.text.*, stream.output.* --------------------------------------------------------------
# stream.text.deltas_equal_done, done_equals_part, annotations_match: with their rules, in
# conformance.sections.s2_8_values_agree.
# stream.output.equals_items: with its rule, in conformance.sections.s2_9_output_items.


# --- judge-truth: stream rules clients enforce (docs/spec.md §7.8–§7.10) -------------------------

# stream.item.call_identity_stable: with its rule, in conformance.sections.s2_7_identity;
# stream.logprobs.deltas_equal_done in conformance.sections.s2_8_values_agree;
# event.type.openresponses in conformance.sections.s1_3_unknown_types.
