"""§9.3 the Vercel AI SDK's parser (docs/spec.md#s9-3): ``live.client.vercel_ai.response_parses``,
``live.client.vercel_ai.stream_parses``.

The Vercel AI SDK's OpenAI provider reads a non-streamed Response with its zod schema
``openaiResponsesResponseSchema`` and each streamed event with ``openaiResponsesChunkSchema``
(``packages/openai/src/responses/openai-responses-api.ts``): a Response that does not parse fails
``generateText`` (``AI_TypeValidationError``); an event of a type it knows that does not match
falls to the unknown-chunk fallback and is dropped (the tool call, the usage, the finish reason
lost). :func:`vercel_response_problems` and :func:`vercel_chunk_problem` are those schemas as
rules over the JSON; the replay of the client's flows (the case in :mod:`.s9_clients`) judges
each of its answers by them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..catalog.registry import Level, register

__all__ = [
    "VERCEL_RESPONSE_PARSES",
    "VERCEL_SOURCE",
    "VERCEL_STREAM_PARSES",
    "declare_examples",
    "vercel_chunk_problem",
    "vercel_response_problems",
]

VERCEL_SOURCE = "vercel/ai packages/openai/src/responses/openai-responses-api.ts"
VERCEL_RESPONSE_PARSES = register(
    "live.client.vercel_ai.response_parses",
    Level.MUST,
    f"§9.3 [CLIENT] {VERCEL_SOURCE} (openaiResponsesResponseSchema)",
    "a non-streamed Response the Vercel AI SDK reads parses with its provider's schema: every "
    "output item of a type it knows, with the fields it requires (a message's `output_text` "
    "parts with an `annotations` array, a `function_call`'s `id`, a `reasoning` item's "
    "`summary`), numeric `usage` tokens (else generateText fails: AI_TypeValidationError)",
    profile="client:vercel-ai",
)
VERCEL_STREAM_PARSES = register(
    "live.client.vercel_ai.stream_parses",
    Level.MUST,
    f"§9.3 [CLIENT] {VERCEL_SOURCE} (openaiResponsesChunkSchema)",
    "every streamed event the Vercel AI SDK knows matches its provider's chunk schema "
    "(`response.created` with `id`, `created_at`, `model`; an item's `id` on "
    "`output_item.added` / `.done`, a done `function_call`'s `status` (`in_progress`, "
    "`completed` or `incomplete`); a terminal response's "
    "numeric `usage` tokens): one that does not falls to its unknown-chunk fallback and is "
    "dropped (the tool call, the usage, the finish reason lost)",
    profile="client:vercel-ai",
)


# --- the Vercel provider's parser (its zod schemas, as rules over the JSON) -----------------------

_STR, _NUM, _LIST = "string", "number", "array"


def _is(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _NUM:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, list)


def _missing(obj: Mapping[str, Any], fields: Mapping[str, str], where: str) -> list[str]:
    return [
        f"{where}.{name} is not a {kind} ({obj.get(name)!r})"
        for name, kind in fields.items()
        if not _is(obj.get(name), kind)
    ]


def _usage(usage: Any, where: str, *, required: bool) -> list[str]:
    if usage is None and not required:
        return []
    if not isinstance(usage, dict):
        return [f"{where} is not an object ({usage!r})"]
    return _missing(usage, {"input_tokens": _NUM, "output_tokens": _NUM}, where)


# Output item types openaiResponsesResponseSchema knows, and the fields each requires.
_RESPONSE_ITEMS: dict[str, dict[str, str]] = {
    "message": {"id": _STR, "content": _LIST},
    "web_search_call": {"id": _STR, "status": _STR},
    "file_search_call": {"id": _STR, "queries": _LIST},
    "code_interpreter_call": {"id": _STR, "container_id": _STR},
    "image_generation_call": {"id": _STR, "result": _STR},
    "local_shell_call": {"id": _STR, "call_id": _STR},
    "function_call": {"id": _STR, "call_id": _STR, "name": _STR, "arguments": _STR},
    "computer_call": {"id": _STR},
    "reasoning": {"id": _STR, "summary": _LIST},
    "mcp_call": {"id": _STR, "status": _STR, "arguments": _STR, "name": _STR, "server_label": _STR},
    "mcp_list_tools": {"id": _STR, "server_label": _STR, "tools": _LIST},
    "mcp_approval_request": {"id": _STR, "server_label": _STR, "name": _STR, "arguments": _STR},
    "apply_patch_call": {"id": _STR, "call_id": _STR, "status": _STR},
    "shell_call": {"id": _STR, "call_id": _STR, "status": _STR},
}


def vercel_response_problems(response: Mapping[str, Any]) -> list[str]:
    """Why the Vercel provider's response schema rejects ``response`` (empty when it parses)."""
    problems: list[str] = []
    output = response.get("output")
    for i, item in enumerate(output if isinstance(output, list) else []):
        where = f"output[{i}]"
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or kind not in _RESPONSE_ITEMS:
            problems.append(f"{where}.type {kind!r} is not one the provider knows")
            continue
        problems += _missing(item, _RESPONSE_ITEMS[kind], where)
        if kind == "message":
            if item.get("role") != "assistant":
                problems.append(f"{where}.role is not 'assistant'")
            for j, part in enumerate(item.get("content") or []):
                at = f"{where}.content[{j}]"
                if not isinstance(part, dict) or part.get("type") != "output_text":
                    problems.append(f"{at}.type is not 'output_text'")
                else:
                    problems += _missing(part, {"text": _STR, "annotations": _LIST}, at)
        if kind == "reasoning":
            for j, part in enumerate(item.get("summary") or []):
                if not isinstance(part, dict) or part.get("type") != "summary_text":
                    problems.append(f"{where}.summary[{j}].type is not 'summary_text'")
    return problems + _usage(response.get("usage"), "usage", required=False)


_CALL_STATUSES = ("in_progress", "completed", "incomplete")
_ADDED_ITEMS: dict[str, dict[str, str]] = {
    "message": {"id": _STR},
    "reasoning": {"id": _STR},
    "function_call": {"id": _STR, "call_id": _STR, "name": _STR, "arguments": _STR},
}


def vercel_chunk_problem(event: Mapping[str, Any]) -> str | None:
    """Why the Vercel provider's chunk schema would not match ``event`` (a type it knows whose
    fields it lacks; None when it matches, or the type is one it does not know)."""
    kind = event.get("type")
    if kind == "response.created":
        response = event.get("response")
        if not isinstance(response, dict):
            return "response.created has no response object"
        found = _missing(response, {"id": _STR, "created_at": _NUM, "model": _STR}, "response")
        return "; ".join(found) or None
    if kind in ("response.completed", "response.incomplete"):
        response = event.get("response")
        usage = response.get("usage") if isinstance(response, dict) else None
        return "; ".join(_usage(usage, f"{kind} response.usage", required=True)) or None
    if kind in ("response.output_item.added", "response.output_item.done"):
        item = event.get("item")
        if not isinstance(item, dict) or item.get("type") not in _ADDED_ITEMS:
            return None  # the other item types have entries of their own, not judged here
        found = _missing(item, _ADDED_ITEMS[item["type"]], "item")
        # @ai-sdk/openai 4.0.126: `status: z.enum(["in_progress", "completed", "incomplete"])`
        # (a done call `in_progress` parses: the real client runs its tool, issue #34's table)
        if (
            kind == "response.output_item.done"
            and item["type"] == "function_call"
            and item.get("status") not in _CALL_STATUSES
        ):
            found.append(
                f"a done function_call's status is {item.get('status')!r}, not one of "
                "in_progress, completed, incomplete"
            )
        return "; ".join(found) or None
    if kind == "response.output_text.delta":
        found = _missing(event, {"item_id": _STR, "delta": _STR}, "event")
        return "; ".join(found) or None
    return None


def declare_examples() -> None:
    """The failing example of each check is a gateway in front of the mock with that defect
    (tests/suite/broken_client_servers.py), the near miss the mock itself."""
    from ..examples.live import live

    live(
        VERCEL_RESPONSE_PARSES.id,
        "output_text_without_annotations",
        "a server whose non-streamed messages' `output_text` parts carry no `annotations`",
    )
    live(
        VERCEL_STREAM_PARSES.id,
        "function_call_done_without_status",
        "a server whose streamed function calls have no `status` in `output_item.done`",
    )
