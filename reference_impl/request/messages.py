"""Input items → the engine's view: :func:`to_messages` and :func:`generation_request` (sans-I/O).

The third step of input handling (:mod:`reference_impl.request.inputs` has the first two: the
stored items, the conversation they make). :func:`to_messages` turns items into
:class:`~reference_impl.engine.Message` turns: instructions first as a system turn; an assistant
turn gathers its reasoning, text and tool calls; a tool's output is a ``tool`` turn.
:func:`generation_request` builds the :class:`~reference_impl.engine.GenerationRequest` of a
validated body whose conversation is those items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from ..engine import EngineHints, GenerationRequest, Message
from .tool_kinds import engine_tools

__all__ = ["generation_request", "to_messages"]


def _text_of(parts: Any) -> str:
    if isinstance(parts, str):
        return parts
    pieces = []
    for part in parts or ():
        if part.get("type") == "refusal":
            pieces.append(part.get("refusal", ""))
        elif isinstance(part.get("text"), str):
            pieces.append(part["text"])
    return "".join(pieces)


def _images_of(parts: Any) -> tuple[str, ...]:
    if isinstance(parts, str):
        return ()
    return tuple(
        p.get("image_url") or p.get("file_id")
        for p in parts or ()
        if p.get("type") == "input_image" and (p.get("image_url") or p.get("file_id"))
    )


class _AssistantTurn:
    def __init__(self) -> None:
        self.reasoning: list[str] = []
        self.content: list[str] = []
        self.tool_calls: list[dict[str, str]] = []

    @property
    def empty(self) -> bool:
        return not (self.reasoning or self.content or self.tool_calls)

    def message(self) -> Message:
        return Message(
            role="assistant",
            content="".join(self.content),
            tool_calls=tuple(self.tool_calls),
            reasoning="\n".join(self.reasoning) if self.reasoning else None,
        )


def to_messages(items: Sequence[Mapping[str, Any]], instructions: str | None) -> list[Message]:
    """Engine turns for ``items``; ``instructions`` become the first (system) turn.

    One assistant turn gathers, in order, reasoning → text → function calls; anything else ends it.
    """
    messages: list[Message] = []
    if instructions:
        messages.append(Message(role="system", content=instructions))
    turn = _AssistantTurn()

    def flush() -> None:
        nonlocal turn
        if not turn.empty:
            messages.append(turn.message())
        turn = _AssistantTurn()

    for item in items:
        kind = item.get("type", "message")
        if kind == "reasoning":
            if turn.content or turn.tool_calls:
                flush()
            texts = [p.get("text", "") for p in item.get("summary") or ()]
            texts += [p.get("text", "") for p in item.get("content") or ()]
            turn.reasoning.append("\n".join(t for t in texts if t))
        elif kind == "message" and item.get("role") == "assistant":
            if turn.content or turn.tool_calls:
                flush()
            turn.content.append(_text_of(item.get("content")))
        elif kind == "function_call":
            turn.tool_calls.append(
                {"call_id": item["call_id"], "name": item["name"], "arguments": item["arguments"]}
            )
        elif kind == "function_call_output":
            flush()
            messages.append(
                Message(
                    role="tool",
                    content=_text_of(item.get("output")),
                    images=_images_of(item.get("output")),
                    tool_call_id=item.get("call_id") or item.get("name") or "",
                )
            )
        elif kind in _TOOL_CALLS:
            turn.tool_calls.append(_TOOL_CALLS[kind](item))
            if kind == "mcp_call":  # a hosted call: its result is part of the history too
                flush()
                result = item.get("output") or _json(item.get("error")) or ""
                messages.append(Message(role="tool", content=result, tool_call_id=item["id"]))
        elif kind in _TOOL_OUTPUTS:
            flush()
            content, images = _TOOL_OUTPUTS[kind](item)
            call_id = item.get("call_id") or item.get("id") or ""
            messages.append(
                Message(role="tool", content=content, images=images, tool_call_id=call_id)
            )
        elif kind == "message":
            flush()
            messages.append(
                Message(
                    role=item["role"],
                    content=_text_of(item.get("content")),
                    images=_images_of(item.get("content")),
                )
            )
        # hosted tool calls without a result the engine could read (web/file search, image
        # generation, code interpreter), MCP listings and approvals, tool search, compaction
        # triggers and configuration updates carry no turn of their own (docs/state.md)
    flush()
    return messages


def _json(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def _call(name: str, arguments_key: str) -> Callable[[Mapping[str, Any]], dict[str, str]]:
    def make(item: Mapping[str, Any]) -> dict[str, str]:
        call_id = item.get("call_id") or item.get("id") or ""
        return {"call_id": call_id, "name": name, "arguments": _json(item.get(arguments_key))}

    return make


def _named_call(arguments_key: str) -> Callable[[Mapping[str, Any]], dict[str, str]]:
    def make(item: Mapping[str, Any]) -> dict[str, str]:
        call_id = item.get("call_id") or item.get("id") or ""
        return {"call_id": call_id, "name": item["name"], "arguments": _json(item[arguments_key])}

    return make


def _computer_call(item: Mapping[str, Any]) -> dict[str, str]:
    action = item.get("action") if item.get("action") is not None else item.get("actions")
    return {"call_id": item["call_id"], "name": "computer", "arguments": _json(action)}


# Client-executed tool calls (and MCP calls, which carry their result) → assistant tool calls.
_TOOL_CALLS: dict[str, Callable[[Mapping[str, Any]], dict[str, str]]] = {
    "custom_tool_call": _named_call("input"),
    "mcp_call": _named_call("arguments"),
    "shell_call": _call("shell", "action"),
    "local_shell_call": _call("local_shell", "action"),
    "apply_patch_call": _call("apply_patch", "operation"),
    "computer_call": _computer_call,
}


def _shell_output(item: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    pieces = []
    for chunk in item.get("output") or ():
        if isinstance(chunk, dict):
            pieces += [chunk.get("stdout") or "", chunk.get("stderr") or ""]
            outcome = chunk.get("outcome")
            if isinstance(outcome, dict) and outcome.get("type") == "exit":
                pieces.append(f"exit code {outcome.get('exit_code')}")
            elif isinstance(outcome, dict) and outcome.get("type"):
                pieces.append(str(outcome["type"]))
    return "\n".join(p for p in pieces if p), ()


def _computer_output(item: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    output = item.get("output") or {}
    image = output.get("image_url") or output.get("file_id")
    return "screenshot", (image,) if image else ()


_TOOL_OUTPUTS: dict[str, Callable[[Mapping[str, Any]], tuple[str, tuple[str, ...]]]] = {
    "custom_tool_call_output": lambda i: (_text_of(i.get("output")), _images_of(i.get("output"))),
    "local_shell_call_output": lambda i: (str(i.get("output") or ""), ()),
    "shell_call_output": _shell_output,
    "apply_patch_call_output": lambda i: (i.get("output") or str(i.get("status")), ()),
    "computer_call_output": _computer_output,
}


def generation_request(
    body: Mapping[str, Any],
    items: Sequence[Mapping[str, Any]],
    hints: EngineHints | None = None,
) -> GenerationRequest:
    """The engine's view of a validated request whose conversation is ``items``."""
    reasoning = body.get("reasoning") or {}
    text = body.get("text") or {}
    tools, customs = engine_tools(body, items)
    return GenerationRequest(
        model=body.get("model") or "",
        messages=to_messages(items, body.get("instructions")),
        tools=tools,
        custom_tools=customs,
        tool_choice=body.get("tool_choice") or "auto",
        parallel_tool_calls=body.get("parallel_tool_calls") is not False,
        max_output_tokens=body.get("max_output_tokens"),
        temperature=body.get("temperature"),
        top_p=body.get("top_p"),
        reasoning_effort=reasoning.get("effort"),
        reasoning_summary=reasoning.get("summary", reasoning.get("generate_summary")),
        text_format=text.get("format"),
        metadata=dict(body.get("metadata") or {}),
        hints=hints if hints is not None else EngineHints(),
        body=body,
    )
