"""Builders for the checks' examples: minimal, valid streams and bodies, and edits of them.

Every builder returns a fresh object (examples edit what they get). The streams are the smallest
a real server sends for one kind of output, shaped like the recorded OpenAI traffic of
``tests/data/openai-recorded`` (``azure-text.1``, ``azure-tool-call.1``) with the ids shortened.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

__all__ = [
    "Event",
    "at",
    "call_stream",
    "custom_tool_body",
    "custom_tool_stream",
    "drop",
    "error_body",
    "failed_stream",
    "find",
    "insert",
    "numbered",
    "reasoning_stream",
    "response",
    "retext",
    "set_in",
    "shell_stream",
    "sse",
    "text_stream",
    "without",
]

Event = dict[str, Any]

RESP_ID = "resp_example"
MSG_ID = "msg_example"
CALL_ID = "fc_example"
RS_ID = "rs_example"


def response(status: str = "in_progress", output: Sequence[Any] = (), **fields: Any) -> Event:
    """A Response object with every field OpenAI's schema (and Open Responses) requires."""
    done = status not in ("in_progress", "queued")
    body: Event = {
        "id": RESP_ID,
        "object": "response",
        "created_at": 1770803606,
        "status": status,
        "background": False,
        "completed_at": 1770803608 if done else None,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": "gpt-5.1",
        "output": list(output),
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": "none", "summary": None},
        "safety_identifier": None,
        "service_tier": "auto",
        "store": True,
        "temperature": 1,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": 0,
        "top_p": 1,
        "truncation": "disabled",
        "usage": usage(5, 2) if done else None,
        "user": None,
        "metadata": {},
        "presence_penalty": 0,
        "frequency_penalty": 0,
    }
    body.update(fields)
    return body


def usage(input_tokens: int, output_tokens: int, *, cached: int = 0, reasoning: int = 0) -> Event:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output_tokens,
    }


def error_body(code: Any = "invalid_value", param: Any = "input") -> Event:
    return {
        "error": {
            "message": "Invalid value for 'input'.",
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def _message(text: str, status: str = "completed", annotations: Sequence[Any] = ()) -> Event:
    return {
        "id": MSG_ID,
        "type": "message",
        "status": status,
        "content": [
            {"type": "output_text", "annotations": list(annotations), "logprobs": [], "text": text}
        ]
        if status != "in_progress"
        else [],
        "role": "assistant",
    }


def _text_events(
    deltas: Sequence[str], *, output_index: int = 0, annotations: Sequence[Any] = ()
) -> list[Event]:
    text = "".join(deltas)
    inner = {"item_id": MSG_ID, "output_index": output_index, "content_index": 0}
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    out: list[Event] = [
        {"type": "response.output_item.added", "output_index": output_index,
         "item": _message("", "in_progress")},
        {"type": "response.content_part.added", **inner, "part": part},
    ]  # fmt: skip
    out += [
        {"type": "response.output_text.delta", **inner, "delta": d, "logprobs": []} for d in deltas
    ]
    out += [
        {"type": "response.output_text.annotation.added", **inner, "annotation_index": i,
         "annotation": a}
        for i, a in enumerate(annotations)
    ]  # fmt: skip
    done_part = {**part, "text": text, "annotations": list(annotations)}
    out += [
        {"type": "response.output_text.done", **inner, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **inner, "part": done_part},
        {"type": "response.output_item.done", "output_index": output_index,
         "item": _message(text, annotations=annotations)},
    ]  # fmt: skip
    return out


def _wrap(items: list[Event], body: list[Event], terminal: str = "completed") -> list[Event]:
    events: list[Event] = [
        {"type": "response.created", "response": response()},
        {"type": "response.in_progress", "response": response()},
        *body,
        {"type": f"response.{terminal}", "response": response(terminal, items)},
    ]
    return numbered(events)


def text_stream(
    deltas: Sequence[str] = ("Hel", "lo"), *, annotations: Sequence[Any] = ()
) -> list[Event]:
    """created, in_progress, one message with one `output_text` part, completed."""
    text = "".join(deltas)
    return _wrap(
        [_message(text, annotations=annotations)], _text_events(deltas, annotations=annotations)
    )


def _call(arguments: str, status: str = "completed") -> Event:
    return {
        "id": CALL_ID,
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": "call_example",
        "name": "get_weather",
    }


def call_stream(deltas: Sequence[str] = ('{"city":', '"Paris"}')) -> list[Event]:
    """created, in_progress, one function call streamed in argument deltas, completed."""
    args = "".join(deltas)
    inner = {"item_id": CALL_ID, "output_index": 0}
    body: list[Event] = [
        {"type": "response.output_item.added", "output_index": 0, "item": _call("", "in_progress")},
        *({"type": "response.function_call_arguments.delta", **inner, "delta": d} for d in deltas),
        {"type": "response.function_call_arguments.done", **inner, "arguments": args},
        {"type": "response.output_item.done", "output_index": 0, "item": _call(args)},
    ]
    return _wrap([_call(args)], body)


def _custom(name: str, text: str, status: str = "completed") -> Event:
    return {
        "id": "ctc_example",
        "type": "custom_tool_call",
        "status": status,
        "call_id": "call_example",
        "input": text,
        "name": name,
    }


def custom_tool_stream(name: str, text: str) -> list[Event]:
    """created, in_progress, one custom tool call whose input streams in one delta, completed."""
    inner = {"item_id": "ctc_example", "output_index": 0}
    body: list[Event] = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": _custom(name, "", "in_progress")},
        {"type": "response.custom_tool_call_input.delta", **inner, "delta": text},
        {"type": "response.custom_tool_call_input.done", **inner, "input": text},
        {"type": "response.output_item.done", "output_index": 0, "item": _custom(name, text)},
    ]  # fmt: skip
    return _wrap([_custom(name, text)], body)


def custom_tool_body(name: str, text: str) -> Event:
    """A completed non-stream Response holding one custom tool call."""
    return response("completed", [_custom(name, text)])


def _reasoning(summary: Sequence[str], status: str = "completed") -> Event:
    return {
        "id": RS_ID,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": s} for s in summary],
    }


def reasoning_stream(summary: str = "Think.", answer: str = "Hi") -> list[Event]:
    """A reasoning item with one summary part, then a message."""
    inner = {"item_id": RS_ID, "output_index": 0, "summary_index": 0}
    body: list[Event] = [
        {"type": "response.output_item.added", "output_index": 0, "item": _reasoning([])},
        {"type": "response.reasoning_summary_part.added", **inner,
         "part": {"type": "summary_text", "text": ""}},
        {"type": "response.reasoning_summary_text.delta", **inner, "delta": summary},
        {"type": "response.reasoning_summary_text.done", **inner, "text": summary},
        {"type": "response.reasoning_summary_part.done", **inner,
         "part": {"type": "summary_text", "text": summary}},
        {"type": "response.output_item.done", "output_index": 0, "item": _reasoning([summary])},
        *_text_events((answer,), output_index=1),
    ]  # fmt: skip
    events = _wrap([_reasoning([summary]), _message(answer)], body)
    events[-1]["response"]["usage"] = usage(5, 4, reasoning=2)
    return events


def _shell(commands: Sequence[str], status: str = "completed") -> Event:
    return {
        "id": "sh_example",
        "type": "shell_call",
        "status": status,
        "action": {"commands": list(commands), "max_output_length": None, "timeout_ms": None},
        "call_id": "call_example",
    }


def shell_stream(command: Sequence[str] = ("ls", " -a")) -> list[Event]:
    """A shell call whose one command is opened by `shell_call_command.added` and streamed."""
    text = "".join(command)
    inner = {"output_index": 0, "command_index": 0}
    body: list[Event] = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": _shell([], "in_progress"),
        },
        {"type": "response.shell_call_command.added", **inner, "command": ""},
        *({"type": "response.shell_call_command.delta", **inner, "delta": d} for d in command),
        {"type": "response.shell_call_command.done", **inner, "command": text},
        {"type": "response.output_item.done", "output_index": 0, "item": _shell([text])},
    ]
    return _wrap([_shell([text])], body)


def failed_stream() -> list[Event]:
    """created, in_progress, a nested `error` event, `response.failed` (SPEC §1 error event)."""
    failure = {"code": "server_error", "message": "The server had an error."}
    events: list[Event] = [
        {"type": "response.created", "response": response()},
        {"type": "response.in_progress", "response": response()},
        {"type": "error", "error": {"type": "server_error", "code": "server_error",
                                    "message": failure["message"], "param": None}},
        {"type": "response.failed", "response": response("failed", error=failure, usage=None)},
    ]  # fmt: skip
    return numbered(events)


def retext(events: list[Event], old: str, new: str) -> list[Event]:
    """Every string occurrence of ``old`` replaced by ``new`` (an id, an event name)."""
    out: list[Event] = json.loads(json.dumps(events).replace(old, new))
    return out


# ---------------------------------------------------------------------------- edits


def numbered(events: list[Event], start: int = 0) -> list[Event]:
    """``sequence_number`` 0, 1, 2, … (from ``start``) in list order."""
    for i, event in enumerate(events):
        event["sequence_number"] = start + i
    return events


def find(events: Sequence[Event], etype: str, nth: int = 0) -> int:
    """The index of the ``nth`` event of type ``etype``."""
    hits = [i for i, e in enumerate(events) if e.get("type") == etype]
    return hits[nth]


def _where(events: Sequence[Event], which: int | str) -> int:
    return which if isinstance(which, int) else find(events, which)


def set_in(obj: Any, path: str, value: Any) -> None:
    """Set a dotted path (``response.usage.total_tokens``; digits index lists)."""
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    for key in keys[:-1]:
        obj = obj[key]
    obj[keys[-1]] = value


def at(events: list[Event], which: int | str, path: str, value: Any) -> list[Event]:
    """Set ``path`` in one event (by index, or the first of a type); the stream is returned."""
    set_in(events[_where(events, which)], path, value)
    return events


def without(events: list[Event], which: int | str, path: str) -> list[Event]:
    """Delete a dotted path in one event."""
    obj: Any = events[_where(events, which)]
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    for key in keys[:-1]:
        obj = obj[key]
    del obj[keys[-1]]
    return events


def drop(events: list[Event], which: int | str, *, renumber: bool = True) -> list[Event]:
    """Remove one event (renumbered, so only the structure is broken)."""
    del events[_where(events, which)]
    return numbered(events) if renumber else events


def insert(events: list[Event], index: int, event: Event, *, renumber: bool = True) -> list[Event]:
    events.insert(index, copy.deepcopy(event))
    return numbered(events) if renumber else events


def sse(events: Sequence[Any], *, names: bool = True, done: bool = False) -> bytes:
    """The events as SSE bytes (``event:`` lines when ``names``, ``data: [DONE]`` when ``done``)."""
    out = []
    for e in events:
        head = f"event: {e['type']}\n" if names and isinstance(e, dict) else ""
        data = e if isinstance(e, str) else json.dumps(e, separators=(",", ":"))
        out.append(f"{head}data: {data}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()
