"""The live checks of tools beyond function calls: ``live.tools.allowed_tools`` (declared with
its case in conformance/sections/s3_3_tool_choice.py), ``live.custom_tools.*`` and ``live.hosted.*``
(one profile per hosted tool, named ``hosted:<tool type>``). Declared after the other live checks;
:mod:`conformance.catalog.live` re-exports every name."""

from __future__ import annotations

# live.custom_tools.grammar_refused (docs/spec.md §1.7) is declared with its example in its
# section module (conformance.sections); its case is the suite's (test_custom_tools.py).
from ...sections.s1_7_custom_input import CUSTOM_GRAMMAR_REFUSED as CUSTOM_GRAMMAR_REFUSED
from ..registry import Level, register

MUST, SHOULD, INFO = Level.MUST, Level.SHOULD, Level.INFO

# --- live.tools.allowed_tools: declared with its case in conformance/sections/s3_3_tool_choice.py
from ...sections.s3_3_tool_choice import TOOLS_ALLOWED as TOOLS_ALLOWED  # noqa: E402

# --- live.custom_tools.* -------
CUSTOM_CALL = register(
    "live.custom_tools.call",
    MUST,
    "§1.7 [OAPI] ToolChoiceCustom, CustomToolCall",
    "`tool_choice: {type: custom, name}` gets `custom_tool_call` items to that tool only, each with "
    "a string `input` and a `call_id`",
    profile="custom-tools",
)
CUSTOM_GRAMMAR = register(
    "live.custom_tools.grammar",
    MUST,
    "§1.7 [OAPI] CustomGrammarFormatParam (syntax lark / regex)",
    "a custom tool with a `grammar` format gets input its grammar accepts, as LLGuidance reads "
    "it (Lark or regex: the dialect OpenAI's grammars run on)",
    profile="custom-tools",
)
CUSTOM_ROUND_TRIP = register(
    "live.custom_tools.output_round_trip",
    MUST,
    "§1.7 [OAPI] CustomToolCall, CustomToolCallOutput",
    "a request carrying a `custom_tool_call` and its `custom_tool_call_output` is answered with a "
    "message",
    profile="custom-tools",
)

# --- live.hosted.*: one profile per hosted tool (`hosted:<tool type>`) --------
HOSTED_WEB_SEARCH = register(
    "live.hosted.web_search",
    MUST,
    "§1.7 [OAPI] ToolChoiceTypes (web_search_preview), WebSearchToolCall",
    "`tool_choice: {type: web_search_preview}` gets a completed response with completed "
    "`web_search_call` items",
    profile="hosted:web_search",
)
HOSTED_FILE_SEARCH = register(
    "live.hosted.file_search",
    MUST,
    "§1.7 [OAPI] ToolChoiceTypes (file_search), FileSearchToolCall",
    "`tool_choice: {type: file_search}` gets a completed response with completed "
    "`file_search_call` items",
    profile="hosted:file_search",
)
HOSTED_CODE_INTERPRETER = register(
    "live.hosted.code_interpreter",
    MUST,
    "§1.7 [OAPI] ToolChoiceTypes (code_interpreter), CodeInterpreterToolCall",
    "`tool_choice: {type: code_interpreter}` gets a completed response with completed "
    "`code_interpreter_call` items",
    profile="hosted:code_interpreter",
)
HOSTED_IMAGE_GENERATION = register(
    "live.hosted.image_generation",
    MUST,
    "§1.7 [OAPI] ToolChoiceTypes (image_generation), ImageGenToolCall.result",
    "`tool_choice: {type: image_generation}` gets completed `image_generation_call` items whose "
    "`result` is a base64 image",
    profile="hosted:image_generation",
)
HOSTED_MCP = register(
    "live.hosted.mcp",
    MUST,
    "§1.7 [OAPI] ToolChoiceMCP, MCPToolCall",
    "`tool_choice: {type: mcp, server_label}` with `require_approval: never` gets completed "
    "`mcp_call` items",
    profile="hosted:mcp",
)
HOSTED_MAX_TOOL_CALLS = register(
    "live.hosted.max_tool_calls",
    MUST,
    "§1.7 [OAPI] CreateResponse.max_tool_calls",
    "`max_tool_calls: 1` caps a response's built-in tool calls at one (and is echoed), however "
    "many the prompt asks for",
    profile="hosted:web_search",
)
HOSTED_MCP_APPROVAL = register(
    "live.hosted.mcp_approval",
    MUST,
    "§1.7 [OAPI] MCPApprovalRequest, MCPApprovalResponse, MCPToolCall.approval_request_id",
    "`require_approval: always` gets an `mcp_approval_request`; the client's "
    "`mcp_approval_response` for it gets an `mcp_call` whose `approval_request_id` is that "
    "request's id",
    profile="hosted:mcp",
)
HOSTED_TOOL_SEARCH = register(
    "live.hosted.tool_search",
    MUST,
    "§1.7 [OAPI] ToolSearchToolParam, ToolSearchCall, ToolSearchOutput, FunctionTool.defer_loading",
    "a call to a `defer_loading` tool under a server-executed `tool_search` comes after a "
    "completed `tool_search_output` that loaded that tool",
    profile="hosted:tool_search",
)
HOSTED_TOOL_SEARCH_CLIENT = register(
    "live.hosted.tool_search_client",
    MUST,
    "§1.7 [OAPI] ToolSearchToolParam.execution, ToolSearchCall, ToolSearchOutputItemParam",
    "a client-executed `tool_search` gets a `tool_search_call` (`execution: client`, a `call_id`) "
    "that ends the turn; the client's `tool_search_output` for it lets the next turn call the "
    "tool it loaded",
    profile="hosted:tool_search",
)
HOSTED_SHELL = register(
    "live.hosted.shell",
    MUST,
    "§1.7 [OAPI] SpecificFunctionShellParam, FunctionShellCall, FunctionShellCallOutputItemParam",
    "`tool_choice: {type: shell}` ends the turn with a `shell_call` (a `call_id`); the client's "
    "`shell_call_output` for it gets an answer, not the call again",
    profile="hosted:shell",
)
HOSTED_APPLY_PATCH = register(
    "live.hosted.apply_patch",
    MUST,
    "§1.7 [OAPI] SpecificApplyPatchParam, ApplyPatchToolCall, ApplyPatchToolCallOutputItemParam",
    "`tool_choice: {type: apply_patch}` ends the turn with an `apply_patch_call` (a `call_id`); "
    "the client's `apply_patch_call_output` for it gets an answer, not the call again",
    profile="hosted:apply_patch",
)
HOSTED_COMPUTER = register(
    "live.hosted.computer_use_preview",
    MUST,
    "§1.7 [OAPI] ToolChoiceTypes (computer_use_preview), ComputerToolCall, ComputerCallOutputItemParam",
    "`tool_choice: {type: computer_use_preview}` ends the turn with a `computer_call` (a "
    "`call_id`); the client's `computer_call_output` for it gets an answer, not the call again",
    profile="hosted:computer_use_preview",
)
