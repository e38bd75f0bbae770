"""What each hosted-tool profile asks a server for: the tool declaration, the ``tool_choice`` that
forces it, the output item type it must produce, and the prompt.

One table for the suite's hosted cases (:mod:`conformance.sections.s1_7_hosted_cases`, streamed)
and the vendor harness's capability probes (``benchmarks/vendors/capabilities.py``, one
non-streamed create each), so a probe asks for exactly what the case it gates will ask for. ``tool_choice`` as [OAPI]
``ToolChoiceTypes`` / ``ToolChoiceMCP`` allow; ``hosted:mcp`` names DeepWiki's public MCP server, as
OpenAI's docs do (the probe swaps in a loopback URL: a probe never leaves the machine).
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["HOSTED", "MCP_TOOL", "HostedRequest"]


class HostedRequest(NamedTuple):
    tool: dict[str, Any]
    tool_choice: dict[str, Any]
    item_type: str
    prompt: str


MCP_TOOL: dict[str, Any] = {
    "type": "mcp",
    "server_label": "deepwiki",
    "server_url": "https://mcp.deepwiki.com/mcp",
    "require_approval": "never",
}

HOSTED: dict[str, HostedRequest] = {
    "hosted:web_search": HostedRequest(
        {"type": "web_search_preview"}, {"type": "web_search_preview"}, "web_search_call",
        "Search the web: what is the tallest building in Paris?",
    ),
    "hosted:file_search": HostedRequest(
        {"type": "file_search", "vector_store_ids": ["vs_conformance"]}, {"type": "file_search"},
        "file_search_call", "Search the files: what do they say about lighthouses?",
    ),
    "hosted:code_interpreter": HostedRequest(
        {"type": "code_interpreter", "container": {"type": "auto"}}, {"type": "code_interpreter"},
        "code_interpreter_call", "Run Python to compute the sum of the squares of 1 to 10.",
    ),
    # partial_images only matters when streamed (the suite's case); the probe drops it
    "hosted:image_generation": HostedRequest(
        {"type": "image_generation", "partial_images": 2, "quality": "low", "size": "1024x1024"},
        {"type": "image_generation"}, "image_generation_call",
        "Generate an image of a red lighthouse at dusk.",
    ),
    "hosted:mcp": HostedRequest(
        MCP_TOOL, {"type": "mcp", "server_label": "deepwiki"}, "mcp_call",
        "Use the deepwiki tools: what is the openai/openai-python repository about?",
    ),
}  # fmt: skip
