"""The live checks of tools beyond function calls: ``live.tools.allowed_tools``, and
``live.custom_tools.*`` and ``live.hosted.*`` (one profile per hosted tool, named
``hosted:<tool type>``), which are declared with their cases in their section modules
(:mod:`conformance.sections.s1_7_custom_input`, :mod:`conformance.sections.s1_7_hosted_cases`)
and re-exported here. :mod:`conformance.catalog.live` re-exports every name."""

from __future__ import annotations

from ..registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- live.tools.allowed_tools -------
TOOLS_ALLOWED = register(
    "live.tools.allowed_tools",
    MUST,
    "§3.3 (tool_choice), §1.7 [OAPI] ToolChoiceAllowed",
    "`tool_choice: {type: allowed_tools, mode: required, tools}` gets calls, each to a listed tool "
    "(other declared tools are not called)",
    profile="tools",
)

# --- live.custom_tools.*: declared with their cases in conformance/sections/s1_7_custom_input.py
from ...sections.s1_7_custom_input import CUSTOM_CALL as CUSTOM_CALL  # noqa: E402
from ...sections.s1_7_custom_input import CUSTOM_GRAMMAR as CUSTOM_GRAMMAR  # noqa: E402
from ...sections.s1_7_custom_input import CUSTOM_GRAMMAR_REFUSED as CUSTOM_GRAMMAR_REFUSED  # noqa: E402
from ...sections.s1_7_custom_input import CUSTOM_ROUND_TRIP as CUSTOM_ROUND_TRIP  # noqa: E402

# --- live.hosted.*: declared with their cases in conformance/sections/s1_7_hosted_cases.py
from ...sections.s1_7_hosted_cases import HOSTED_APPLY_PATCH as HOSTED_APPLY_PATCH  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_CODE_INTERPRETER as HOSTED_CODE_INTERPRETER  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_COMPUTER as HOSTED_COMPUTER  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_FILE_SEARCH as HOSTED_FILE_SEARCH  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_IMAGE_GENERATION as HOSTED_IMAGE_GENERATION  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_MAX_TOOL_CALLS as HOSTED_MAX_TOOL_CALLS  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_MCP as HOSTED_MCP  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_MCP_APPROVAL as HOSTED_MCP_APPROVAL  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_SHELL as HOSTED_SHELL  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_TOOL_SEARCH as HOSTED_TOOL_SEARCH  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_TOOL_SEARCH_CLIENT as HOSTED_TOOL_SEARCH_CLIENT  # noqa: E402
from ...sections.s1_7_hosted_cases import HOSTED_WEB_SEARCH as HOSTED_WEB_SEARCH  # noqa: E402
