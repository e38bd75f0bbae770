"""Input handling: a request's ``input`` → stored input items → the conversation a response sees.

Three steps, all sans-I/O (the first two here):

1. :func:`normalize_input` checks ``input`` (a string or a list of items) and returns the items in
   their stored form, each with an id (``msg_…``, ``fc_…``, ``fco_…``, ``rs_…``) — what
   ``GET /v1/responses/{id}/input_items`` lists. Bad items are 400s whose ``param`` is the path
   (``input[1].content[0].type``). An ``item_reference`` stays a reference here;
   :func:`resolve_references` swaps in the stored item it names.
2. :func:`conversation_items` puts a ``previous_response_id`` chain together: the prior response's
   input, then its output, then the new input (SPEC §4, [OR]); the prior ``instructions`` are not
   carried over (SPEC §3; known bug KB19). :func:`check_call_outputs` then rejects a new
   ``function_call_output`` whose ``call_id`` no ``function_call`` in that conversation carries
   (OpenAI's 400, ``param: "input"``).
3. :mod:`reference_impl.request.messages` turns the items into the engine's
   :class:`~reference_impl.engine.Message` turns and builds the
   :class:`~reference_impl.engine.GenerationRequest`. :func:`unseal_items` gives the engine the
   reasoning and history that sealed items carry.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

from ..errors import APIError, invalid_request
from ..ids import IdSource
from .field_errors import type_error, value_error
from .item_shapes import (
    ITEM_ID_PREFIXES,
    ITEM_SHAPES,
    NOT_LISTED,
    STORED_DEFAULTS,
    check_shape,
)

__all__ = [
    "check_call_outputs",
    "conversation_items",
    "normalize_input",
    "resolve_references",
    "unseal_items",
]

_ROLES = ("user", "system", "developer", "assistant")
_PHASES = ("commentary", "final_answer")
_ITEM_TYPES = tuple(ITEM_SHAPES)
_PART_TYPES = ("input_text", "output_text", "refusal", "input_image", "input_file")
_OUTPUT_PART_TYPES = ("input_text", "input_image", "input_file")


def normalize_input(value: Any, new_id: IdSource, *, param: str = "input") -> list[dict[str, Any]]:
    """The stored form of a request's ``input`` (see the module docstring); ``param`` names the
    field in errors (``items`` for a conversation's items)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [_message(new_id("msg"), "user", [{"type": "input_text", "text": value}])]
    if not isinstance(value, list):
        raise type_error(param, "a string or an array of input items", value)
    items = [_item(item, f"{param}[{i}]", new_id) for i, item in enumerate(value)]
    return [item for item in items if item["type"] not in NOT_LISTED]


def _message(item_id: str, role: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "message",
        "role": role,
        "content": content,
        "status": "completed",
    }


def _required_str(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if value is None:
        raise invalid_request(
            f"Missing required parameter: '{where}.{key}'.",
            f"{where}.{key}",
            "missing_required_parameter",
        )
    if not isinstance(value, str):
        raise type_error(f"{where}.{key}", "a string", value)
    return value


def _optional_id(item: Mapping[str, Any], where: str) -> str | None:
    value = item.get("id")
    if value is not None and not isinstance(value, str):
        raise type_error(f"{where}.id", "a string", value)
    return value


def _item(item: Any, where: str, new_id: IdSource) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise type_error(where, "an object", item)
    kind = item.get("type")
    if kind is None and "role" in item:
        kind = "message"  # EasyInputMessage: {role, content}
    elif kind is None and set(item) == {"id"}:
        kind = "item_reference"  # ItemReferenceParam: its type is optional [OAPI]
    if kind not in _ITEM_TYPES:
        if kind is None:
            raise invalid_request(
                f"Missing required parameter: '{where}.type'.",
                f"{where}.type",
                "missing_required_parameter",
            )
        raise value_error(f"{where}.type", kind, _ITEM_TYPES)
    item_id = _optional_id(item, where)
    if kind == "function_call_output" and _context_output(item):
        return _context_output_item(item, item_id or new_id("fco"), where)
    if kind != "message":
        check_shape(item, kind, where)
    if kind == "message":
        role = item.get("role")
        if role not in _ROLES:
            raise value_error(f"{where}.role", role, _ROLES)
        content = _content(item.get("content"), role, f"{where}.content")
        stored = _message(item_id or new_id("msg"), role, content)
        if isinstance(item.get("status"), str):
            stored["status"] = item["status"]
        phase = item.get("phase")
        if phase is not None:
            # The SDK's EasyInputMessage / ResponseOutputMessage `phase`: clients resend it on
            # every assistant message (the Agents SDK, Codex); the stored item keeps it.
            if phase not in _PHASES:
                raise value_error(f"{where}.phase", phase, _PHASES)
            if role == "assistant":
                stored["phase"] = phase
        return stored
    if kind == "function_call":
        call = {
            "id": item_id or new_id("fc"),
            "type": "function_call",
            "call_id": _required_str(item, "call_id", where),
            "name": _required_str(item, "name", where),
            "arguments": _required_str(item, "arguments", where),
            "status": item.get("status") or "completed",
        }
        if item.get("namespace") is not None:  # OpenAI needs it back ([REC] …-namespace-error)
            call["namespace"] = item["namespace"]
        return call
    if kind == "function_call_output":
        call_id = _required_str(item, "call_id", where)
        output = item.get("output")
        if isinstance(output, list):
            output = [
                _part(p, f"{where}.output[{j}]", _OUTPUT_PART_TYPES) for j, p in enumerate(output)
            ]
        elif not isinstance(output, str):
            raise type_error(f"{where}.output", "a string or an array of content parts", output)
        return {
            "id": item_id or new_id("fco"),
            "type": "function_call_output",
            "call_id": call_id,
            "output": output,
            "status": item.get("status") or "completed",
        }
    if kind == "reasoning":
        return _reasoning_item(item, item_id or new_id("rs"), where)
    if kind == "item_reference":
        # Replaced by the stored item it names before the conversation is built
        # (ResponsesService._prepare). The Vercel AI SDK sends these for earlier output items
        # (reasoning, assistant messages) whenever `store` is on.
        return {"type": "item_reference", "id": _required_str(item, "id", where)}
    # Every other type of the schema is kept as sent (its shape checked above), with an id;
    # to_messages (messages.py) turns what an engine can use into turns.
    stored = dict(item)
    stored["id"] = item_id or new_id(ITEM_ID_PREFIXES.get(kind, "item"))
    for key, default in STORED_DEFAULTS.get(kind, {}).items():
        if stored.get(key) is None:
            stored[key] = copy.copy(default)
    return stored


def _context_output(item: Mapping[str, Any]) -> bool:
    """A ``function_call_output`` that answers no call: no ``call_id``, a ``name`` instead.

    Codex (0.171, codex-rs ``additional_context_tool_output``) adds one to its input after a
    ``create_goal`` call, besides the call's own output: ``{"type": "function_call_output",
    "name": "goal_objective", "namespace": "agent", "output": "<the objective>"}`` — context for
    the model in a tool output's form, sent to every provider, OpenAI's included. Without a
    ``name`` either, ``call_id`` is missing (the 400 of :func:`check_shape`)."""
    return item.get("call_id") is None and isinstance(item.get("name"), str)


def _context_output_item(item: Mapping[str, Any], item_id: str, where: str) -> dict[str, Any]:
    output = item.get("output")
    if output is None:
        raise invalid_request(
            f"Missing required parameter: '{where}.output'.",
            f"{where}.output",
            "missing_required_parameter",
        )
    if isinstance(output, list):
        output = [
            _part(p, f"{where}.output[{j}]", _OUTPUT_PART_TYPES) for j, p in enumerate(output)
        ]
    elif not isinstance(output, str):
        raise type_error(f"{where}.output", "a string or an array of content parts", output)
    namespace = item.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise type_error(f"{where}.namespace", "a string", namespace)
    stored: dict[str, Any] = {"id": item_id, "type": "function_call_output", "name": item["name"]}
    if namespace is not None:
        stored["namespace"] = namespace
    stored["output"] = output
    stored["status"] = item.get("status") or "completed"
    return stored


def _reasoning_item(item: Mapping[str, Any], item_id: str, where: str) -> dict[str, Any]:
    stored: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    summary = item.get("summary")
    if summary is not None:
        if not isinstance(summary, list):
            raise type_error(f"{where}.summary", "an array", summary)
        for j, part in enumerate(summary):
            if not isinstance(part, dict) or not isinstance(part.get("text"), str):
                raise type_error(f"{where}.summary[{j}]", "a summary_text part", part)
        stored["summary"] = [{"type": "summary_text", "text": p["text"]} for p in summary]
    content = item.get("content")
    if content is not None:
        if not isinstance(content, list):
            raise type_error(f"{where}.content", "an array", content)
        for j, part in enumerate(content):
            if not isinstance(part, dict) or not isinstance(part.get("text"), str):
                raise type_error(f"{where}.content[{j}]", "a reasoning_text part", part)
        stored["content"] = [{"type": "reasoning_text", "text": p["text"]} for p in content]
    if isinstance(item.get("encrypted_content"), str):
        stored["encrypted_content"] = item["encrypted_content"]
    if isinstance(item.get("status"), str):
        stored["status"] = item["status"]
    return stored


def _content(content: Any, role: str, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        if role == "assistant":
            return [{"type": "output_text", "text": content, "annotations": []}]
        return [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        if content is None:
            raise invalid_request(
                f"Missing required parameter: '{where}'.", where, "missing_required_parameter"
            )
        raise type_error(where, "a string or an array of content parts", content)
    return [_part(part, f"{where}[{j}]", _PART_TYPES) for j, part in enumerate(content)]


def _part(part: Any, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(part, dict):
        raise type_error(where, "an object", part)
    kind = part.get("type")
    if kind not in allowed:
        raise value_error(f"{where}.type", kind, allowed)
    if kind in ("input_text", "output_text"):
        _required_str(part, "text", where)
    elif kind == "refusal":
        _required_str(part, "refusal", where)
    elif (
        kind == "input_image"
        and not isinstance(part.get("image_url"), str)
        and not isinstance(part.get("file_id"), str)
    ):
        raise invalid_request(
            f"Missing required parameter: '{where}.image_url'.",
            f"{where}.image_url",
            "missing_required_parameter",
        )
    return dict(part)


async def resolve_references(
    items: Sequence[Mapping[str, Any]],
    find: Callable[[str], Awaitable[dict[str, Any] | None]] | None,
) -> list[dict[str, Any]]:
    """``items`` with each ``item_reference`` replaced by the stored item ``find`` returns for its
    id; an unknown id (or a store that cannot look items up: ``find`` None) is a 400 naming the
    reference."""
    resolved = []
    for i, item in enumerate(items):
        if item.get("type") != "item_reference":
            resolved.append(dict(item))
            continue
        found = await find(item["id"]) if find is not None else None
        if found is None:
            raise invalid_request(f"Item with id '{item['id']}' not found.", f"input[{i}].id")
        resolved.append(found)
    return resolved


class Unsealer(Protocol):
    def open(
        self, kind: Literal["reasoning", "compaction"], blob: str, item_id: str | None
    ) -> Any: ...


def unseal_items(
    items: Sequence[Mapping[str, Any]], sealer: Unsealer | None, *, strict_from: int = 0
) -> list[dict[str, Any]]:
    """The engine's view of ``items``: a reasoning item with ``encrypted_content`` gets the
    reasoning it sealed (its summary, content and unseen text) as plain parts; a ``compaction``
    item stands for the history it sealed, which replaces every item before it
    (reference_impl/sealing.py, docs/state.md).

    A blob at or after ``strict_from`` (the request's own input) that does not open is OpenAI's
    400 ``invalid_encrypted_content``; one before it (history read back from the store, sealed
    under a key this process may no longer have) keeps its plain parts instead. The stored items
    are never these: what a client sent is what ``input_items`` lists."""
    out: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        kind = item.get("type")
        blob = item.get("encrypted_content")
        if kind not in ("reasoning", "compaction") or not isinstance(blob, str):
            out.append(dict(item))
            continue
        try:
            if sealer is None:
                raise _sealing_error(item)
            payload = sealer.open(
                "reasoning" if kind == "reasoning" else "compaction", blob, item.get("id")
            )
        except APIError:
            if index >= strict_from:
                raise
            if kind == "reasoning":
                out.append(dict(item))
            continue
        if kind == "compaction":
            out = [dict(i) for i in payload.get("items") or ()]
            continue
        texts = [*payload.get("content", ()), payload.get("hidden") or ""]
        summary = [{"type": "summary_text", "text": t} for t in payload.get("summary", ())]
        content = [{"type": "reasoning_text", "text": t} for t in texts if t]
        out.append({**item, "summary": summary, "content": content})
    return out


def _sealing_error(item: Mapping[str, Any]) -> APIError:
    from ..sealing import invalid_encrypted_content

    return invalid_encrypted_content(item.get("id"))


def conversation_items(
    previous_input: Sequence[Mapping[str, Any]] | None,
    previous_output: Sequence[Mapping[str, Any]] | None,
    new_input: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The items a response sees: prior input, prior output, new input (SPEC §4).

    A stored response's input items already hold its own history, so one level is enough.
    """
    items: list[dict[str, Any]] = [dict(i) for i in previous_input or ()]
    items.extend(dict(i) for i in previous_output or ())
    items.extend(dict(i) for i in new_input)
    return items


def check_call_outputs(
    conversation: Sequence[Mapping[str, Any]], new_input: Sequence[Mapping[str, Any]]
) -> None:
    """400 for a ``function_call_output`` in ``new_input`` whose ``call_id`` matches no
    ``function_call`` in ``conversation`` (the whole chain, new input included).

    OpenAI's answer, word for word (e.g. continuedev/continue#10092, microsoft/vscode#320060):
    ``invalid_request_error``, ``param: "input"``, ``code: null``. Only the new input is checked,
    so a chain stored before this check existed still continues.
    """
    calls = {
        (i.get("type"), i.get("call_id"))
        for i in conversation
        if i.get("type") in _CALL_OF.values()
    }
    for item in new_input:
        kind = item.get("type")
        if kind == "function_call_output" and _context_output(item):
            continue  # answers no call (_context_output)
        if kind in _CALL_OF and (_CALL_OF[kind], item.get("call_id")) not in calls:
            what = kind.removesuffix("_output").replace("_", " ")
            raise invalid_request(
                f"No tool call found for {what} output with call_id {item.get('call_id')}.",
                "input",
            )


# An output item → the call item it answers, matched by call_id. [REC] errors: "No tool call found
# for function call output …" (openai-issue-18537), "… for shell call output …" (issue-18134).
_CALL_OF = {
    "function_call_output": "function_call",
    "custom_tool_call_output": "custom_tool_call",
    "shell_call_output": "shell_call",
    "apply_patch_call_output": "apply_patch_call",
    "computer_call_output": "computer_call",
}
