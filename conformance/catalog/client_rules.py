"""The rules clients enforce: item statuses and identity, logprobs, the Open
Responses event types. Each cites the client code that breaks without it; docs/spec.md §7 has the
evidence."""

from __future__ import annotations

# event.type.openresponses (docs/spec.md §1.3), stream.item.call_identity_stable (§2.7, §7.9),
# stream.logprobs.deltas_equal_done (§2.8, §7.8), response.item.status_completed (§7.7) and
# response.logprobs.delivered, .nonpositive and .top_count (§7.8) are declared with their rules
# and examples in their section modules (conformance.sections).
from ..sections.s1_3_unknown_types import EVENT_TYPE_OPENRESPONSES as EVENT_TYPE_OPENRESPONSES
from ..sections.s2_7_identity import ITEM_CALL_IDENTITY as ITEM_CALL_IDENTITY
from ..sections.s2_8_values_agree import LOGPROBS_DELTAS_EQUAL_DONE as LOGPROBS_DELTAS_EQUAL_DONE
from ..sections.s7_7_item_status import ITEM_STATUS_COMPLETED as ITEM_STATUS_COMPLETED
from ..sections.s7_8_logprobs import LOGPROBS_DELIVERED as LOGPROBS_DELIVERED
from ..sections.s7_8_logprobs import LOGPROBS_NONPOSITIVE as LOGPROBS_NONPOSITIVE
from ..sections.s7_8_logprobs import LOGPROBS_TOP_COUNT as LOGPROBS_TOP_COUNT
from .registry import Level

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO
