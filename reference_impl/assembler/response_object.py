"""The Response object's fixed part, built from a validated request body.

The object carries the union of what OpenAI's recordings carry (tests/data/openai-recorded) and the
fields Open Responses' ``ResponseResource`` requires (SPEC §3): every key below is always present,
with ``null`` where the request set nothing and OpenAI's default where it has one. Key order follows
the recordings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["echo_tools", "response_skeleton", "usage_object"]


def echo_tools(tools: Any) -> list[dict[str, Any]]:
    """The request's ``tools`` as the Response echoes them.

    Function tools always carry ``description``, ``parameters`` and ``strict`` (nullable but present:
    SPEC §3, known bug KB27), and ``defer_loading`` when it was sent ([REC]
    openai-tool-search.1: echoed ``true``); a ``namespace``'s function tools likewise; other tool
    types are echoed as sent.
    """
    return [_echo_tool(tool) for tool in tools or ()]


def _echo_tool(tool: dict[str, Any]) -> dict[str, Any]:
    if tool.get("type") == "function":
        echoed = {
            "type": "function",
            "description": tool.get("description"),
            "name": tool["name"],
            "parameters": tool.get("parameters"),
            "strict": tool.get("strict"),
        }
        if tool.get("defer_loading") is not None:
            echoed["defer_loading"] = tool["defer_loading"]
        return echoed
    if tool.get("type") == "namespace":
        return {**tool, "tools": [_echo_tool(t) for t in tool.get("tools") or ()]}
    return dict(tool)


# The SDK's ServiceTier docs: "The response will show `service_tier=priority` regardless of if you
# specify `service_tier=fast` or `priority`".
_SERVICE_TIER_ECHO = {"fast": "priority"}


def response_skeleton(
    body: Mapping[str, Any], *, response_id: str, created_at: int
) -> dict[str, Any]:
    """The Response object for ``body`` before generation: ``in_progress``, no output, no usage."""
    if _READ.isdisjoint(body):
        # A body that sets none of the fields echoed (model, input, stream: the plainest
        # request): the defaults' copy, its mutable values fresh; ~1/8 of the cost.
        response = _DEFAULTS.copy()
        response["id"] = response_id
        response["created_at"] = created_at
        response["model"] = body.get("model")
        response["output"] = []
        response["reasoning"] = {"effort": None, "summary": None}
        response["text"] = {"format": {"type": "text"}, "verbosity": "medium"}
        response["tools"] = []
        response["metadata"] = {}
        return response
    return _skeleton(body, response_id=response_id, created_at=created_at)


def _skeleton(body: Mapping[str, Any], *, response_id: str, created_at: int) -> dict[str, Any]:
    reasoning = body.get("reasoning") or {}
    text = body.get("text") or {}
    echoed_reasoning: dict[str, Any] = {
        "effort": reasoning.get("effort"),
        "summary": reasoning.get("summary", reasoning.get("generate_summary")),
    }
    for key in ("context", "mode"):
        if reasoning.get(key) is not None:
            echoed_reasoning[key] = reasoning[key]
    response = {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "status": "in_progress",
        "background": bool(body.get("background") or False),
        "completed_at": None,
        "error": None,
        "frequency_penalty": _number(body.get("frequency_penalty"), 0.0),
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "max_tool_calls": body.get("max_tool_calls"),
        "model": body.get("model"),
        "output": [],
        "parallel_tool_calls": _flag(body.get("parallel_tool_calls"), True),
        "presence_penalty": _number(body.get("presence_penalty"), 0.0),
        "previous_response_id": body.get("previous_response_id"),
        "prompt_cache_key": body.get("prompt_cache_key"),
        "prompt_cache_retention": body.get("prompt_cache_retention"),
        "reasoning": echoed_reasoning,
        "safety_identifier": body.get("safety_identifier"),
        "service_tier": _service_tier(body.get("service_tier")),
        "store": _flag(body.get("store"), True),
        "temperature": _number(body.get("temperature"), 1.0),
        "text": {
            "format": dict(text.get("format") or {"type": "text"}),
            "verbosity": text.get("verbosity") or "medium",
        },
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": echo_tools(body.get("tools")),
        "top_logprobs": body.get("top_logprobs") or 0,
        "top_p": _number(body.get("top_p"), 1.0),
        "truncation": body.get("truncation") or "disabled",
        "usage": None,
        "user": body.get("user"),
        "metadata": dict(body.get("metadata") or {}),
    }
    response.update(_applied_options(body))
    if body.get("prompt") is not None:  # rendered: {id, version, variables} (request/prompts.py)
        response["prompt"] = body["prompt"]
    conversation = body.get("conversation")
    if (
        conversation is not None
    ):  # Response.conversation: {id} (reference_impl/service/conversations.py)
        conversation_id = conversation.get("id") if isinstance(conversation, dict) else conversation
        response["conversation"] = {"id": conversation_id}
    return response


# The body fields _skeleton reads, but ``model`` (which response_skeleton's copy sets itself).
_READ = frozenset(
    {
        "reasoning", "text", "background", "frequency_penalty", "instructions",
        "max_output_tokens", "max_tool_calls", "parallel_tool_calls", "presence_penalty",
        "previous_response_id", "prompt_cache_key", "prompt_cache_retention",
        "safety_identifier", "service_tier", "store", "temperature", "tool_choice", "tools",
        "top_logprobs", "top_p", "truncation", "user", "metadata", "access_programs", "image",
        "prompt_cache_options", "prompt", "conversation",
    }
)  # fmt: skip


def _applied_options(body: Mapping[str, Any]) -> dict[str, Any]:
    """Options accepted without effect, echoed when sent as the SDK's Response model reports them
    (the *effective* setting, docs/state.md); absent otherwise, as in [REC]. ``moderation`` is not
    echoed: Response.moderation holds moderation *results*, and none are produced."""
    applied: dict[str, Any] = {}
    programs = body.get("access_programs")
    if isinstance(programs, dict) and programs.get("cyber") is not None:
        applied["access_programs"] = {"cyber": programs["cyber"]}
    if isinstance(body.get("image"), dict):
        applied["image"] = {"context_compression": "disabled"}  # images are never compressed
    cache = body.get("prompt_cache_options")
    if isinstance(cache, dict):
        applied["prompt_cache_options"] = {
            "mode": cache.get("mode") or "implicit",
            "ttl": cache.get("ttl") or "30m",
            "comparison_response_id": cache.get("comparison_response_id"),
        }
    return applied


def usage_object(
    *, input_tokens: int, output_tokens: int, cached_tokens: int, reasoning_tokens: int
) -> dict[str, Any]:
    """Terminal usage (SPEC §3 usage accounting): both ``*_details`` objects, ``total = in + out``,
    ``cached ≤ input``, ``reasoning ≤ output``. ``cache_write_tokens`` is sent because the SDK's
    strict models require it (SPEC §3)."""
    input_tokens = max(0, int(input_tokens))
    output_tokens = max(0, int(output_tokens))
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {
            "cache_write_tokens": 0,
            "cached_tokens": min(max(0, int(cached_tokens)), input_tokens),
        },
        "output_tokens": output_tokens,
        "output_tokens_details": {
            "reasoning_tokens": min(max(0, int(reasoning_tokens)), output_tokens),
        },
        "total_tokens": input_tokens + output_tokens,
    }


def _service_tier(requested: Any) -> Any:
    if requested is None:
        return "default"
    return _SERVICE_TIER_ECHO.get(requested, requested)


def _number(value: Any, default: float) -> Any:
    return default if value is None else value


def _flag(value: Any, default: bool) -> bool:
    return default if value is None else bool(value)


_DEFAULTS = _skeleton({}, response_id="", created_at=0)
