"""The invariants across one event stream: ``stream.sequence.*``, ``stream.lifecycle.*``,
``stream.item.*``, ``stream.part.*`` and ``stream.text.*`` consistency. docs/spec.md §2."""

from __future__ import annotations

# stream.sequence.* (docs/spec.md §2.1), stream.lifecycle.* and stream.response.terminal_status
# (§2.2), stream.response.{id,created_at}_stable and interim_state (§2.3),
# stream.item.added_before_use, added_once and done_once (§2.4),
# stream.output_index.contiguous and stream.item.no_interleave (§2.5),
# stream.item.added_state, stream.part.added_before_use, content_index, order, closed and
# kind_matches, stream.summary.part_added, index and order, stream.arguments.order and
# added_first and stream.delta.type_fits_item (§2.6),
# stream.item.item_id_matches, done_matches_added and id_unique (§2.7),
# stream.text.deltas_equal_done, done_equals_part, annotations_match and
# stream.item.content_matches (§2.8), stream.item.closed_before_terminal and
# stream.output.equals_items (§2.9),
# stream.item.incomplete_last (§2.10), stream.part.type_fits_item (§2.11),
# stream.item.id_prefix (§2.14) and stream.error.followed_by_failed (§1.2) are declared with their rules and examples in their
# section modules (conformance.sections).
from ..sections.s1_2_error_event import ERROR_FOLLOWED_BY_FAILED as ERROR_FOLLOWED_BY_FAILED
from ..sections.s2_1_sequence import SEQ_CONTIGUOUS as SEQ_CONTIGUOUS
from ..sections.s2_1_sequence import SEQ_PRESENT as SEQ_PRESENT
from ..sections.s2_1_sequence import SEQ_START as SEQ_START
from ..sections.s2_2_lifecycle import LIFECYCLE_AFTER_TERMINAL as LIFECYCLE_AFTER_TERMINAL
from ..sections.s2_2_lifecycle import LIFECYCLE_CREATED_FIRST as LIFECYCLE_CREATED_FIRST
from ..sections.s2_2_lifecycle import LIFECYCLE_IN_PROGRESS as LIFECYCLE_IN_PROGRESS
from ..sections.s2_2_lifecycle import LIFECYCLE_TERMINAL_PRESENT as LIFECYCLE_TERMINAL_PRESENT
from ..sections.s2_2_lifecycle import LIFECYCLE_UNIQUE as LIFECYCLE_UNIQUE
from ..sections.s2_2_lifecycle import RESPONSE_TERMINAL_STATUS as RESPONSE_TERMINAL_STATUS
from ..sections.s2_3_one_response import RESPONSE_CREATED_AT_STABLE as RESPONSE_CREATED_AT_STABLE
from ..sections.s2_3_one_response import RESPONSE_ID_STABLE as RESPONSE_ID_STABLE
from ..sections.s2_3_one_response import RESPONSE_INTERIM_STATE as RESPONSE_INTERIM_STATE
from ..sections.s2_4_items_opened import ITEM_ADDED_BEFORE_USE as ITEM_ADDED_BEFORE_USE
from ..sections.s2_4_items_opened import ITEM_ADDED_ONCE as ITEM_ADDED_ONCE
from ..sections.s2_4_items_opened import ITEM_DONE_ONCE as ITEM_DONE_ONCE
from ..sections.s2_5_output_index import ITEM_INTERLEAVE as ITEM_INTERLEAVE
from ..sections.s2_5_output_index import OUTPUT_INDEX_CONTIGUOUS as OUTPUT_INDEX_CONTIGUOUS
from ..sections.s2_6_inside_item_parts import ITEM_ADDED_STATE as ITEM_ADDED_STATE
from ..sections.s2_6_inside_item_parts import PART_ADDED_BEFORE_USE as PART_ADDED_BEFORE_USE
from ..sections.s2_6_inside_item_parts import PART_CLOSED as PART_CLOSED
from ..sections.s2_6_inside_item_parts import PART_INDEX_CONTIGUOUS as PART_INDEX_CONTIGUOUS
from ..sections.s2_6_inside_item_parts import PART_KIND_MATCHES as PART_KIND_MATCHES
from ..sections.s2_6_inside_item_parts import PART_ORDER as PART_ORDER
from ..sections.s2_6_inside_item_parts import SUMMARY_INDEX as SUMMARY_INDEX
from ..sections.s2_6_inside_item_parts import SUMMARY_ORDER as SUMMARY_ORDER
from ..sections.s2_6_inside_item_parts import SUMMARY_PART_ADDED as SUMMARY_PART_ADDED
from ..sections.s2_6_inside_item_values import ARGS_ADDED_FIRST as ARGS_ADDED_FIRST
from ..sections.s2_6_inside_item_values import ARGS_ORDER as ARGS_ORDER
from ..sections.s2_6_inside_item_values import DELTA_TYPE_FITS_ITEM as DELTA_TYPE_FITS_ITEM
from ..sections.s2_7_identity import ITEM_DONE_MATCHES_ADDED as ITEM_DONE_MATCHES_ADDED
from ..sections.s2_7_identity import ITEM_ID_MATCHES as ITEM_ID_MATCHES
from ..sections.s2_7_identity import ITEM_ID_UNIQUE as ITEM_ID_UNIQUE
from ..sections.s2_8_values_agree import ANNOTATIONS_MATCH as ANNOTATIONS_MATCH
from ..sections.s2_8_values_agree import DELTAS_EQUAL_DONE as DELTAS_EQUAL_DONE
from ..sections.s2_8_values_agree import DONE_EQUALS_PART as DONE_EQUALS_PART
from ..sections.s2_8_values_agree import ITEM_CONTENT_MATCHES as ITEM_CONTENT_MATCHES
from ..sections.s2_9_opaque import OPAQUE_CONSISTENT as OPAQUE_CONSISTENT
from ..sections.s2_9_output_items import ITEM_CLOSED_BEFORE_TERMINAL as ITEM_CLOSED_BEFORE_TERMINAL
from ..sections.s2_9_output_items import OUTPUT_EQUALS_ITEMS as OUTPUT_EQUALS_ITEMS
from ..sections.s2_10_incomplete_last import ITEM_INCOMPLETE_LAST as ITEM_INCOMPLETE_LAST
from ..sections.s2_11_part_fits import PART_TYPE_FITS_ITEM as PART_TYPE_FITS_ITEM
from ..sections.s2_14_id_prefix import ITEM_ID_PREFIX as ITEM_ID_PREFIX
from .registry import Level

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- stream.lifecycle.* (docs/spec.md §2.2, §2.3): in conformance/sections/s2_2_lifecycle.py
# (stream.response.terminal_status too) and s2_3_one_response.py (stream.response.interim_state).
# stream.error.followed_by_failed (docs/spec.md §1.2): conformance/sections/s1_2_error_event.py

# --- stream.item.* (docs/spec.md §2.4–§2.10) ----------------------------------------------------------
# stream.item.added_before_use, added_once, done_once (docs/spec.md §2.4):
# conformance/sections/s2_4_items_opened.py
# stream.output_index.contiguous, stream.item.no_interleave (docs/spec.md §2.5):
# conformance/sections/s2_5_output_index.py
# stream.item.id_unique, done_matches_added, item_id_matches (docs/spec.md §2.7):
# conformance/sections/s2_7_identity.py
# stream.item.id_prefix (docs/spec.md §2.14): conformance/sections/s2_14_id_prefix.py
# stream.item.added_state (docs/spec.md §2.6): conformance/sections/s2_6_inside_item_parts.py
# stream.item.closed_before_terminal (docs/spec.md §2.9): conformance/sections/s2_9_output_items.py
# stream.item.incomplete_last (docs/spec.md §2.10): conformance/sections/s2_10_incomplete_last.py
# stream.item.content_matches (docs/spec.md §2.8): conformance/sections/s2_8_values_agree.py

# --- stream.part.* (docs/spec.md §2.6, §2.11) ---------------------------------------------------------
# stream.part.added_before_use, content_index, order, closed, kind_matches and stream.summary.*
# (docs/spec.md §2.6): conformance/sections/s2_6_inside_item_parts.py
# stream.arguments.order, added_first, stream.delta.type_fits_item (docs/spec.md §2.6):
# conformance/sections/s2_6_inside_item_values.py
# stream.part.type_fits_item (docs/spec.md §2.11): conformance/sections/s2_11_part_fits.py

# --- stream.text.* consistency (docs/spec.md §2.8, §2.9) ----------------------------------------------
# stream.text.deltas_equal_done, done_equals_part, annotations_match (docs/spec.md §2.8):
# conformance/sections/s2_8_values_agree.py
# stream.output.equals_items (docs/spec.md §2.9): conformance/sections/s2_9_output_items.py
