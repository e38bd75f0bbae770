"""Per-tool stream rules: hosted tool progress, image partials (§1.7), citation offsets (§1.5)."""

from __future__ import annotations

# stream.annotation.offsets (docs/spec.md §1.5), the hosted tools' stream.hosted.*,
# stream.image.partial_image_index and response.custom_tool_call.grammar (§1.7) are declared
# with their rules and examples in their section modules (conformance.sections).
from ..sections.s1_5_annotations import ANNOTATION_OFFSETS as ANNOTATION_OFFSETS
from ..sections.s1_7_custom_input import CUSTOM_INPUT_GRAMMAR as CUSTOM_INPUT_GRAMMAR
from ..sections.s1_7_hosted_tools import HOSTED_FAILED_STATUS as HOSTED_FAILED_STATUS
from ..sections.s1_7_hosted_tools import HOSTED_PROGRESS_ORDER as HOSTED_PROGRESS_ORDER
from ..sections.s1_7_hosted_tools import IMAGE_PARTIAL_INDEX as IMAGE_PARTIAL_INDEX
