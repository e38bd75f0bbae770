"""The live checks of tools beyond function calls, each declared with its case in its section
module and re-exported here: ``live.tools.allowed_tools``
(:mod:`conformance.sections.s3_3_tool_choice`), ``live.custom_tools.*``
(:mod:`conformance.sections.s1_7_custom_input`) and ``live.hosted.*``, one profile per hosted
tool, named ``hosted:<tool type>`` (:mod:`conformance.sections.s1_7_hosted_cases`).
:mod:`conformance.catalog.live` re-exports every name."""

from __future__ import annotations

# isort: split
from ...sections.s3_3_tool_choice import TOOLS_ALLOWED as TOOLS_ALLOWED

# isort: split
# --- live.custom_tools.*: declared with their cases in conformance/sections/s1_7_custom_input.py
from ...sections.s1_7_custom_input import CUSTOM_CALL as CUSTOM_CALL
from ...sections.s1_7_custom_input import CUSTOM_GRAMMAR as CUSTOM_GRAMMAR
from ...sections.s1_7_custom_input import CUSTOM_GRAMMAR_REFUSED as CUSTOM_GRAMMAR_REFUSED
from ...sections.s1_7_custom_input import CUSTOM_ROUND_TRIP as CUSTOM_ROUND_TRIP

# --- live.hosted.*: declared with their cases in conformance/sections/s1_7_hosted_cases.py
from ...sections.s1_7_hosted_cases import HOSTED_APPLY_PATCH as HOSTED_APPLY_PATCH
from ...sections.s1_7_hosted_cases import HOSTED_CODE_INTERPRETER as HOSTED_CODE_INTERPRETER
from ...sections.s1_7_hosted_cases import HOSTED_COMPUTER as HOSTED_COMPUTER
from ...sections.s1_7_hosted_cases import HOSTED_FILE_SEARCH as HOSTED_FILE_SEARCH
from ...sections.s1_7_hosted_cases import HOSTED_IMAGE_GENERATION as HOSTED_IMAGE_GENERATION
from ...sections.s1_7_hosted_cases import HOSTED_MAX_TOOL_CALLS as HOSTED_MAX_TOOL_CALLS
from ...sections.s1_7_hosted_cases import HOSTED_MCP as HOSTED_MCP
from ...sections.s1_7_hosted_cases import HOSTED_MCP_APPROVAL as HOSTED_MCP_APPROVAL
from ...sections.s1_7_hosted_cases import HOSTED_SHELL as HOSTED_SHELL
from ...sections.s1_7_hosted_cases import HOSTED_TOOL_SEARCH as HOSTED_TOOL_SEARCH
from ...sections.s1_7_hosted_cases import HOSTED_TOOL_SEARCH_CLIENT as HOSTED_TOOL_SEARCH_CLIENT
from ...sections.s1_7_hosted_cases import HOSTED_WEB_SEARCH as HOSTED_WEB_SEARCH
