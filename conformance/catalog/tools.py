"""Per-tool stream rules (conformance/validator/tool_rules.py): hosted tool progress, image
partials, citation offsets."""

from __future__ import annotations

# stream.annotation.offsets (docs/spec.md §1.5) and response.custom_tool_call.grammar (§1.7) are
# declared with their rules and examples in their section modules (conformance.sections).
from ..sections.s1_5_annotations import ANNOTATION_OFFSETS as ANNOTATION_OFFSETS
from ..sections.s1_7_custom_input import CUSTOM_INPUT_GRAMMAR as CUSTOM_INPUT_GRAMMAR
from .registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- per-tool stream rules (conformance/validator/tool_rules.py) --------------------------------
HOSTED_PROGRESS_ORDER = register(
    "stream.hosted.progress_order",
    MUST,
    "§1.7, §2.8 [OAPI] ResponseWebSearchCall*/FileSearchCall*/CodeInterpreterCall*/ImageGenCall*/"
    "MCPCall*/MCPListTools* events; [REC] openai-*-tool streams",
    "a hosted tool call's progress events run forward (in_progress → searching / interpreting / "
    "generating / partial_image → completed or failed), none after the one that ends it; stages "
    "may be missing or repeated",
)
HOSTED_FAILED_STATUS = register(
    "stream.hosted.failed_status",
    MUST,
    "§1.7 [OAPI] ResponseMCPCallFailedEvent, ResponseMCPListToolsFailedEvent, MCPToolCall.status, "
    "MCPListTools.error",
    "a `*.failed` progress event is followed by the item's `status: failed`; a `*.completed` one "
    "by a status other than `failed` (an `mcp_list_tools` item, which has no status: by an "
    "`error`, and by none)",
)
IMAGE_PARTIAL_INDEX = register(
    "stream.image.partial_image_index",
    MUST,
    "§1.7 [OAPI] ResponseImageGenCallPartialImageEvent.partial_image_index; [REC] "
    "openai-image-generation-tool.1",
    "an image generation call's `partial_image` events carry `partial_image_index` 0, 1, 2, … in "
    "order",
)
